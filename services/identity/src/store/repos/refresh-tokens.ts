import type { SqlExecutor } from '../sql-client';

export interface StoredRefreshToken {
  id: string;
  token_hash: string;
  /** Every token rotated from one login shares the family of the first. */
  family_id: string;
  client_id: string;
  user_id: string;
  scope: string;
  audience: string | null;
  device: string | null;
  created_at: Date;
  expires_at: Date | null;
  /** Set when the token was exchanged for its successor; using it again is reuse. */
  rotated_at: Date | null;
  revoked_at: Date | null;
  /** The absolute end of the family (the client's token_lifetime); null: none. */
  family_expires_at: Date | null;
  /** The login session the family came from. */
  session_id: string | null;
  /** The claims parameter of the login (as authorization_codes.claims, migration 024); null: none. */
  claims?: string | null;
}

export type NewRefreshToken = Omit<StoredRefreshToken, 'rotated_at' | 'revoked_at' | 'family_expires_at' | 'session_id'> &
  Partial<Pick<StoredRefreshToken, 'family_expires_at' | 'session_id'>>;

/** Rotating refresh tokens, stored as SHA-256 hashes. */
export function refreshTokensRepo(db: SqlExecutor) {
  return {
    async insert(token: NewRefreshToken): Promise<void> {
      await db.query(
        `INSERT INTO refresh_tokens (id, token_hash, family_id, client_id, user_id, scope, audience, device, created_at, expires_at,
           family_expires_at, session_id, claims)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
        [
          token.id,
          token.token_hash,
          token.family_id,
          token.client_id,
          token.user_id,
          token.scope,
          token.audience,
          token.device,
          token.created_at,
          token.expires_at,
          token.family_expires_at ?? null,
          token.session_id ?? null,
          token.claims ?? null,
        ],
      );
    },

    /**
     * Marks a live token rotated and returns it, in one statement: of two parallel uses of
     * one token exactly one gets it; the other sees a rotated token (reuse).
     */
    async rotate(tokenHash: string, now: Date): Promise<StoredRefreshToken | undefined> {
      const { rows } = await db.query<StoredRefreshToken>(
        `UPDATE refresh_tokens SET rotated_at = $2
         WHERE token_hash = $1 AND rotated_at IS NULL AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $2)
           AND (family_expires_at IS NULL OR family_expires_at > $2)
         RETURNING *`,
        [tokenHash, now],
      );
      return rows[0];
    },

    /**
     * A non-rotating use: the token stays live and its idle expiry moves to `expiresAt`
     * (null: none). Undefined when it is not live.
     */
    async use(tokenHash: string, now: Date, expiresAt: Date | null): Promise<StoredRefreshToken | undefined> {
      const { rows } = await db.query<StoredRefreshToken>(
        `UPDATE refresh_tokens SET expires_at = $3
         WHERE token_hash = $1 AND rotated_at IS NULL AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $2)
           AND (family_expires_at IS NULL OR family_expires_at > $2)
         RETURNING *`,
        [tokenHash, now, expiresAt],
      );
      return rows[0];
    },

    async findByHash(tokenHash: string): Promise<StoredRefreshToken | undefined> {
      const { rows } = await db.query<StoredRefreshToken>('SELECT * FROM refresh_tokens WHERE token_hash = $1', [tokenHash]);
      return rows[0];
    },

    /** Revokes every token of the family (reuse of a rotated token was detected, or /oauth/revoke). */
    async revokeFamily(familyId: string, now: Date): Promise<number> {
      const { rowCount } = await db.query(
        'UPDATE refresh_tokens SET revoked_at = $2 WHERE family_id = $1 AND revoked_at IS NULL',
        [familyId, now],
      );
      return rowCount;
    },
  };
}
