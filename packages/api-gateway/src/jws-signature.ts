import { constants, verify, type KeyObject, type VerifyKeyObjectInput } from 'node:crypto';
import type { Algorithm } from 'jsonwebtoken';

type KeyInput = KeyObject | VerifyKeyObjectInput;

/** The digest and the node:crypto key options of each asymmetric JWS algorithm (RFC 7518 §3.3–3.5), as jwa applies them for jsonwebtoken. */
const SIGNATURE_SCHEMES: Readonly<Record<string, { digest: string; keyInput: (key: KeyObject) => KeyInput }>> = {
  RS256: { digest: 'sha256', keyInput: (key) => key },
  RS384: { digest: 'sha384', keyInput: (key) => key },
  RS512: { digest: 'sha512', keyInput: (key) => key },
  // RSASSA-PSS with MGF1 on the same hash and a salt as long as the digest (RFC 7518 §3.5).
  PS256: { digest: 'sha256', keyInput: (key) => ({ key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST }) },
  PS384: { digest: 'sha384', keyInput: (key) => ({ key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST }) },
  PS512: { digest: 'sha512', keyInput: (key) => ({ key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST }) },
  // JWS carries ECDSA signatures as R || S, fixed length (RFC 7518 §3.4); any other length fails.
  ES256: { digest: 'sha256', keyInput: (key) => ({ key, dsaEncoding: 'ieee-p1363' }) },
  ES384: { digest: 'sha384', keyInput: (key) => ({ key, dsaEncoding: 'ieee-p1363' }) },
  ES512: { digest: 'sha512', keyInput: (key) => ({ key, dsaEncoding: 'ieee-p1363' }) },
};

/**
 * Whether `signature` is `key`'s `alg` signature of `signingInput` (the ASCII of
 * `header.payload`). The check runs on libuv's thread pool (node:crypto's `verify` with a
 * callback), so the event loop goes on serving other requests meanwhile. Never rejects: an
 * algorithm this module does not know, a key that cannot verify it or a signature of the wrong
 * size all answer false, as jsonwebtoken's "invalid signature" would.
 */
export function verifyJwsSignature(alg: Algorithm, key: KeyObject, signingInput: string, signature: Buffer): Promise<boolean> {
  const scheme = SIGNATURE_SCHEMES[alg];
  if (!scheme) return Promise.resolve(false);
  return new Promise((resolve) => {
    try {
      verify(scheme.digest, Buffer.from(signingInput, 'latin1'), scheme.keyInput(key), signature, (err, valid) => resolve(!err && valid));
    } catch {
      resolve(false);
    }
  });
}
