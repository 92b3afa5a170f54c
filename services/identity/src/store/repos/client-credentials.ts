import type { SqlExecutor } from '../sql-client';

/** A public key registered on a client for private_key_jwt (Auth0's client credential). */
export interface StoredClientCredential {
  id: string;
  client_id: string;
  credential_type: 'public_key';
  name: string | null;
  kid: string;
  alg: string;
  /** SPKI public key or certificate PEM: public material, stored as sent. */
  pem: string;
  created_at: Date;
  updated_at: Date;
  expires_at: Date | null;
}

export type NewClientCredential = Omit<StoredClientCredential, 'created_at' | 'updated_at'>;

export function clientCredentialsRepo(db: SqlExecutor) {
  return {
    async insert(credential: NewClientCredential): Promise<StoredClientCredential> {
      const { rows } = await db.query<StoredClientCredential>(
        `INSERT INTO client_credentials (id, client_id, credential_type, name, kid, alg, pem, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
        [credential.id, credential.client_id, credential.credential_type, credential.name, credential.kid, credential.alg, credential.pem, credential.expires_at],
      );
      return rows[0]!;
    },

    async listForClient(clientId: string): Promise<StoredClientCredential[]> {
      const { rows } = await db.query<StoredClientCredential>(
        'SELECT * FROM client_credentials WHERE client_id = $1 ORDER BY created_at, id',
        [clientId],
      );
      return rows;
    },

    /** The credentials of several clients in one query (a page of the client list). */
    async listForClients(clientIds: readonly string[]): Promise<StoredClientCredential[]> {
      if (clientIds.length === 0) return [];
      const { rows } = await db.query<StoredClientCredential>(
        'SELECT * FROM client_credentials WHERE client_id = ANY($1::text[]) ORDER BY created_at, id',
        [clientIds],
      );
      return rows;
    },

    async find(clientId: string, credentialId: string): Promise<StoredClientCredential | undefined> {
      const { rows } = await db.query<StoredClientCredential>(
        'SELECT * FROM client_credentials WHERE client_id = $1 AND id = $2',
        [clientId, credentialId],
      );
      return rows[0];
    },

    async setExpiry(clientId: string, credentialId: string, expiresAt: Date | null): Promise<StoredClientCredential | undefined> {
      const { rows } = await db.query<StoredClientCredential>(
        'UPDATE client_credentials SET expires_at = $3, updated_at = now() WHERE client_id = $1 AND id = $2 RETURNING *',
        [clientId, credentialId, expiresAt],
      );
      return rows[0];
    },

    async delete(clientId: string, credentialId: string): Promise<boolean> {
      const { rowCount } = await db.query('DELETE FROM client_credentials WHERE client_id = $1 AND id = $2', [clientId, credentialId]);
      return rowCount > 0;
    },

    /**
     * Records the `jti` of an accepted client assertion; false if it was already used. One
     * statement: of two replicas seeing the same assertion at once, exactly one inserts it.
     * Rows past their expiry (of any client) are dropped first, through the expires_at index:
     * an expired assertion is refused by its `exp` anyway, and the table stays small.
     */
    async recordAssertionJti(clientId: string, jti: string, expiresAt: Date, now: Date): Promise<boolean> {
      await db.query('DELETE FROM client_assertion_jtis WHERE expires_at < $1', [now]);
      const { rowCount } = await db.query(
        `INSERT INTO client_assertion_jtis (client_id, jti, expires_at) VALUES ($1, $2, $3)
         ON CONFLICT (client_id, jti) DO NOTHING`,
        [clientId, jti, expiresAt],
      );
      return rowCount > 0;
    },
  };
}
