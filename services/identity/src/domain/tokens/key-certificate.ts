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
export function selfSignedCertificate(privateKeyPem: string, subject: string, notBefore: Date): string {
  const privateKey = forge.pki.privateKeyFromPem(privateKeyPem) as forge.pki.rsa.PrivateKey;
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(privateKey.n, privateKey.e);
  // Positive (leading 00) random 128-bit serial, as RFC 5280 4.1.2.2 asks.
  cert.serialNumber = `00${randomBytes(16).toString('hex')}`;
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
