import type { SealedColumn } from '../sealed-column';
import type { SecretCipher } from '../secret-cipher';
import type { SqlExecutor } from '../sql-client';

/** next (published, not yet signing) -> current -> previous (still published) -> retired; revoked: any but current and next. */
export type SigningKeyState = 'next' | 'current' | 'previous' | 'retired' | 'revoked';

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
  /** PEM self-signed certificate; null only until the key ring adds it (keys made before migration 6). */
  cert: string | null;
  created_at: Date;
  current_since: Date | null;
  current_until: Date | null;
  revoked_at: Date | null;
}

export interface NewSigningKey {
  kid: string;
  public_jwk: PublicJwk;
  private_key: string;
  cert: string;
}

const LOCK = 'SELECT pg_advisory_xact_lock(hashtext($1))';
const LOCK_KEY = 'smsauth-identity-signing-keys';

const context = (kid: string) => `signing_key:${kid}`;

/** For `keys rotate-secret`. */
export const signingKeysSealedColumns: readonly SealedColumn[] = [
  { table: 'signing_keys', column: 'private_key', key: ['kid'], context: (row) => context(row.kid!) },
];

export function signingKeysRepo(db: SqlExecutor, cipher: SecretCipher) {
  const fromRow = (row: StoredSigningKey): StoredSigningKey => ({ ...row, private_key: cipher.open(row.private_key, context(row.kid)) });
  const insert = (key: NewSigningKey, state: 'current' | 'next', at: Date) =>
    db.query(
      `INSERT INTO signing_keys (kid, alg, public_jwk, private_key, cert, state, created_at, current_since)
       VALUES ($1, 'RS256', $2::jsonb, $3, $4, $5, $6, CASE WHEN $5 = 'current' THEN $6::timestamptz END)`,
      [key.kid, JSON.stringify(key.public_jwk), cipher.seal(key.private_key, context(key.kid)), key.cert, state, at],
    );
  const kidInState = async (state: SigningKeyState) =>
    (await db.query<{ kid: string }>('SELECT kid FROM signing_keys WHERE state = $1', [state])).rows[0]?.kid;

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
     * Call inside a transaction. Stores `key` in `state` (current or next) unless a key holds
     * that state already (another instance may have won the race); returns whether it was stored.
     */
    async insertIfNone(key: NewSigningKey, state: 'current' | 'next', at: Date): Promise<boolean> {
      await db.query(LOCK, [LOCK_KEY]);
      if (await kidInState(state)) return false;
      await insert(key, state, at);
      return true;
    },

    /** Stores the certificate of a key made before certificates were kept; keeps one already there. */
    async setCertIfMissing(kid: string, cert: string): Promise<void> {
      await db.query('UPDATE signing_keys SET cert = $2 WHERE kid = $1 AND cert IS NULL', [kid, cert]);
    },

    /**
     * Call inside a transaction: previous -> retired, current -> previous (still published),
     * next -> current, and `newNext` becomes the next key. Returns false (and changes nothing)
     * when there is no next key to promote.
     */
    async rotate(newNext: NewSigningKey, at: Date): Promise<boolean> {
      await db.query(LOCK, [LOCK_KEY]);
      if (!(await kidInState('next'))) return false;
      await db.query("UPDATE signing_keys SET state = 'retired' WHERE state = 'previous'");
      await db.query("UPDATE signing_keys SET state = 'previous', current_until = $1 WHERE state = 'current'", [at]);
      await db.query("UPDATE signing_keys SET state = 'current', current_since = $1 WHERE state = 'next'", [at]);
      await insert(newNext, 'next', at);
      return true;
    },

    /** Revokes a key that is neither current nor next; returns its state before, or undefined when unknown. */
    async revoke(kid: string, at: Date): Promise<SigningKeyState | undefined> {
      await db.query(LOCK, [LOCK_KEY]);
      const { rows } = await db.query<{ state: SigningKeyState }>('SELECT state FROM signing_keys WHERE kid = $1', [kid]);
      const state = rows[0]?.state;
      if (state === 'previous' || state === 'retired') {
        await db.query("UPDATE signing_keys SET state = 'revoked', revoked_at = $2 WHERE kid = $1", [kid, at]);
      }
      return state;
    },
  };
}
