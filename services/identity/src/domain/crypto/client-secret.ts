import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 48 random bytes, base64url: the server generates every client secret it hands out. */
export function generateClientSecret(): string {
  return randomBytes(48).toString('base64url');
}

/**
 * Salted SHA-256. The secrets are high-entropy (>= 32 random bytes, or >= 32 characters from
 * the operator), so a slow KDF would add nothing but latency to every client_credentials call.
 */
export function hashClientSecret(secret: string): string {
  const salt = randomBytes(16).toString('base64url');
  return `sha256$${salt}$${digest(salt, secret).toString('base64url')}`;
}

export function verifyClientSecret(secret: string, stored: string | null | undefined): boolean {
  const [scheme, salt, hash] = (stored ?? '').split('$');
  if (scheme !== 'sha256' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = digest(salt, secret);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

// One-shot hashes: no Hash object per call (a client_credentials token verifies one secret).
function digest(salt: string, secret: string): Buffer {
  return hash('sha256', `${salt}\0${secret}`, 'buffer');
}

/** SHA-256 of an opaque token (access/refresh tokens): lookup key without storing the token. */
export function hashToken(token: string): string {
  return hash('sha256', token, 'base64url');
}
