import { configSchema } from '../../src/config';
import { describeWithPostgres, dropSchema, startTestIdentity, testConfig, uniqueSchema, type TestIdentity } from '../helpers';
import { loadConfig } from '@smsauth/service-kit';

/** The distinct PostgreSQL backends that serve `count` statements sent at once, each holding its connection a while. */
async function backendsServing(identity: TestIdentity, count: number): Promise<number> {
  const results = await Promise.all(
    Array.from({ length: count }, () => identity.sql.query<{ pid: number }>('SELECT pg_backend_pid() AS pid, pg_sleep(0.2)')),
  );
  return new Set(results.map((result) => result.rows[0]!.pid)).size;
}

describeWithPostgres('the PostgreSQL pool size (DATABASE_POOL_SIZE)', (databaseUrl) => {
  const schema = uniqueSchema('pool_size');
  const started: TestIdentity[] = [];
  afterAll(async () => {
    for (const identity of started) await identity.close();
    await dropSchema(databaseUrl, schema);
  });
  const start = async (env: Record<string, string>) => {
    const identity = await startTestIdentity({ DATABASE_URL: databaseUrl, ...env }, { schema });
    started.push(identity);
    return identity;
  };

  it('opens no more connections than it is given: six statements at once share two', async () => {
    expect(await backendsServing(await start({ DATABASE_POOL_SIZE: '2' }), 6)).toBe(2);
  });

  it('opens up to ten by default', async () => {
    const identity = await start({});
    expect(identity.config.DATABASE_POOL_SIZE).toBe(10);
    // More than the two above; not necessarily six, as the service's own workers may hold some.
    expect(await backendsServing(identity, 6)).toBeGreaterThan(2);
  });
});

describe('DATABASE_POOL_SIZE', () => {
  it.each(['0', '-1', '1.5', '1001', 'ten'])('refuses %s with a message that names the variable', (value) => {
    expect(() => testConfig({ DATABASE_POOL_SIZE: value })).toThrow(/DATABASE_POOL_SIZE/);
  });

  it('accepts a whole number from 1 to 1000', () => {
    expect(loadConfig(configSchema, { DATABASE_URL: 'memory://', DATABASE_POOL_SIZE: '25' }).DATABASE_POOL_SIZE).toBe(25);
  });
});
