import jwt from 'jsonwebtoken';
import type { TestKey } from './keys';

// Raw crafting (any header, payload, signature) lives in @smsauth/test-support, shared with
// the services' attack corpora.
export { b64url, craftToken, hmacSigner, rsaSigner, withPayload } from '@smsauth/test-support';

export interface SignOptions {
  algorithm?: jwt.Algorithm;
  /** Header kid; `null` leaves it out. Defaults to the key's kid. */
  kid?: string | null;
  header?: Record<string, unknown>;
}

/** A real token signed by a test key; the claims carry the test clock's iat/exp (jsonwebtoken keeps a given iat). */
export function signToken(key: TestKey, claims: Record<string, unknown>, options: SignOptions = {}): string {
  const kid = options.kid === undefined ? key.kid : options.kid;
  return jwt.sign(claims, key.privateKey, {
    algorithm: options.algorithm ?? 'RS256',
    ...(kid === null ? {} : { keyid: kid }),
    header: { alg: options.algorithm ?? 'RS256', ...(options.header ?? {}) } as jwt.JwtHeader,
  });
}
