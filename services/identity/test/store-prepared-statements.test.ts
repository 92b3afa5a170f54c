import { isStalePreparedPlan, openSqlClient, PreparedStatementNames, type SqlClient } from '../src/store/sql-client';
import { describeWithPostgres, dropSchema, uniqueSchema } from './helpers';

describe('prepared statement names', () => {
  it('gives each SQL text one name and a new one when renewed', () => {
    const names = new PreparedStatementNames();
    const first = names.nameOf('SELECT $1');
    expect(names.nameOf('SELECT $1')).toBe(first);
    expect(names.nameOf('SELECT $1 + 1')).not.toBe(first);
    const renewed = names.renew('SELECT $1');
    expect(renewed).not.toBe(first);
    expect(names.nameOf('SELECT $1')).toBe(renewed);
  });

  it('names only the first MAX_NAMED texts, so generated SQL cannot grow every connection without bound', () => {
    const names = new PreparedStatementNames();
    for (let i = 0; i < PreparedStatementNames.MAX_NAMED; i += 1) expect(names.nameOf(`SELECT ${i}`)).toBeDefined();
    expect(names.nameOf('SELECT one_more')).toBeUndefined();
    expect(names.nameOf('SELECT 0')).toBeDefined();
  });

  it('recognises only PostgreSQL\'s stale-plan error', () => {
    expect(isStalePreparedPlan({ code: '0A000', message: 'cached plan must not change result type' })).toBe(true);
    expect(isStalePreparedPlan({ code: '0A000', message: 'cannot insert into view' })).toBe(false);
    expect(isStalePreparedPlan({ code: '42P01', message: 'relation "t" does not exist' })).toBe(false);
    expect(isStalePreparedPlan(undefined)).toBe(false);
  });
});

describeWithPostgres('prepared statements on PostgreSQL', (databaseUrl) => {
  const schema = uniqueSchema('prepared');
  const opened: SqlClient[] = [];
  // One connection, so every statement goes where the previous one was prepared.
  async function open(preparedStatements?: boolean): Promise<SqlClient> {
    const sql = await openSqlClient(databaseUrl, { schema, maxConnections: 1, preparedStatements });
    opened.push(sql);
    return sql;
  }
  async function preparedOnConnection(sql: SqlClient): Promise<string[]> {
    return sql.transaction(async (tx) => {
      const { rows } = await tx.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements WHERE $1::int = 1 ORDER BY prepare_time', [1]);
      return rows.map((r) => r.statement);
    });
  }

  beforeAll(async () => {
    const sql = await open();
    await sql.exec(`CREATE SCHEMA ${schema}; CREATE TABLE ${schema}.t (a int); INSERT INTO ${schema}.t VALUES (1), (2);`);
  });
  afterAll(async () => {
    for (const sql of opened) await sql.close();
    await dropSchema(databaseUrl, schema);
  });

  it('prepares a parameterised statement once on its connection and reuses it', async () => {
    const sql = await open();
    for (let i = 0; i < 3; i += 1) expect((await sql.query('SELECT a FROM t WHERE a = $1', [2])).rows).toEqual([{ a: 2 }]);
    const prepared = await preparedOnConnection(sql);
    expect(prepared.filter((s) => s === 'SELECT a FROM t WHERE a = $1')).toHaveLength(1);
  });

  it('prepares nothing with preparedStatements off (DATABASE_PREPARED_STATEMENTS=false)', async () => {
    const sql = await open(false);
    await sql.query('SELECT a FROM t WHERE a = $1', [1]);
    expect(await preparedOnConnection(sql)).toEqual([]);
  });

  it('answers a statement prepared before a column was added: prepared again under a new name and retried', async () => {
    const sql = await open();
    expect((await sql.query('SELECT * FROM t WHERE a = $1', [1])).rows).toEqual([{ a: 1 }]);
    // Another instance's migration, on another connection.
    const migrator = await open(false);
    await migrator.exec(`ALTER TABLE t ADD COLUMN b int DEFAULT 7`);
    expect((await sql.query('SELECT * FROM t WHERE a = $1', [1])).rows).toEqual([{ a: 1, b: 7 }]);
    expect((await sql.query('SELECT * FROM t WHERE a = $1', [2])).rows).toEqual([{ a: 2, b: 7 }]);
  });

  it('fails a transaction that meets a stale plan, and the next call prepares afresh', async () => {
    const sql = await open();
    await sql.query('SELECT * FROM t WHERE a = $1', [1]);
    const migrator = await open(false);
    await migrator.exec(`ALTER TABLE t ADD COLUMN c int DEFAULT 8`);
    await expect(sql.transaction((tx) => tx.query('SELECT * FROM t WHERE a = $1', [1]))).rejects.toThrow('cached plan must not change result type');
    expect((await sql.query('SELECT * FROM t WHERE a = $1', [1])).rows).toEqual([{ a: 1, b: 7, c: 8 }]);
  });
});
