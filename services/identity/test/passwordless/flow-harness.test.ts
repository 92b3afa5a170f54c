import pg from 'pg';
import { describeOnEachDatabase, TEST_DATABASE_URL } from './flow-harness';

async function query(text: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    return await client.query(text, values);
  } finally {
    await client.end();
  }
}

async function schemaExists(schema: string): Promise<boolean> {
  const { rowCount } = await query('SELECT 1 FROM information_schema.schemata WHERE schema_name = $1', [schema]);
  return rowCount === 1;
}

const schemas: string[] = [];

// A suite's afterAll closes its identity, whose background workers (log stream delivery, the
// stats rollup) query the schema until they have stopped: the schema must outlive that hook.
describeOnEachDatabase('a suite declared on each database', (database) => {
  beforeAll(async () => {
    if (!database.schema) return;
    schemas.push(database.schema);
    await query(`CREATE SCHEMA ${database.schema}`);
  });

  afterAll(async () => {
    if (database.schema) expect(await schemaExists(database.schema)).toBe(true);
  });

  it('has a schema of its own on PostgreSQL and none on PGlite', () => {
    expect(database.schema === undefined).toBe(database.name === 'PGlite');
  });
});

afterAll(async () => {
  for (const schema of schemas) expect(await schemaExists(schema)).toBe(false);
});
