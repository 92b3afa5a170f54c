import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Constant-time equality of a presented secret (token, signature) with the expected one. Both
 * are hashed first, so the comparison leaks neither where they differ nor the expected length.
 */
export function secretsMatch(presented: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  return timingSafeEqual(digest(presented), digest(expected));
}
