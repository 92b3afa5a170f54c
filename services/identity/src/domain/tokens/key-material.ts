import { createHash, generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import type { NewSigningKey, PublicJwk } from '../../store';
import { selfSignedCertificate } from './key-certificate';

const generateKeyPairAsync = promisify(generateKeyPair);

/** RFC 7638 JWK thumbprint (SHA-256, base64url) of an RSA public key: the key's `kid`. */
export function rsaThumbprint(jwk: PublicJwk): string {
  const canonical = JSON.stringify({ e: jwk.e, kty: 'RSA', n: jwk.n });
  return createHash('sha256').update(canonical).digest('base64url');
}

/** A fresh RS256 key pair (2048-bit RSA) with its self-signed certificate, ready to be stored. */
export async function generateSigningKey(certificateSubject: string, at: Date): Promise<NewSigningKey> {
  const { publicKey, privateKey } = await generateKeyPairAsync('rsa', { modulusLength: 2048, publicExponent: 0x10001 });
  const jwk = publicKey.export({ format: 'jwk' });
  const public_jwk: PublicJwk = { kty: 'RSA', n: jwk.n!, e: jwk.e! };
  const private_key = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  return {
    kid: rsaThumbprint(public_jwk),
    public_jwk,
    private_key,
    cert: selfSignedCertificate(private_key, certificateSubject, at),
  };
}
