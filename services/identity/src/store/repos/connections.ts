import type { ConnectionOptions } from '@smsauth/contracts';
import type { SealedColumn } from '../sealed-column';
import type { SecretCipher } from '../secret-cipher';
import type { SqlExecutor } from '../sql-client';
import { translateConstraintErrors } from '../errors';
import { checkpointColumn, sliceOf, windowSql, type ListSlice, type ListWindow } from '../list-window';

export interface StoredConnection {
  id: string;
  name: string;
  strategy: 'sms';
  /** Complete options, gateway_authentication.secret included (opened). */
  options: ConnectionOptions;
  enabled_clients: string[];
  display_name: string | null;
  metadata: Record<string, string>;
  is_domain_connection: boolean;
  created_at: Date;
  updated_at: Date;
}

/** The reference product's top-level connection fields besides name and strategy. */
export type ConnectionAttributes = Pick<StoredConnection, 'display_name' | 'metadata' | 'is_domain_connection'>;

/** List filters; `strategies` matches any of them. */
export interface ConnectionFilter {
  name?: string;
  strategies?: readonly string[];
}

export interface ConnectionRow extends Omit<StoredConnection, 'options'> {
  options: ConnectionOptions;
  gateway_secret: string | null;
}

/** Connections with their enabled clients, in order; `c` is the connection. */
export const SELECT_CONNECTION = `
  SELECT c.*, COALESCE(
    (SELECT json_agg(cc.client_id ORDER BY cc.position) FROM connection_clients cc WHERE cc.connection_id = c.id),
    '[]'::json) AS enabled_clients
  FROM connections c`;

const secretContext = (id: string) => `connection:${id}:gateway_secret`;

/** For `keys rotate-secret`. */
export const connectionsSealedColumns: readonly SealedColumn[] = [
  { table: 'connections', column: 'gateway_secret', key: ['id'], context: (row) => secretContext(row.id!) },
];

/** A row of SELECT_CONNECTION as the repos hand it out: the gateway secret opened into the options. */
export function openConnectionRow(cipher: SecretCipher, row: ConnectionRow): StoredConnection {
  const { gateway_secret, ...rest } = row;
  const options = { ...row.options };
  if (options.gateway_authentication && gateway_secret) {
    options.gateway_authentication = {
      ...options.gateway_authentication,
      secret: cipher.open(gateway_secret, secretContext(row.id)),
    };
  }
  return { ...rest, options };
}

export function connectionsRepo(db: SqlExecutor, cipher: SecretCipher) {
  const fromRow = (row: ConnectionRow) => openConnectionRow(cipher, row);

  /** Splits the gateway secret off the options so it is stored sealed in its own column. */
  const toColumns = (id: string, options: ConnectionOptions) => {
    const auth = options.gateway_authentication;
    if (!auth) return { optionsJson: JSON.stringify(options), sealedSecret: null };
    const { secret, ...shown } = auth;
    return {
      optionsJson: JSON.stringify({ ...options, gateway_authentication: shown }),
      sealedSecret: cipher.seal(secret, secretContext(id)),
    };
  };

  const replaceEnabledClients = async (id: string, clientIds: readonly string[]) => {
    await db.query('DELETE FROM connection_clients WHERE connection_id = $1', [id]);
    if (clientIds.length === 0) return;
    await db.query(
      `INSERT INTO connection_clients (connection_id, client_id, position)
       SELECT $1, client_id, ordinality FROM unnest($2::text[]) WITH ORDINALITY AS t(client_id, ordinality)`,
      [id, [...new Set(clientIds)]],
    );
  };

  const findWhere = async (where: string, params: unknown[]) => {
    const { rows } = await db.query<ConnectionRow>(`${SELECT_CONNECTION} WHERE ${where}`, params);
    return rows[0] ? fromRow(rows[0]) : undefined;
  };

  return {
    /** Call inside a transaction: the row and its enabled_clients are written together. */
    async insert(
      connection: { id: string; options: ConnectionOptions; enabled_clients: readonly string[] } & Partial<ConnectionAttributes>,
    ): Promise<StoredConnection> {
      const { optionsJson, sealedSecret } = toColumns(connection.id, connection.options);
      await translateConstraintErrors(async () => {
        await db.query(
          `INSERT INTO connections (id, name, strategy, options, gateway_secret, display_name, metadata, is_domain_connection)
           VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7::jsonb, $8)`,
          [
            connection.id,
            connection.options.name,
            connection.options.strategy,
            optionsJson,
            sealedSecret,
            connection.display_name ?? null,
            JSON.stringify(connection.metadata ?? {}),
            connection.is_domain_connection ?? false,
          ],
        );
        await replaceEnabledClients(connection.id, connection.enabled_clients);
      });
      return (await this.findById(connection.id))!;
    },

    findById: (id: string) => findWhere('c.id = $1', [id]),

    /** The connection clients name in `connection` / `realm`. */
    findByName: (name: string) => findWhere('c.name = $1', [name]),

    /** Locks the row until the transaction ends (read-modify-write of options). */
    findByIdForUpdate: (id: string) => findWhere('c.id = $1 FOR UPDATE OF c', [id]),

    /** Every connection (few per tenant), oldest first. */
    async list(): Promise<StoredConnection[]> {
      const { rows } = await db.query<ConnectionRow>(`${SELECT_CONNECTION} ORDER BY c.created_at, c.id`);
      return rows.map(fromRow);
    },

    /** One page of the filtered list. */
    async page(filter: ConnectionFilter, window: ListWindow): Promise<ListSlice<StoredConnection>> {
      const params: unknown[] = [filter.name ?? null, filter.strategies ?? null];
      const { condition, tail } = windowSql(window, params, 'c', 'c.id');
      // The inner query filters, orders and cuts; the outer one adds each row's checkpoint.
      const { rows } = await db.query<ConnectionRow & { checkpoint_at: string }>(
        `SELECT p.*, ${checkpointColumn('p')} FROM (
           ${SELECT_CONNECTION}
           WHERE ($1::text IS NULL OR c.name = $1) AND ($2::text[] IS NULL OR c.strategy = ANY($2::text[])) AND ${condition}
           ${tail}) p
         ORDER BY p.created_at, p.id`,
        params,
      );
      return sliceOf(rows, window, (row) => row.id, fromRow);
    },

    async count(filter: ConnectionFilter): Promise<number> {
      const { rows } = await db.query<{ total: number }>(
        `SELECT count(*)::int AS total FROM connections
         WHERE ($1::text IS NULL OR name = $1) AND ($2::text[] IS NULL OR strategy = ANY($2::text[]))`,
        [filter.name ?? null, filter.strategies ?? null],
      );
      return rows[0]!.total;
    },

    /** Call inside a transaction. `display_name: null` clears it; undefined fields are kept. */
    async update(
      id: string,
      changes: { options?: ConnectionOptions; enabled_clients?: readonly string[] } & Partial<ConnectionAttributes>,
    ): Promise<StoredConnection | undefined> {
      await translateConstraintErrors(async () => {
        if (changes.display_name !== undefined || changes.metadata !== undefined || changes.is_domain_connection !== undefined) {
          await db.query(
            `UPDATE connections SET
               display_name = CASE WHEN $2::boolean THEN $3::text ELSE display_name END,
               metadata = COALESCE($4::jsonb, metadata),
               is_domain_connection = COALESCE($5::boolean, is_domain_connection),
               updated_at = now()
             WHERE id = $1`,
            [
              id,
              changes.display_name !== undefined,
              changes.display_name ?? null,
              changes.metadata === undefined ? null : JSON.stringify(changes.metadata),
              changes.is_domain_connection ?? null,
            ],
          );
        }
        if (changes.options) {
          const { optionsJson, sealedSecret } = toColumns(id, changes.options);
          await db.query(
            'UPDATE connections SET options = $2::jsonb, gateway_secret = $3, updated_at = now() WHERE id = $1',
            [id, optionsJson, sealedSecret],
          );
        }
        if (changes.enabled_clients) await replaceEnabledClients(id, changes.enabled_clients);
      });
      return this.findById(id);
    },

    async delete(id: string): Promise<boolean> {
      const { rowCount } = await db.query('DELETE FROM connections WHERE id = $1', [id]);
      return rowCount > 0;
    },
  };
}
