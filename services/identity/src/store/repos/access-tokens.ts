import type { SqlExecutor } from '../sql-client';

export interface StoredAccessToken {
  token_hash: string;
  client_id: string;
  user_id: string;
  scope: string;
  /** UserInfo claims the claims parameter asked for, space-separated (migration 024); null: none. */
  claims?: string | null;
  created_at: Date;
  expires_at: Date;
}

/** Opaque access tokens (valid at /userinfo), stored as SHA-256 hashes. */
export function accessTokensRepo(db: SqlExecutor) {
  return {
    /**
     * Also drops the user's expired tokens, so the table does not grow without bound; one
     * statement, as it runs on every login that issues an opaque token.
     */
    async insert(token: StoredAccessToken): Promise<void> {
      await db.query(
        `WITH expired AS (DELETE FROM access_tokens WHERE user_id = $3 AND expires_at <= $5)
         INSERT INTO access_tokens (token_hash, client_id, user_id, scope, created_at, expires_at, claims)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [token.token_hash, token.client_id, token.user_id, token.scope, token.created_at, token.expires_at, token.claims ?? null],
      );
    },

    /** The token when it exists and has not expired at `now`. */
    async findLive(tokenHash: string, now: Date): Promise<StoredAccessToken | undefined> {
      const { rows } = await db.query<StoredAccessToken>(
        'SELECT * FROM access_tokens WHERE token_hash = $1 AND expires_at > $2',
        [tokenHash, now],
      );
      return rows[0];
    },

    /** Revokes one token (the access token of a replayed authorization code). */
    async delete(tokenHash: string): Promise<void> {
      await db.query('DELETE FROM access_tokens WHERE token_hash = $1', [tokenHash]);
    },
  };
}
