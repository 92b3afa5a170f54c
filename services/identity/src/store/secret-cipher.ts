import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Seals secrets stored at rest (signing private keys, gateway secrets, one-time-code secrets).
 * `context` is bound as additional authenticated data, so a sealed value copied into another
 * row (another kid, another connection) fails to open.
 */
export interface SecretCipher {
  readonly encrypts: boolean;
  seal(plaintext: string, context: string): string;
  open(sealed: string, context: string): string;
  /**
   * A keyed hash (HMAC-SHA-256, hex) to find records by a value they do not store in clear (a
   * phone number in the tenant logs). Its key is derived from KEY_ENCRYPTION_SECRET apart from the
   * sealing key; without the secret, from a fixed string (dev only: the hash of a phone number is
   * then as good as the number). Changing the secret makes earlier hashes unfindable.
   */
  lookupHash(value: string): string;
}

const PLAIN_PREFIX = 'plain:';
const SEALED_PREFIX = 'aes256gcm:v1:';

/** AES-256-GCM with a key derived once (HKDF-SHA256) from KEY_ENCRYPTION_SECRET; plaintext when none is set. */
export function createSecretCipher(keyEncryptionSecret: string | undefined): SecretCipher {
  const key = keyEncryptionSecret
    ? Buffer.from(hkdfSync('sha256', keyEncryptionSecret, 'smsauth-identity', 'secrets-at-rest-v1', 32))
    : undefined;
  const lookupKey = Buffer.from(hkdfSync('sha256', keyEncryptionSecret ?? 'smsauth-identity-without-secret', 'smsauth-identity', 'lookup-hash-v1', 32));
  return {
    encrypts: key !== undefined,
    lookupHash: (value) => createHmac('sha256', lookupKey).update(value).digest('hex'),
    seal(plaintext, context) {
      if (!key) return PLAIN_PREFIX + plaintext;
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(context));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return SEALED_PREFIX + Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url');
    },
    open(sealed, context) {
      // Values written before KEY_ENCRYPTION_SECRET was set stay readable.
      if (sealed.startsWith(PLAIN_PREFIX)) return sealed.slice(PLAIN_PREFIX.length);
      if (!sealed.startsWith(SEALED_PREFIX)) throw new Error('unrecognised sealed secret format');
      if (!key) throw new Error('a stored secret is encrypted but KEY_ENCRYPTION_SECRET is not set');
      const raw = Buffer.from(sealed.slice(SEALED_PREFIX.length), 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(raw.subarray(12, 28));
      try {
        return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
      } catch {
        throw new Error('a stored secret cannot be decrypted: KEY_ENCRYPTION_SECRET differs from the one it was sealed with');
      }
    },
  };
}
