import type { SecretCipher } from '../secret-cipher';
import type { SqlExecutor } from '../sql-client';

export type SigningKeyState = 'current' | 'previous' | 'retired' | 'revoked';

export interface PublicJwk {
  kty: 'RSA';
  n: string;
  e: string;
}

export interface StoredSigningKey {
  kid: string;
  alg: 'RS256';
  public_jwk: PublicJwk;
  /** PKCS#8 PEM, opened. */
  private_key: string;
  state: SigningKeyState;
  created_at: Date;
  current_since: Date | null;
  current_until: Date | null;
  revoked_at: Date | null;
}

export interface NewSigningKey {
  kid: string;
  public_jwk: PublicJwk;
  private_key: string;
}

const LOCK = 'SELECT pg_advisory_xact_lock(hashtext($1))';
const LOCK_KEY = 'smsauth-identity-signing-keys';

export function signingKeysRepo(db: SqlExecutor, cipher: SecretCipher) {
  const context = (kid: string) => `signing_key:${kid}`;
  const fromRow = (row: StoredSigningKey): StoredSigningKey => ({ ...row, private_key: cipher.open(row.private_key, context(row.kid)) });
  const insertCurrent = (key: NewSigningKey, at: Date) =>
    db.query(
      `INSERT INTO signing_keys (kid, alg, public_jwk, private_key, state, created_at, current_since)
       VALUES ($1, 'RS256', $2::jsonb, $3, 'current', $4, $4)`,
      [key.kid, JSON.stringify(key.public_jwk), cipher.seal(key.private_key, context(key.kid)), at],
    );

  return {
    async list(): Promise<StoredSigningKey[]> {
      const { rows } = await db.query<StoredSigningKey>('SELECT * FROM signing_keys ORDER BY created_at DESC, kid');
      return rows.map(fromRow);
    },

    async findByKid(kid: string): Promise<StoredSigningKey | undefined> {
      const { rows } = await db.query<StoredSigningKey>('SELECT * FROM signing_keys WHERE kid = $1', [kid]);
      return rows[0] ? fromRow(rows[0]) : undefined;
    },

    /**
     * Call inside a transaction. Stores `key` as current unless one exists already (another
     * instance may have won the race); returns whether it was stored.
     */
    async insertCurrentIfNone(key: NewSigningKey, at: Date): Promise<boolean> {
      await db.query(LOCK, [LOCK_KEY]);
      const { rows } = await db.query("SELECT kid FROM signing_keys WHERE state = 'current'");
      if (rows.length > 0) return false;
      await insertCurrent(key, at);
      return true;
    },

    /** Call inside a transaction: current -> previous (still published), previous -> retired. */
    async rotate(key: NewSigningKey, at: Date): Promise<void> {
      await db.query(LOCK, [LOCK_KEY]);
      await db.query("UPDATE signing_keys SET state = 'retired' WHERE state = 'previous'");
      await db.query("UPDATE signing_keys SET state = 'previous', current_until = $1 WHERE state = 'current'", [at]);
      await insertCurrent(key, at);
    },

    /** Revokes a non-current key; returns its state before, or undefined when unknown. */
    async revoke(kid: string, at: Date): Promise<SigningKeyState | undefined> {
      await db.query(LOCK, [LOCK_KEY]);
      const { rows } = await db.query<{ state: SigningKeyState }>('SELECT state FROM signing_keys WHERE kid = $1', [kid]);
      const state = rows[0]?.state;
      if (state && state !== 'current' && state !== 'revoked') {
        await db.query("UPDATE signing_keys SET state = 'revoked', revoked_at = $2 WHERE kid = $1", [kid, at]);
      }
      return state;
    },
  };
}
