import { createSecretCipher, secretKeyId } from '../../src/store/secret-cipher';

const OLD = 'old-key-encryption-secret-0000000000';
const NEW = 'new-key-encryption-secret-1111111111';

describe('the cipher of secrets at rest', () => {
  it('seals with KEY_ENCRYPTION_SECRET and names that secret by its key id, never by the secret', () => {
    const sealed = createSecretCipher(NEW).seal('private key', 'signing_key:k1');
    expect(sealed).toMatch(new RegExp(`^aes256gcm:v2:${secretKeyId(NEW)}:[A-Za-z0-9_-]+$`));
    expect(sealed).not.toContain('private key');
    expect(secretKeyId(NEW)).not.toBe(secretKeyId(OLD));
  });

  it('opens what the fallback secret sealed, and seals only with the main one', () => {
    const sealedWithOld = createSecretCipher(OLD).seal('gateway secret', 'connection:c1:gateway_secret');
    const rotating = createSecretCipher({ secret: NEW, fallbackSecret: OLD });
    expect(rotating.open(sealedWithOld, 'connection:c1:gateway_secret')).toBe('gateway secret');
    expect(rotating.isSealedWithCurrentSecret(sealedWithOld)).toBe(false);
    const resealed = rotating.seal('gateway secret', 'connection:c1:gateway_secret');
    expect(rotating.isSealedWithCurrentSecret(resealed)).toBe(true);
    expect(createSecretCipher(NEW).open(resealed, 'connection:c1:gateway_secret')).toBe('gateway secret');
  });

  it('opens values sealed before the key id was recorded (v1) with either secret', () => {
    // What every version before rotation wrote: the same AES-256-GCM layout without a key id.
    const v2 = createSecretCipher(OLD).seal('code secret', 'one_time_code:c:+1:r');
    const v1 = `aes256gcm:v1:${v2.split(':')[3]}`;
    expect(createSecretCipher({ secret: NEW, fallbackSecret: OLD }).open(v1, 'one_time_code:c:+1:r')).toBe('code secret');
    expect(createSecretCipher(OLD).isSealedWithCurrentSecret(v1)).toBe(false);
    expect(() => createSecretCipher(NEW).open(v1, 'one_time_code:c:+1:r')).toThrow(/cannot be decrypted: KEY_ENCRYPTION_SECRET differs from the one it was sealed with$/);
    expect(() => createSecretCipher({ secret: NEW, fallbackSecret: 'a-third-secret-nobody-used-00000000' }).open(v1, 'one_time_code:c:+1:r')).toThrow(
      /differs from the one it was sealed with, and so does KEY_ENCRYPTION_FALLBACK_SECRET$/,
    );
  });

  it('refuses a value sealed with a secret it does not have, naming that secret by its key id', () => {
    const sealed = createSecretCipher(OLD).seal('x', 'ctx');
    expect(() => createSecretCipher(NEW).open(sealed, 'ctx')).toThrow(`KEY_ENCRYPTION_SECRET differs from the one it was sealed with (the secret of key id ${secretKeyId(OLD)})`);
  });

  it('refuses a sealed value moved to another row, even with the right secret', () => {
    const cipher = createSecretCipher(NEW);
    expect(() => cipher.open(cipher.seal('x', 'connection:a:gateway_secret'), 'connection:b:gateway_secret')).toThrow(/altered, or copied from another row/);
  });

  it('keeps plain values readable, and counts them as not sealed with the secret', () => {
    const cipher = createSecretCipher(NEW);
    expect(cipher.open('plain:x', 'ctx')).toBe('x');
    expect(cipher.isSealedWithCurrentSecret('plain:x')).toBe(false);
    expect(createSecretCipher(undefined).isSealedWithCurrentSecret(createSecretCipher(undefined).seal('x', 'ctx'))).toBe(false);
  });

  it('refuses a fallback secret without a main one', () => {
    expect(() => createSecretCipher({ secret: undefined, fallbackSecret: OLD })).toThrow('KEY_ENCRYPTION_FALLBACK_SECRET is set without KEY_ENCRYPTION_SECRET');
  });

  it('hashes for lookups with the key it is given, not with the secret', () => {
    const lookupKey = Buffer.alloc(32, 7);
    const a = createSecretCipher(OLD).withLookupKey(lookupKey);
    const b = createSecretCipher(NEW).withLookupKey(lookupKey);
    expect(a.lookupHash('+14155550100')).toBe(b.lookupHash('+14155550100'));
    expect(createSecretCipher(OLD).lookupHash('+14155550100')).not.toBe(createSecretCipher(NEW).lookupHash('+14155550100'));
  });
});
