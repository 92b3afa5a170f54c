import { createHash, randomBytes, X509Certificate } from 'node:crypto';
import forge from 'node-forge';

/** The reference product's signing certificates are long-lived; the key's life is decided by rotation, not expiry. */
const CERTIFICATE_VALIDITY_YEARS = 10;

/**
 * A self-signed X.509 certificate (PEM) of an RS256 signing key, as the reference product
 * publishes for each of its keys (JWKS `x5c`, the management record's `cert`). Signed with
 * the key itself, SHA-256; subject and issuer `CN=<subject>`. node-forge builds it: synchronous,
 * no global polyfill (unlike @peculiar/x509, which needs reflect-metadata installed globally),
 * and widely used; Node's own crypto can read certificates but not issue them.
 */
export function selfSignedCertificate(privateKeyPem: string, subject: string, notBefore: Date, serialRandom = randomBytes(16)): string {
  const privateKey = forge.pki.privateKeyFromPem(privateKeyPem) as forge.pki.rsa.PrivateKey;
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(privateKey.n, privateKey.e);
  cert.serialNumber = certificateSerial(serialRandom);
  cert.validity.notBefore = notBefore;
  const notAfter = new Date(notBefore);
  notAfter.setUTCFullYear(notAfter.getUTCFullYear() + CERTIFICATE_VALIDITY_YEARS);
  cert.validity.notAfter = notAfter;
  const name = [{ name: 'commonName', value: subject }];
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.setExtensions([{ name: 'basicConstraints', cA: false }, { name: 'keyUsage', digitalSignature: true }]);
  cert.sign(privateKey, forge.md.sha256.create());
  return forge.pki.certificateToPem(cert);
}

/**
 * A positive serial (RFC 5280 4.1.2.2) from random bytes, as node-forge wants it (hex). DER
 * integers are minimal: the first byte is kept in 0x01-0x7f, so the value needs neither a
 * sign byte nor has a leading zero byte; `00` + random bytes starting with 00 was refused by
 * OpenSSL ("illegal padding") once in 256 keys.
 */
export function certificateSerial(random: Buffer): string {
  const bytes = Buffer.from(random);
  bytes[0] = bytes[0]! & 0x7f || 0x01;
  return bytes.toString('hex');
}

/** What JWKS entries and key records say about a certificate. */
export interface CertificateFacts {
  /** JWKS `x5c`: the DER, standard base64 (RFC 7517 4.7). */
  x5c: string[];
  /** JWKS `x5t`: base64url SHA-1 of the DER (RFC 7517 4.8). */
  x5t: string;
  /** The record's `fingerprint`: SHA-1, colon-separated upper-case hex. */
  fingerprint: string;
  /** The record's `thumbprint`: SHA-1, upper-case hex. */
  thumbprint: string;
}

export function certificateFacts(pem: string): CertificateFacts {
  const der = new X509Certificate(pem).raw;
  const sha1 = createHash('sha1').update(der).digest();
  const hex = sha1.toString('hex').toUpperCase();
  return {
    x5c: [der.toString('base64')],
    x5t: sha1.toString('base64url'),
    fingerprint: hex.match(/../g)!.join(':'),
    thumbprint: hex,
  };
}
