import type { SqlExecutor } from '../sql-client';

export interface StoredAuthorizeTransaction {
  id: string;
  /** SHA-256 (hex) of the binding secret in the browser's cookie. */
  binding_hash: string;
  client_id: string;
  connection_name: string;
  redirect_uri: string;
  /** `code`, `token`, `id_token` or `token id_token`. */
  response_type: string;
  /** query, fragment, form_post or web_message (null: the response type's default). */
  response_mode: string | null;
  /** PKCE S256 challenge of a code-flow request. */
  code_challenge: string | null;
  max_age: number | null;
  prompt: string | null;
  state: string | null;
  nonce: string | null;
  /** Requested scope, space-separated. */
  scope: string;
  audience: string | null;
  /** The `claims` and `acr_values` parameters as sent (migration 024); absent on older rows. */
  claims?: string | null;
  acr_values?: string | null;
  /** Set once a code was sent to it. */
  phone_number: string | null;
  code_sent_at: Date | null;
  /** The channel of the last code sent (migration 015); null or absent before one was sent. */
  code_channel?: string | null;
  /** The language its pages speak, a LOGIN_LANGUAGES tag (migration 027); null or absent: chosen per page. */
  ui_language?: string | null;
  created_at: Date;
  expires_at: Date;
}

/** Hosted-login transactions (migration 003). */
export function authorizeTransactionsRepo(db: SqlExecutor) {
  return {
    /** Also drops expired rows, so abandoned logins do not pile up. */
    async insert(tx: StoredAuthorizeTransaction): Promise<void> {
      await db.query('DELETE FROM authorize_transactions WHERE expires_at <= $1', [tx.created_at]);
      await db.query(
        `INSERT INTO authorize_transactions (id, binding_hash, client_id, connection_name, redirect_uri, response_type,
           state, nonce, scope, audience, phone_number, code_sent_at, created_at, expires_at,
           response_mode, code_challenge, max_age, prompt, claims, acr_values, ui_language)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21)`,
        [
          tx.id,
          tx.binding_hash,
          tx.client_id,
          tx.connection_name,
          tx.redirect_uri,
          tx.response_type,
          tx.state,
          tx.nonce,
          tx.scope,
          tx.audience,
          tx.phone_number,
          tx.code_sent_at,
          tx.created_at,
          tx.expires_at,
          tx.response_mode,
          tx.code_challenge,
          tx.max_age,
          tx.prompt,
          tx.claims ?? null,
          tx.acr_values ?? null,
          tx.ui_language ?? null,
        ],
      );
    },

    /** The transaction when it exists, has not expired at `now` and has not signed its user in yet. */
    async findLive(id: string, now: Date): Promise<StoredAuthorizeTransaction | undefined> {
      const { rows } = await db.query<StoredAuthorizeTransaction>(
        'SELECT * FROM authorize_transactions WHERE id = $1 AND expires_at > $2 AND completed_at IS NULL',
        [id, now],
      );
      return rows[0];
    },

    /** The application of a transaction that signed its user in and is still kept (see `complete`). */
    async findCompleted(id: string, now: Date): Promise<Pick<StoredAuthorizeTransaction, 'client_id' | 'redirect_uri'> | undefined> {
      const { rows } = await db.query<Pick<StoredAuthorizeTransaction, 'client_id' | 'redirect_uri'>>(
        'SELECT client_id, redirect_uri FROM authorize_transactions WHERE id = $1 AND expires_at > $2 AND completed_at IS NOT NULL',
        [id, now],
      );
      return rows[0];
    },

    /**
     * Ends a transaction that signed its user in, keeping it until `keepUntil` (at least its own
     * expiry) so Back to its pages can say so; true for the one caller that completed it.
     */
    async complete(id: string, at: Date, keepUntil: Date): Promise<boolean> {
      const { rowCount } = await db.query(
        'UPDATE authorize_transactions SET completed_at = $2, expires_at = GREATEST(expires_at, $3) WHERE id = $1 AND completed_at IS NULL',
        [id, at, keepUntil],
      );
      return rowCount > 0;
    },

    /** Records the number a code was just sent to. */
    async recordCodeSent(id: string, phoneNumber: string, at: Date, channel: string | null = null): Promise<void> {
      await db.query('UPDATE authorize_transactions SET phone_number = $2, code_sent_at = $3, code_channel = $4 WHERE id = $1', [id, phoneNumber, at, channel]);
    },

    /** Records the language the user chose with the pages' language switcher. */
    async recordLanguage(id: string, language: string): Promise<void> {
      await db.query('UPDATE authorize_transactions SET ui_language = $2 WHERE id = $1', [id, language]);
    },

    /** Ends the transaction (cancelled, or refused for the application); true for the one caller that deleted it. */
    async delete(id: string): Promise<boolean> {
      const { rowCount } = await db.query('DELETE FROM authorize_transactions WHERE id = $1', [id]);
      return rowCount > 0;
    },
  };
}
