import type { Auth0ClientSettings, JwtConfiguration, OidcLogoutSettings, RefreshTokenSettings, TokenEndpointAuthMethod } from '@smsauth/contracts';
import type { SqlExecutor } from '../sql-client';
import { translateConstraintErrors } from '../errors';
import { checkpointColumn, sliceOf, windowSql, type ListSlice, type ListWindow } from '../list-window';

export interface StoredClient {
  client_id: string;
  name: string;
  app_type: 'native' | 'spa' | 'regular_web' | 'non_interactive';
  callbacks: string[];
  allowed_origins: string[];
  grant_types: string[];
  default_audience: string | null;
  secret_hash: string | null;
  token_endpoint_auth_method: TokenEndpointAuthMethod;
  allowed_logout_urls: string[];
  /** Origins allowed to call the token endpoint from a browser and to receive web_message responses. */
  web_origins: string[];
  initiate_login_uri: string | null;
  /** Auth0's free-text description; only shown. */
  description: string | null;
  oidc_conformant: boolean;
  /** Auth0's refresh_token settings; null: DEFAULT_REFRESH_TOKEN_SETTINGS. */
  refresh_token: RefreshTokenSettings | null;
  /** Auth0's jwt_configuration as given; null: RS256 and the default ID token lifetime. */
  jwt_configuration: JwtConfiguration | null;
  /** Auth0 settings for features identity does not have: stored as given, shown, never acted on. */
  auth0_settings: Auth0ClientSettings;
  /** Logout URLs (back-channel, Auth0's oidc_logout; front-channel, ours); null: none. */
  oidc_logout: OidcLogoutSettings | null;
  /** Auth0's switch for embedded login: POST /co/authenticate from the client's origins. */
  cross_origin_authentication: boolean;
  /** The client's crossOriginVerification() page, framed by /co/verify. */
  cross_origin_loc: string | null;
  system_role: string | null;
  created_at: Date;
  updated_at: Date;
}

/** Without a method, a client holding a secret uses client_secret_post, the others none. */
type OptionalOnInsert =
  | 'token_endpoint_auth_method'
  | 'allowed_logout_urls'
  | 'web_origins'
  | 'initiate_login_uri'
  | 'description'
  | 'oidc_conformant'
  | 'refresh_token'
  | 'jwt_configuration'
  | 'auth0_settings'
  | 'oidc_logout'
  | 'cross_origin_authentication'
  | 'cross_origin_loc';
export type NewClient = Omit<StoredClient, 'created_at' | 'updated_at' | OptionalOnInsert> & Partial<Pick<StoredClient, OptionalOnInsert>>;
export type ClientChanges = Partial<Omit<StoredClient, 'client_id' | 'created_at' | 'updated_at' | 'system_role'>>;

/** Columns holding JSON, by type: `json` keeps the key order a caller sent (see migration 023). */
const JSON_COLUMNS = new Map([
  ...['callbacks', 'allowed_origins', 'grant_types', 'allowed_logout_urls', 'web_origins', 'refresh_token', 'oidc_logout'].map((c) => [c, 'jsonb'] as const),
  ...['jwt_configuration', 'auth0_settings'].map((c) => [c, 'json'] as const),
]);
// Column names are interpolated into SQL: only these may ever appear there.
const UPDATABLE_COLUMNS = new Set(['name', 'app_type', 'callbacks', 'allowed_origins', 'grant_types', 'default_audience', 'secret_hash',
  'token_endpoint_auth_method', 'allowed_logout_urls', 'web_origins', 'initiate_login_uri', 'description', 'oidc_conformant', 'refresh_token',
  'jwt_configuration', 'auth0_settings', 'oidc_logout', 'cross_origin_authentication', 'cross_origin_loc']);

/** The origin of a URL, or undefined when it has none (allowed_origins hold URLs, web_origins origins). */
function originOf(url: string): string | undefined {
  try {
    const { origin } = new URL(url);
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

export function clientsRepo(db: SqlExecutor) {
  return {
    async insert(client: NewClient): Promise<StoredClient> {
      const { rows } = await translateConstraintErrors(() =>
        db.query<StoredClient>(
          `INSERT INTO clients (client_id, name, app_type, callbacks, allowed_origins, grant_types,
             default_audience, secret_hash, system_role, token_endpoint_auth_method, allowed_logout_urls,
             web_origins, initiate_login_uri, oidc_conformant, refresh_token, description, jwt_configuration, auth0_settings, oidc_logout,
             cross_origin_authentication, cross_origin_loc)
           VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, $6::jsonb, $7, $8, $9, $10, $11::jsonb, $12::jsonb, $13, $14, $15::jsonb, $16, $17::json, $18::json, $19::jsonb, $20, $21)
           RETURNING *`,
          [
            client.client_id,
            client.name,
            client.app_type,
            JSON.stringify(client.callbacks),
            JSON.stringify(client.allowed_origins),
            JSON.stringify(client.grant_types),
            client.default_audience,
            client.secret_hash,
            client.system_role,
            client.token_endpoint_auth_method ?? (client.secret_hash ? 'client_secret_post' : 'none'),
            JSON.stringify(client.allowed_logout_urls ?? []),
            JSON.stringify(client.web_origins ?? []),
            client.initiate_login_uri ?? null,
            client.oidc_conformant ?? true,
            client.refresh_token ? JSON.stringify(client.refresh_token) : null,
            client.description ?? null,
            client.jwt_configuration ? JSON.stringify(client.jwt_configuration) : null,
            JSON.stringify(client.auth0_settings ?? {}),
            client.oidc_logout ? JSON.stringify(client.oidc_logout) : null,
            client.cross_origin_authentication ?? false,
            client.cross_origin_loc ?? null,
          ],
        ),
      );
      return rows[0]!;
    },

    async findById(clientId: string): Promise<StoredClient | undefined> {
      const { rows } = await db.query<StoredClient>('SELECT * FROM clients WHERE client_id = $1', [clientId]);
      return rows[0];
    },

    async findBySystemRole(role: string): Promise<StoredClient | undefined> {
      const { rows } = await db.query<StoredClient>('SELECT * FROM clients WHERE system_role = $1', [role]);
      return rows[0];
    },

    async list(): Promise<StoredClient[]> {
      const { rows } = await db.query<StoredClient>('SELECT * FROM clients ORDER BY created_at, client_id');
      return rows;
    },

    /** One page; `app_types` keeps clients of any of those types. */
    async page(filter: { app_types?: readonly string[] }, window: ListWindow): Promise<ListSlice<StoredClient>> {
      const params: unknown[] = [filter.app_types ?? null];
      const { condition, tail } = windowSql(window, params, 'c', 'c.client_id');
      const { rows } = await db.query<StoredClient & { checkpoint_at: string }>(
        `SELECT c.*, ${checkpointColumn('c')} FROM clients c WHERE ($1::text[] IS NULL OR c.app_type = ANY($1::text[])) AND ${condition} ${tail}`,
        params,
      );
      return sliceOf(rows, window, (row) => row.client_id, (row) => row);
    },

    async count(filter: { app_types?: readonly string[] }): Promise<number> {
      const { rows } = await db.query<{ total: number }>(
        'SELECT count(*)::int AS total FROM clients WHERE ($1::text[] IS NULL OR app_type = ANY($1::text[]))',
        [filter.app_types ?? null],
      );
      return rows[0]!.total;
    },

    /** The subset of `clientIds` that exist. */
    async existingIds(clientIds: readonly string[]): Promise<string[]> {
      if (clientIds.length === 0) return [];
      const { rows } = await db.query<{ client_id: string }>(
        'SELECT client_id FROM clients WHERE client_id = ANY($1::text[])',
        [clientIds],
      );
      return rows.map((r) => r.client_id);
    },

    async update(clientId: string, changes: ClientChanges): Promise<StoredClient | undefined> {
      const entries = Object.entries(changes).filter(([column, v]) => v !== undefined && UPDATABLE_COLUMNS.has(column));
      if (entries.length === 0) return this.findById(clientId);
      const sets = entries.map(([column], i) => `${column} = $${i + 2}${JSON_COLUMNS.has(column) ? `::${JSON_COLUMNS.get(column)}` : ''}`);
      const params = entries.map(([column, value]) => (JSON_COLUMNS.has(column) && value !== null ? JSON.stringify(value) : value));
      const { rows } = await db.query<StoredClient>(
        `UPDATE clients SET ${sets.join(', ')}, updated_at = now() WHERE client_id = $1 RETURNING *`,
        [clientId, ...params],
      );
      return rows[0];
    },

    /**
     * Every origin some client lists in web_origins or allowed_origins (the latter's URLs by
     * their origin): the browsers CORS answers for.
     */
    async webOrigins(): Promise<string[]> {
      const { rows } = await db.query<{ value: string }>(
        `SELECT DISTINCT value FROM clients, jsonb_array_elements_text(web_origins || allowed_origins) AS value`,
      );
      return [...new Set(rows.map((r) => originOf(r.value)).filter((o): o is string => o !== undefined))];
    },

    async setSystemRole(clientId: string, role: string | null): Promise<void> {
      await db.query('UPDATE clients SET system_role = $2, updated_at = now() WHERE client_id = $1', [clientId, role]);
    },

    async delete(clientId: string): Promise<boolean> {
      const { rowCount } = await db.query('DELETE FROM clients WHERE client_id = $1', [clientId]);
      return rowCount > 0;
    },
  };
}
