import { createHash } from 'node:crypto';
import { generateClientSecret, hashClientSecret, hashToken, verifyClientSecret } from '../../src/domain/crypto/client-secret';

// A stored hash is `sha256$<salt>$<base64url SHA-256 of salt, NUL, secret>`: rows written by any
// earlier version must keep verifying, so the format is computed here independently.
function storedTheWayRowsHoldIt(salt: string, secret: string): string {
  return `sha256$${salt}$${createHash('sha256').update(salt).update('\0').update(secret).digest('base64url')}`;
}

describe('client secrets', () => {
  const secret = generateClientSecret();

  it('verifies a secret against a hash stored in the documented format', () => {
    expect(verifyClientSecret(secret, storedTheWayRowsHoldIt('c2FsdHNhbHRzYWx0', secret))).toBe(true);
  });

  it('refuses another secret, and a hash that is missing, malformed or of another scheme', () => {
    const stored = storedTheWayRowsHoldIt('c2FsdHNhbHRzYWx0', secret);
    expect(verifyClientSecret(`${secret}x`, stored)).toBe(false);
    expect(verifyClientSecret(secret, null)).toBe(false);
    expect(verifyClientSecret(secret, 'sha256$only-a-salt')).toBe(false);
    expect(verifyClientSecret(secret, stored.replace(/^sha256/, 'md5'))).toBe(false);
    expect(verifyClientSecret(secret, stored.slice(0, -4))).toBe(false);
  });

  it('hashes each secret with a salt of its own, in the format it verifies', () => {
    const first = hashClientSecret(secret);
    const second = hashClientSecret(secret);
    expect(first).not.toBe(second);
    const [, salt] = first.split('$');
    expect(first).toBe(storedTheWayRowsHoldIt(salt!, secret));
    expect(verifyClientSecret(secret, second)).toBe(true);
  });

  it('keys an opaque token by the base64url SHA-256 of its text', () => {
    expect(hashToken('opaque-token')).toBe(createHash('sha256').update('opaque-token').digest('base64url'));
  });
});
