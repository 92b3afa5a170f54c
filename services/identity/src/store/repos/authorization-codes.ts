import type { SqlExecutor } from '../sql-client';

export interface StoredAuthorizationCode {
  /** SHA-256 (hex) of the code; the code itself is never stored. */
  code_hash: string;
  client_id: string;
  user_id: string;
  redirect_uri: string;
  scope: string;
  audience: string | null;
  nonce: string | null;
  /** PKCE S256 challenge (base64url); null for a confidential client that sent none. */
  code_challenge: string | null;
  /** The login session the code came from (`sid`). */
  session_id: string | null;
  auth_time: Date;
  /** The claims parameter's names (`{"userinfo": [...], "id_token": [...]}`, JSON) and the ID token's acr (migration 024). */
  claims: string | null;
  acr: string | null;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
  /** What the first exchange issued, revoked when the code is presented again. */
  refresh_family_id: string | null;
  access_token_hash: string | null;
}

/**
 * What an exchange may issue, named before it does: either may never come to exist (no
 * offline_access, or a JWT access token), and revoking what does not exist changes nothing.
 */
export interface IssuedByExchange {
  refreshFamilyId: string;
  accessTokenHash: string;
}

export type NewAuthorizationCode = Omit<StoredAuthorizationCode, 'used_at' | 'refresh_family_id' | 'access_token_hash'>;

/** Authorization codes of the code flow (migration 012). */
export function authorizationCodesRepo(db: SqlExecutor) {
  return {
    /** Also drops codes expired for a while (a replay after that is just an unknown code). */
    async insert(code: NewAuthorizationCode): Promise<void> {
      await db.query("DELETE FROM authorization_codes WHERE expires_at <= $1::timestamptz - interval '1 hour'", [code.created_at]);
      await db.query(
        `INSERT INTO authorization_codes (code_hash, client_id, user_id, redirect_uri, scope, audience, nonce, code_challenge,
           session_id, auth_time, created_at, expires_at, claims, acr)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
        [
          code.code_hash,
          code.client_id,
          code.user_id,
          code.redirect_uri,
          code.scope,
          code.audience,
          code.nonce,
          code.code_challenge,
          code.session_id,
          code.auth_time,
          code.created_at,
          code.expires_at,
          code.claims,
          code.acr,
        ],
      );
    },

    /**
     * Marks an unused, unexpired code used and returns it, in one statement: of two parallel
     * exchanges of one code exactly one gets it. The statement also remembers what the exchange
     * is about to issue (its refresh-token family and opaque access token, named before they
     * exist), so that a replay can revoke them without a second write.
     */
    async consume(codeHash: string, now: Date, issuing: IssuedByExchange): Promise<StoredAuthorizationCode | undefined> {
      const { rows } = await db.query<StoredAuthorizationCode>(
        `UPDATE authorization_codes SET used_at = $2, refresh_family_id = $3, access_token_hash = $4
         WHERE code_hash = $1 AND used_at IS NULL AND expires_at > $2 RETURNING *`,
        [codeHash, now, issuing.refreshFamilyId, issuing.accessTokenHash],
      );
      return rows[0];
    },

    async findByHash(codeHash: string): Promise<StoredAuthorizationCode | undefined> {
      const { rows } = await db.query<StoredAuthorizationCode>('SELECT * FROM authorization_codes WHERE code_hash = $1', [codeHash]);
      return rows[0];
    },
  };
}
