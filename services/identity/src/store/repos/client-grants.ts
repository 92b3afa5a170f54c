import type { SqlExecutor } from '../sql-client';
import { translateConstraintErrors } from '../errors';
import { fromJsonRow, type JsonRow } from '../json-rows';
import { checkpointColumn, sliceOf, windowSql, type ListSlice, type ListWindow } from '../list-window';
import type { StoredClient } from './clients';
import type { StoredResourceServer } from './resource-servers';

export interface StoredClientGrant {
  id: string;
  client_id: string;
  audience: string;
  scope: string[];
  created_at: Date;
}

/** What a client_credentials request needs; each part is undefined when it does not exist. */
export interface ClientCredentialsContext {
  client?: StoredClient;
  api?: StoredResourceServer;
  grant?: StoredClientGrant;
}

/** List filters: the grants of one client and/or one API. */
export interface ClientGrantFilter {
  client_id?: string;
  audience?: string;
}

export function clientGrantsRepo(db: SqlExecutor) {
  return {
    async insert(grant: { id: string; client_id: string; audience: string; scope: readonly string[] }): Promise<StoredClientGrant> {
      const { rows } = await translateConstraintErrors(() =>
        db.query<StoredClientGrant>(
          'INSERT INTO client_grants (id, client_id, audience, scope) VALUES ($1, $2, $3, $4::jsonb) RETURNING *',
          [grant.id, grant.client_id, grant.audience, JSON.stringify(grant.scope)],
        ),
      );
      return rows[0]!;
    },

    /** Creates the grant or replaces its scope (bootstrap of the admin client). */
    async upsert(grant: { id: string; client_id: string; audience: string; scope: readonly string[] }): Promise<StoredClientGrant> {
      const { rows } = await db.query<StoredClientGrant>(
        `INSERT INTO client_grants (id, client_id, audience, scope) VALUES ($1, $2, $3, $4::jsonb)
         ON CONFLICT (client_id, audience) DO UPDATE SET scope = EXCLUDED.scope RETURNING *`,
        [grant.id, grant.client_id, grant.audience, JSON.stringify(grant.scope)],
      );
      return rows[0]!;
    },

    async findById(id: string): Promise<StoredClientGrant | undefined> {
      const { rows } = await db.query<StoredClientGrant>('SELECT * FROM client_grants WHERE id = $1', [id]);
      return rows[0];
    },

    /** The grant that lets `clientId` obtain client_credentials tokens for `audience`. */
    async find(clientId: string, audience: string): Promise<StoredClientGrant | undefined> {
      const { rows } = await db.query<StoredClientGrant>(
        'SELECT * FROM client_grants WHERE client_id = $1 AND audience = $2',
        [clientId, audience],
      );
      return rows[0];
    },

    /**
     * The client, the API and the grant between them in one round trip: the M2M token path
     * runs this on every request, and three sequential lookups left it waiting on the database.
     */
    async findClientCredentialsContext(clientId: string, audience: string): Promise<ClientCredentialsContext> {
      const { rows } = await db.query<{
        client: JsonRow<StoredClient> | null;
        api: JsonRow<StoredResourceServer> | null;
        grant: JsonRow<StoredClientGrant> | null;
      }>(
        `SELECT to_jsonb(c) AS client, to_jsonb(rs) AS api, to_jsonb(g) AS grant
         FROM (SELECT 1) AS one
         LEFT JOIN clients c ON c.client_id = $1
         LEFT JOIN resource_servers rs ON rs.identifier = $2
         LEFT JOIN client_grants g ON g.client_id = c.client_id AND g.audience = rs.identifier`,
        [clientId, audience],
      );
      const row = rows[0]!;
      return {
        client: fromJsonRow<StoredClient>(row.client),
        api: fromJsonRow<StoredResourceServer>(row.api),
        grant: fromJsonRow<StoredClientGrant>(row.grant),
      };
    },

    async page(filter: ClientGrantFilter, window: ListWindow): Promise<ListSlice<StoredClientGrant>> {
      const params: unknown[] = [filter.client_id ?? null, filter.audience ?? null];
      const { condition, tail } = windowSql(window, params, 'g', 'g.id');
      const { rows } = await db.query<StoredClientGrant & { checkpoint_at: string }>(
        `SELECT g.*, ${checkpointColumn('g')} FROM client_grants g
         WHERE ($1::text IS NULL OR g.client_id = $1) AND ($2::text IS NULL OR g.audience = $2) AND ${condition}
         ${tail}`,
        params,
      );
      return sliceOf(rows, window, (row) => row.id, (row) => row);
    },

    async count(filter: ClientGrantFilter): Promise<number> {
      const { rows } = await db.query<{ total: number }>(
        `SELECT count(*)::int AS total FROM client_grants
         WHERE ($1::text IS NULL OR client_id = $1) AND ($2::text IS NULL OR audience = $2)`,
        [filter.client_id ?? null, filter.audience ?? null],
      );
      return rows[0]!.total;
    },

    async updateScope(id: string, scope: readonly string[]): Promise<StoredClientGrant | undefined> {
      const { rows } = await db.query<StoredClientGrant>(
        'UPDATE client_grants SET scope = $2::jsonb WHERE id = $1 RETURNING *',
        [id, JSON.stringify(scope)],
      );
      return rows[0];
    },

    async delete(id: string): Promise<boolean> {
      const { rowCount } = await db.query('DELETE FROM client_grants WHERE id = $1', [id]);
      return rowCount > 0;
    },
  };
}
