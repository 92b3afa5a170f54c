import type { SqlExecutor } from '../sql-client';
import { translateConstraintErrors } from '../errors';
import type { ListSlice } from '../list-window';

export interface StoredResourceServer {
  id: string;
  name: string;
  identifier: string;
  signing_alg: 'RS256';
  token_lifetime: number;
  scopes: Array<{ value: string; description: string }>;
  is_system: boolean;
  /** RBAC: a user login gets only the scopes the user holds as permissions on this API. */
  enforce_policies: boolean;
  token_dialect: 'access_token' | 'access_token_authz';
  created_at: Date;
  updated_at: Date;
}

export type NewResourceServer = Omit<StoredResourceServer, 'created_at' | 'updated_at' | 'enforce_policies' | 'token_dialect'> &
  Partial<Pick<StoredResourceServer, 'enforce_policies' | 'token_dialect'>>;

export function resourceServersRepo(db: SqlExecutor) {
  return {
    async insert(rs: NewResourceServer): Promise<StoredResourceServer> {
      const { rows } = await translateConstraintErrors(() =>
        db.query<StoredResourceServer>(
          `INSERT INTO resource_servers (id, name, identifier, signing_alg, token_lifetime, scopes, is_system, enforce_policies, token_dialect)
           VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9) RETURNING *`,
          [
            rs.id,
            rs.name,
            rs.identifier,
            rs.signing_alg,
            rs.token_lifetime,
            JSON.stringify(rs.scopes),
            rs.is_system,
            rs.enforce_policies ?? false,
            rs.token_dialect ?? 'access_token',
          ],
        ),
      );
      return rows[0]!;
    },

    async findById(id: string): Promise<StoredResourceServer | undefined> {
      const { rows } = await db.query<StoredResourceServer>('SELECT * FROM resource_servers WHERE id = $1', [id]);
      return rows[0];
    },

    /** Exact match: `https://x` and `https://x/` are different audiences. */
    async findByIdentifier(identifier: string): Promise<StoredResourceServer | undefined> {
      const { rows } = await db.query<StoredResourceServer>('SELECT * FROM resource_servers WHERE identifier = $1', [identifier]);
      return rows[0];
    },

    async findSystem(): Promise<StoredResourceServer | undefined> {
      const { rows } = await db.query<StoredResourceServer>('SELECT * FROM resource_servers WHERE is_system');
      return rows[0];
    },

    async list(): Promise<StoredResourceServer[]> {
      const { rows } = await db.query<StoredResourceServer>('SELECT * FROM resource_servers ORDER BY is_system DESC, created_at, id');
      return rows;
    },

    /** Offset paging only (the reference product has no checkpoint paging here); the management API first. */
    async page(filter: { identifiers?: readonly string[] }, window: { offset: number; limit: number }): Promise<ListSlice<StoredResourceServer>> {
      const { rows } = await db.query<StoredResourceServer>(
        `SELECT * FROM resource_servers WHERE ($1::text[] IS NULL OR identifier = ANY($1::text[]))
         ORDER BY is_system DESC, created_at, id OFFSET $2 LIMIT $3`,
        [filter.identifiers ?? null, window.offset, window.limit],
      );
      return { items: rows };
    },

    async count(filter: { identifiers?: readonly string[] }): Promise<number> {
      const { rows } = await db.query<{ total: number }>(
        'SELECT count(*)::int AS total FROM resource_servers WHERE ($1::text[] IS NULL OR identifier = ANY($1::text[]))',
        [filter.identifiers ?? null],
      );
      return rows[0]!.total;
    },

    async update(
      id: string,
      changes: {
        name?: string;
        token_lifetime?: number;
        scopes?: StoredResourceServer['scopes'];
        enforce_policies?: boolean;
        token_dialect?: StoredResourceServer['token_dialect'];
      },
    ): Promise<StoredResourceServer | undefined> {
      const { rows } = await db.query<StoredResourceServer>(
        `UPDATE resource_servers SET
           name = COALESCE($2, name),
           token_lifetime = COALESCE($3, token_lifetime),
           scopes = COALESCE($4::jsonb, scopes),
           enforce_policies = COALESCE($5, enforce_policies),
           token_dialect = COALESCE($6, token_dialect),
           updated_at = now()
         WHERE id = $1 RETURNING *`,
        [
          id,
          changes.name ?? null,
          changes.token_lifetime ?? null,
          changes.scopes ? JSON.stringify(changes.scopes) : null,
          changes.enforce_policies ?? null,
          changes.token_dialect ?? null,
        ],
      );
      return rows[0];
    },

    /**
     * The management API's own record. Its identifier follows AUTH_URL; ON UPDATE CASCADE
     * carries existing client grants along when AUTH_URL changes.
     */
    async upsertSystem(rs: NewResourceServer): Promise<StoredResourceServer> {
      const { rows } = await db.query<StoredResourceServer>(
        `UPDATE resource_servers SET name = $3, identifier = $1, scopes = $2::jsonb, updated_at = now() WHERE is_system RETURNING *`,
        [rs.identifier, JSON.stringify(rs.scopes), rs.name],
      );
      return rows[0] ?? this.insert(rs);
    },

    async delete(id: string): Promise<boolean> {
      const { rowCount } = await db.query('DELETE FROM resource_servers WHERE id = $1', [id]);
      return rowCount > 0;
    },
  };
}
