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
   * Whether `sealed` is already sealed with KEY_ENCRYPTION_SECRET (what `keys rotate-secret`
   * leaves alone). Plain values and values sealed with the fallback secret, or by a version that
   * did not record which secret sealed them, are not.
   */
  isSealedWithCurrentSecret(sealed: string): boolean;
  /**
   * A keyed hash (HMAC-SHA-256, hex) to find records by a value they do not store in clear (a
   * phone number in the tenant logs). Its key is the store's lookup key (see lookup-key.ts),
   * which stays the same when KEY_ENCRYPTION_SECRET is rotated; until the store hands it over,
   * one derived from KEY_ENCRYPTION_SECRET apart from the sealing key (without the secret, from a
   * fixed string: dev only, the hash of a phone number is then as good as the number).
   */
  lookupHash(value: string): string;
  /** The same cipher hashing with this lookup key. */
  withLookupKey(lookupKey: Buffer): SecretCipher;
  /** The lookup key derived from KEY_ENCRYPTION_SECRET, as every version before the stored one used. */
  readonly derivedLookupKey: Buffer;
}

export interface SecretCipherSecrets {
  /** KEY_ENCRYPTION_SECRET: seals, and opens what it sealed. */
  secret: string | undefined;
  /**
   * KEY_ENCRYPTION_FALLBACK_SECRET: opens what it sealed, never seals. The previous secret while
   * `keys rotate-secret` reseals, or, in the first step of a rotation across several replicas,
   * the next one (so that every replica can open what the first replica on it seals).
   */
  fallbackSecret?: string | undefined;
}

const PLAIN_PREFIX = 'plain:';
/** Written before rotation existed: which secret sealed it is not recorded. */
const SEALED_V1_PREFIX = 'aes256gcm:v1:';
/** aes256gcm:v2:<key id>:<iv | tag | ciphertext, base64url>; the key id names the secret. */
const SEALED_V2_PREFIX = 'aes256gcm:v2:';

interface SealingKey {
  id: string;
  key: Buffer;
}

function sealingKeyOf(secret: string): SealingKey {
  const key = Buffer.from(hkdfSync('sha256', secret, 'smsauth-identity', 'secrets-at-rest-v1', 32));
  // A name for the secret that reveals nothing of it: 8 hex digits from its own HKDF branch.
  const id = Buffer.from(hkdfSync('sha256', secret, 'smsauth-identity', 'secrets-at-rest-key-id', 4)).toString('hex');
  return { id, key };
}

function openWith(key: Buffer, payload: string, context: string): string | undefined {
  const raw = Buffer.from(payload, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
  decipher.setAAD(Buffer.from(context));
  decipher.setAuthTag(raw.subarray(12, 28));
  try {
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}


/**
 * AES-256-GCM with keys derived once (HKDF-SHA256) from KEY_ENCRYPTION_SECRET and the fallback
 * secret; plaintext when no secret is set.
 */
export function createSecretCipher(secrets: SecretCipherSecrets | string | undefined): SecretCipher {
  const { secret, fallbackSecret } = typeof secrets === 'object' ? secrets : { secret: secrets, fallbackSecret: undefined };
  if (fallbackSecret && !secret) throw new Error('KEY_ENCRYPTION_FALLBACK_SECRET is set without KEY_ENCRYPTION_SECRET');
  const current = secret ? sealingKeyOf(secret) : undefined;
  const openers = [current, fallbackSecret && fallbackSecret !== secret ? sealingKeyOf(fallbackSecret) : undefined].filter(
    (key): key is SealingKey => key !== undefined,
  );
  const CANNOT_OPEN = `a stored secret cannot be decrypted: KEY_ENCRYPTION_SECRET differs from the one it was sealed with${openers.length > 1 ? ', and so does KEY_ENCRYPTION_FALLBACK_SECRET' : ''}`;
  const derivedLookupKey = Buffer.from(hkdfSync('sha256', secret ?? 'smsauth-identity-without-secret', 'smsauth-identity', 'lookup-hash-v1', 32));

  const build = (lookupKey: Buffer): SecretCipher => ({
    encrypts: current !== undefined,
    derivedLookupKey,
    lookupHash: (value) => createHmac('sha256', lookupKey).update(value).digest('hex'),
    withLookupKey: (key) => build(key),
    isSealedWithCurrentSecret: (sealed) => current !== undefined && sealed.startsWith(`${SEALED_V2_PREFIX}${current.id}:`),
    seal(plaintext, context) {
      if (!current) return PLAIN_PREFIX + plaintext;
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', current.key, iv);
      cipher.setAAD(Buffer.from(context));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return `${SEALED_V2_PREFIX}${current.id}:${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url')}`;
    },
    open(sealed, context) {
      // Values written before KEY_ENCRYPTION_SECRET was set stay readable.
      if (sealed.startsWith(PLAIN_PREFIX)) return sealed.slice(PLAIN_PREFIX.length);
      if (openers.length === 0 && (sealed.startsWith(SEALED_V1_PREFIX) || sealed.startsWith(SEALED_V2_PREFIX))) {
        throw new Error('a stored secret is encrypted but KEY_ENCRYPTION_SECRET is not set');
      }
      if (sealed.startsWith(SEALED_V2_PREFIX)) {
        const rest = sealed.slice(SEALED_V2_PREFIX.length);
        const separator = rest.indexOf(':');
        const opener = openers.find((key) => key.id === rest.slice(0, separator));
        if (!opener) throw new Error(`${CANNOT_OPEN} (the secret of key id ${rest.slice(0, separator)})`);
        const opened = openWith(opener.key, rest.slice(separator + 1), context);
        if (opened === undefined) throw new Error('a stored secret cannot be decrypted: it was altered, or copied from another row');
        return opened;
      }
      if (sealed.startsWith(SEALED_V1_PREFIX)) {
        for (const opener of openers) {
          const opened = openWith(opener.key, sealed.slice(SEALED_V1_PREFIX.length), context);
          if (opened !== undefined) return opened;
        }
        throw new Error(CANNOT_OPEN);
      }
      throw new Error('unrecognised sealed secret format');
    },
  });
  return build(derivedLookupKey);
}

/** The key id `seal` writes for a secret (8 hex digits): what an operator compares with `keys rotate-secret`'s report. */
export function secretKeyId(secret: string): string {
  return sealingKeyOf(secret).id;
}
