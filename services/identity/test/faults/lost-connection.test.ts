import pg from 'pg';
import { DatabaseUnavailableError } from '../../src/store/availability';
import { openSqlClient, type SqlClient } from '../../src/store/sql-client';
import { describeWithPostgres, dropSchema, uniqueSchema } from '../helpers';

/*
 * One pooled connection dying (pg_terminate_backend, a failover, a reset socket) while the
 * database is up must not reach the user: what cannot have committed runs again once on a
 * fresh connection. Only the connections of this test's pool are terminated (found by their
 * application_name).
 */
describeWithPostgres('a pooled connection that dies while the database is up (faults)', (databaseUrl) => {
  const schema = uniqueSchema('lost_conn');
  let sql: SqlClient;
  let admin: pg.Client;

  const terminate = async (pid?: number) => {
    const { rows } = await admin.query<{ terminated: boolean }>(
      pid === undefined
        ? 'SELECT pg_terminate_backend(pid) AS terminated FROM pg_stat_activity WHERE application_name = $1'
        : 'SELECT pg_terminate_backend($2::int) AS terminated FROM pg_stat_activity WHERE application_name = $1 AND pid = $2::int',
      pid === undefined ? [schema] : [schema, pid],
    );
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.terminated)).toBe(true);
  };

  beforeAll(async () => {
    const url = new URL(databaseUrl);
    url.searchParams.set('application_name', schema);
    sql = await openSqlClient(url.toString(), { schema, maxConnections: 4 });
    await sql.exec(`CREATE SCHEMA IF NOT EXISTS ${schema}; CREATE TABLE ${schema}.probe (id integer PRIMARY KEY)`);
    admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await sql?.close();
    await dropSchema(databaseUrl, schema);
  });
  beforeEach(async () => {
    await sql.query('DELETE FROM probe');
  });

  it('runs a transaction again on a fresh connection when its connection is terminated before COMMIT, and commits it once', async () => {
    const pids: number[] = [];
    const result = await sql.transaction(async (tx) => {
      const { rows } = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      pids.push(rows[0]!.pid);
      await tx.query('INSERT INTO probe (id) VALUES (1)');
      if (pids.length === 1) {
        await terminate(rows[0]!.pid);
        // The server's FATAL reaches the idle-in-transaction connection before its next statement.
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await tx.query('INSERT INTO probe (id) VALUES (2)');
      return 'committed';
    });
    expect(result).toBe('committed');
    expect(pids).toHaveLength(2);
    expect(pids[1]).not.toBe(pids[0]);
    expect((await sql.query('SELECT id FROM probe ORDER BY id')).rows).toEqual([{ id: 1 }, { id: 2 }]);
  });

  it('sends a write again when the server ended its connection while it ran (57P01: it did not commit), and it is stored once', async () => {
    const write = sql.query('INSERT INTO probe (id) SELECT 7 FROM pg_sleep(0.5)', []);
    await waitForActive('INSERT INTO probe');
    await terminate();
    await expect(write).resolves.toMatchObject({ rowCount: 1 });
    expect((await sql.query('SELECT id FROM probe')).rows).toEqual([{ id: 7 }]);
  });

  it('reads again when every idle connection of the pool was terminated under it', async () => {
    // Fill the pool with idle connections, then end all of them at once (as a restart does).
    await Promise.all([1, 2, 3, 4].map(() => sql.query('SELECT pg_sleep(0.05)')));
    const read = sql.query<{ n: number }>('SELECT 1 AS n FROM pg_sleep(0.3)', []);
    await waitForActive('SELECT 1 AS n');
    await terminate();
    await expect(read).resolves.toMatchObject({ rows: [{ n: 1 }] });
  });

  it('still answers 503 when the database itself cannot be reached', async () => {
    const unreachable = await openSqlClient('postgres://postgres@127.0.0.1:1/none', { schema });
    try {
      await expect(unreachable.query('SELECT 1')).rejects.toBeInstanceOf(DatabaseUnavailableError);
      await expect(unreachable.transaction((tx) => tx.query('SELECT 1'))).rejects.toBeInstanceOf(DatabaseUnavailableError);
    } finally {
      await unreachable.close();
    }
  });

  /** Waits until a statement starting with `prefix` runs on one of this pool's connections. */
  async function waitForActive(prefix: string): Promise<void> {
    for (let i = 0; i < 200; i += 1) {
      const { rows } = await admin.query(
        "SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND state = 'active' AND query LIKE $2",
        [schema, `${prefix}%`],
      );
      if (rows.length > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`no statement "${prefix}" became active`);
  }
});
