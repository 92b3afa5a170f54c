import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Constant-time comparison of a presented token with the configured one. Both are hashed
 * first so the comparison does not leak the configured token's length either.
 */
export function tokenMatches(presented: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  return timingSafeEqual(digest(presented), digest(expected));
}
