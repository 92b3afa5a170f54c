import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { isConnectionLost, statementCannotHaveRun, toDatabaseUnavailable } from './availability';

export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
}

/** Something that runs SQL: the pool itself or one transaction's connection. */
export interface SqlExecutor {
  query<R = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<QueryResult<R>>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(script: string): Promise<void>;
}

/** The one database abstraction; both drivers run the same SQL. */
export interface SqlClient extends SqlExecutor {
  readonly driver: 'pg' | 'pglite';
  /**
   * Runs `fn` on one connection inside BEGIN/COMMIT; ROLLBACK when it throws. PostgreSQL: when
   * the connection dies before COMMIT is sent (or the server refuses COMMIT as it ends the
   * connection), nothing can have committed and `fn` runs once more on a fresh connection, so
   * `fn` must not act outside the database.
   */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /**
   * LISTEN on `channel`. PostgreSQL: on a dedicated connection (not from the pool), re-opened
   * with backoff when it is lost; `onListening(false)` as soon as it is, `onListening(true)`
   * once LISTEN is confirmed again (notifications sent in between are lost: the caller must
   * assume anything changed). PGlite: on its one connection, delivered as statements complete.
   */
  listen(channel: string, handlers: ListenHandlers): NotificationListener;
  /** Embedded databases only: whether this open created it, and a copy of its data directory. */
  readonly embedded?: EmbeddedDatabase;
  close(): Promise<void>;
}

export interface EmbeddedDatabase {
  /** True when this open made a new database (memory://, or a pglite: directory that held none). */
  readonly created: boolean;
  /** Its data directory as an uncompressed tar archive, which `startFrom` accepts. */
  dumpDataDir(): Promise<Blob>;
}

export interface ListenHandlers {
  onNotification(payload: string): void;
  onListening(listening: boolean): void;
}

export interface NotificationListener {
  close(): Promise<void>;
}

export interface SqlClientOptions {
  /** Schema to work in (search_path); tests isolate themselves in a unique one. */
  schema?: string;
  /** pg pool size. */
  maxConnections?: number;
  /** pg: first delay before re-opening a lost LISTEN connection (doubled per failure, at most 5 s). */
  listenRetryMs?: number;
  /**
   * pg: send each parameterised statement as a named prepared statement, so every pool
   * connection parses and plans it once (DATABASE_PREPARED_STATEMENTS). Off for poolers that
   * cannot keep them (PgBouncer in transaction mode before 1.21).
   */
  preparedStatements?: boolean;
  /**
   * Embedded only: a new database starts from this data directory (a tar archive from
   * `embedded.dumpDataDir()`) instead of running initdb. A pglite: directory that already holds
   * a database ignores it.
   */
  startFrom?: Blob;
}

/**
 * Names for prepared statements, one per distinct SQL text. Bounded: texts beyond the first
 * MAX_NAMED are sent unnamed, so generated SQL cannot make every connection keep an ever
 * growing set of statements.
 */
export class PreparedStatementNames {
  static readonly MAX_NAMED = 500;
  private readonly names = new Map<string, string>();
  private issued = 0;

  nameOf(text: string): string | undefined {
    const name = this.names.get(text);
    if (name !== undefined || this.names.size >= PreparedStatementNames.MAX_NAMED) return name;
    return this.renew(text);
  }

  /** A fresh name for `text`: the connections prepare it again, with a new plan. */
  renew(text: string): string {
    this.issued += 1;
    const name = `smsauth_${this.issued}`;
    this.names.set(text, name);
    return name;
  }
}

/**
 * A statement prepared before a schema change whose result columns changed (a migration by a
 * newer instance, in a rolling deploy) fails with "cached plan must not change result type".
 */
export function isStalePreparedPlan(err: unknown): boolean {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  return code === '0A000' && typeof message === 'string' && message.includes('cached plan must not change result type');
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export function assertSchemaName(schema: string): string {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`invalid schema name "${schema}": use lower-case letters, digits and _`);
  return schema;
}

/**
 * `postgres://` / `postgresql://` -> pg Pool; `pglite:<dir>` -> embedded PostgreSQL persisted in
 * <dir> (created if missing); `memory://` -> ephemeral embedded PostgreSQL.
 */
export async function openSqlClient(databaseUrl: string, options: SqlClientOptions = {}): Promise<SqlClient> {
  const schema = assertSchemaName(options.schema ?? 'public');
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) {
    return openPg(databaseUrl, schema, {
      maxConnections: options.maxConnections ?? 10,
      preparedStatements: options.preparedStatements ?? true,
      listenRetryMs: options.listenRetryMs ?? 100,
    });
  }
  if (databaseUrl === 'memory://' || databaseUrl.startsWith('memory://')) return openPglite(undefined, schema, options.startFrom);
  if (databaseUrl.startsWith('pglite:')) {
    const dir = databaseUrl.slice('pglite:'.length);
    if (!dir) throw new Error('DATABASE_URL pglite:<directory> needs a directory');
    mkdirSync(dir, { recursive: true });
    return openPglite(dir, schema, options.startFrom);
  }
  throw new Error('DATABASE_URL must start with postgres://, postgresql://, pglite: or memory://');
}

function openPg(
  connectionString: string,
  schema: string,
  options: { maxConnections: number; preparedStatements: boolean; listenRetryMs: number },
): SqlClient {
  const pool = new pg.Pool({
    connectionString,
    max: options.maxConnections,
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30_000,
    options: `-c search_path=${schema}`,
  });
  // A dropped idle connection must not crash the process; the pool replaces it on next use.
  pool.on('error', () => undefined);
  // Each new connection's rank, so a retry after a lost connection can insist on a newer one.
  let opened = 0;
  const openedAs = new WeakMap<pg.PoolClient, number>();
  pool.on('connect', (client) => {
    opened += 1;
    openedAs.set(client, opened);
  });
  const statements = options.preparedStatements ? new PreparedStatementNames() : undefined;
  const send = (client: pg.Pool | pg.PoolClient, text: string, params: readonly unknown[] | undefined, name: string | undefined) =>
    unavailableAs503(() => client.query({ name, text, values: params as unknown[] | undefined }));
  const run = async <R>(client: pg.Pool | pg.PoolClient, text: string, params?: readonly unknown[]) => {
    const name = params ? statements?.nameOf(text) : undefined;
    let result: pg.QueryResult;
    try {
      result = await send(client, text, params, name);
    } catch (err) {
      if (!name || !isStalePreparedPlan(err)) throw err;
      // Raised while planning, before the statement ran: under a new name every connection
      // plans it afresh. Outside a transaction it is retried at once; inside one, the
      // transaction has failed and its caller sees the error.
      const renewed = statements!.renew(text);
      if (client !== pool) throw err;
      result = await send(client, text, params, renewed);
    }
    return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
  };
  // Without parameters pg uses the simple protocol, which accepts several statements.
  const exec = async (client: pg.Pool | pg.PoolClient, script: string) => {
    await unavailableAs503(() => client.query(script));
  };
  return {
    driver: 'pg',
    async query(text, params) {
      const since = opened;
      try {
        return await run(pool, text, params);
      } catch (err) {
        if (!retryableStatement(err, text)) throw err;
        const client = await freshClient(since);
        let broken = false;
        try {
          return await run(client, text, params);
        } catch (again) {
          broken = isConnectionLost(again);
          throw again;
        } finally {
          client.release(broken);
        }
      }
    },
    exec: (script) => exec(pool, script),
    async transaction(fn) {
      const since = opened;
      try {
        const client = await pool.connect().catch((err: unknown) => {
          // A connection ended while it was being opened (57P01 during startup): nothing ran yet.
          throw isConnectionLost(err) ? new LostBeforeCommit(err) : toDatabaseUnavailable(err);
        });
        return await transactionOn(client, fn);
      } catch (err) {
        if (!(err instanceof LostBeforeCommit)) throw err;
        return await transactionOn(await freshClient(since), fn).catch((again: unknown) => {
          throw again instanceof LostBeforeCommit ? again.cause : again;
        });
      }
    },
    listen: (channel, handlers) => listenPg(connectionString, schema, channel, handlers, options.listenRetryMs),
    close: () => pool.end(),
  };

  async function transactionOn<T>(client: pg.PoolClient, fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    let broken = false;
    // The first connection-lost failure on this client, and whether COMMIT had been sent by then.
    let lost: { err: unknown; duringCommit: boolean } | undefined;
    let committing = false;
    const tracked = async <R>(text: string, params?: readonly unknown[]) => {
      try {
        return await run<R>(client, text, params);
      } catch (err) {
        if (!lost && isConnectionLost(err)) lost = { err, duringCommit: committing };
        throw err;
      }
    };
    // A checked-out client has no pool listener: without this, a connection dropped in the
    // middle of a transaction would be an unhandled 'error' event and end the process. The
    // pending query fails on its own; the client is discarded on release.
    const onConnectionLost = () => {
      broken = true;
    };
    client.on('error', onConnectionLost);
    try {
      await tracked('BEGIN');
      const result = await fn({
        query: (text, params) => tracked(text, params),
        exec: (script) => exec(client, script),
      });
      committing = true;
      await tracked('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      if (lost && (!lost.duringCommit || statementCannotHaveRun(lost.err))) {
        broken = true;
        throw new LostBeforeCommit(err);
      }
      throw err;
    } finally {
      client.removeListener('error', onConnectionLost);
      client.release(broken);
    }
  }

  /**
   * A pooled connection opened after the `since`-th: those opened before may have died with the
   * one that failed (a restart or pg_terminate_backend ends them all), so they are closed.
   */
  async function freshClient(since: number): Promise<pg.PoolClient> {
    for (;;) {
      const client = await unavailableAs503(() => pool.connect());
      if ((openedAs.get(client) ?? 0) > since) return client;
      client.release(true);
    }
  }
}

/** A transaction whose connection died before it could commit: it is run again once. */
class LostBeforeCommit extends Error {
  constructor(cause: unknown) {
    super('connection lost before commit', { cause });
  }
}

/**
 * Whether a standalone statement that failed may be sent again on a fresh connection: its
 * connection died, and either the server refused it (so it did not run) or it only reads.
 */
function retryableStatement(err: unknown, text: string): boolean {
  if (!isConnectionLost(err)) return false;
  return statementCannotHaveRun(err) || isReadOnly(text);
}

function isReadOnly(text: string): boolean {
  return /^\s*select\b/i.test(text) && !/\b(insert|update|delete|nextval|setval|pg_advisory\w*|for\s+update)\b/i.test(text);
}

/** Longest wait between attempts to re-open a lost LISTEN connection. */
const MAX_LISTEN_RETRY_MS = 5_000;

/** The application_name of a schema's LISTEN connection (operators and tests find it by it). */
export function listenerApplicationName(schema: string): string {
  return `smsauth-listen:${schema}`.slice(0, 63);
}

function listenPg(connectionString: string, schema: string, channel: string, handlers: ListenHandlers, retryMs: number): NotificationListener {
  let closed = false;
  let current: pg.Client | undefined;
  let failures = 0;
  let retry: NodeJS.Timeout | undefined;
  const lost = (client: pg.Client) => {
    if (current !== client) return;
    current = undefined;
    handlers.onListening(false);
    client.end().catch(() => undefined);
    if (closed) return;
    const delay = Math.min(retryMs * 2 ** failures, MAX_LISTEN_RETRY_MS);
    failures += 1;
    retry = setTimeout(() => void open(), delay);
    retry.unref();
  };
  const open = async () => {
    const client = new pg.Client({
      connectionString,
      connectionTimeoutMillis: 5000,
      keepAlive: true,
      application_name: listenerApplicationName(schema),
    });
    current = client;
    // Terminated, dropped or refused: 'error' and/or 'end'; either means notifications may be lost.
    client.on('error', () => lost(client));
    client.on('end', () => lost(client));
    client.on('notification', (message) => {
      if (message.channel === channel) handlers.onNotification(message.payload ?? '');
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${client.escapeIdentifier(channel)}`);
    } catch {
      lost(client);
      return;
    }
    if (current !== client || closed) return;
    failures = 0;
    handlers.onListening(true);
  };
  void open();
  return {
    async close() {
      closed = true;
      clearTimeout(retry);
      const client = current;
      current = undefined;
      await client?.end().catch(() => undefined);
    },
  };
}

/**
 * A lost or refused database connection becomes a 503 DatabaseUnavailableError, so callers
 * get a clear "try again" instead of a 500; the pool reconnects on its own once it is back.
 */
async function unavailableAs503<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (err) {
    throw toDatabaseUnavailable(err);
  }
}

/**
 * PostgreSQL's default shared_buffers (128MB) is allocated and touched at startup inside
 * PGlite's WebAssembly memory, which never shrinks: ~150 MB of RSS for a database of a few MB.
 * 16MB keeps that memory at its 128 MB floor with ~30 MB resident (bench/lib/pglite-memory.mjs,
 * BENCHMARKS.md "Memory"). startParams replaces PGlite's defaults, so they are kept; initdb gets
 * it too (a lower peak while it runs, and the value in a new data directory's postgresql.conf).
 */
const EMBEDDED_SETTINGS: readonly string[] = ['-c', 'shared_buffers=16MB'];

async function openPglite(dataDir: string | undefined, schema: string, startFrom: Blob | undefined): Promise<SqlClient> {
  const settings = [...EMBEDDED_SETTINGS];
  const created = !dataDir || !holdsDatabase(dataDir);
  // From an archive, PGlite unpacks a ready data directory: no initdb, in this process or another.
  const loadDataDir = created ? startFrom : undefined;
  if (dataDir && !loadDataDir) await initialiseInChildProcess(dataDir, settings);
  const db = await PGlite.create({ dataDir, loadDataDir, startParams: [...PGlite.defaultStartParams, ...settings], initDbStartParams: settings });
  // One embedded connection: setting search_path once applies to every later query.
  await db.exec(`CREATE SCHEMA IF NOT EXISTS ${schema}; SET search_path TO ${schema}`);
  const executor = (target: Pick<PGlite, 'query' | 'exec'>): SqlExecutor => ({
    async query<R>(text: string, params?: readonly unknown[]) {
      const result = await target.query<R>(text, params as unknown[] | undefined);
      return { rows: result.rows, rowCount: result.affectedRows || result.rows.length };
    },
    async exec(script: string) {
      await target.exec(script);
    },
  });
  return {
    driver: 'pglite',
    ...executor(db),
    embedded: { created, dumpDataDir: () => db.dumpDataDir('none') },
    transaction: (fn) => db.transaction((tx) => fn(executor(tx))),
    listen(channel, handlers) {
      // The only connection: a statement's notifications arrive before its promise resolves.
      const subscribed = db.listen(channel, (payload) => handlers.onNotification(payload)).then(
        (unsubscribe) => {
          handlers.onListening(true);
          return unsubscribe;
        },
        () => {
          handlers.onListening(false);
          return async () => undefined;
        },
      );
      return {
        async close() {
          handlers.onListening(false);
          if (db.closed) return;
          await (await subscribed)().catch(() => undefined);
        },
      };
    },
    close: () => db.close(),
  };
}

function holdsDatabase(dataDir: string): boolean {
  return existsSync(join(dataDir, 'PG_VERSION'));
}

const INITDB_SCRIPT = `
const [pglite, dataDir, params] = process.argv.slice(1);
require(pglite).PGlite.create({ dataDir, initDbStartParams: JSON.parse(params) })
  .then((db) => db.close())
  .catch((err) => { console.error(String((err && err.message) || err)); process.exit(1); });`;

/**
 * Runs initdb for a new data directory in a short-lived process of its own: inside the
 * service it would leave WebAssembly memory behind that is never given back
 * (BENCHMARKS.md "Memory").
 * A directory that already holds a database (PG_VERSION) is left alone.
 */
export async function initialiseInChildProcess(dataDir: string, initDbParams: readonly string[]): Promise<void> {
  if (holdsDatabase(dataDir)) return;
  try {
    await promisify(execFile)(process.execPath, ['-e', INITDB_SCRIPT, require.resolve('@electric-sql/pglite'), dataDir, JSON.stringify(initDbParams)], {
      timeout: 120_000,
    });
  } catch (err) {
    const stderr = String((err as { stderr?: unknown }).stderr ?? '').trim();
    throw new Error(`could not create the embedded database in ${dataDir}: ${stderr || (err as Error).message}`);
  }
}

/** PostgreSQL error codes the store turns into domain errors. */
export const PgErrorCodes = { UNIQUE_VIOLATION: '23505', FOREIGN_KEY_VIOLATION: '23503' } as const;

export function pgErrorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
