import { createSecretCipher } from '../../src/store/secret-cipher';
import { openStore, type OpenedStore } from '../../src/store';
import { LogRetention } from '../../src/domain/logs/retention';
import { logRecord } from '../../src/domain/logs/tenant-log';
import { testConfig, dropSchema, TEST_DATABASE_URL, TestClock, uniqueSchema, captureLogger, testStoreOptions } from '../helpers';

const drivers = [{ name: 'PGlite', url: 'memory://', schema: 'public' }];
if (TEST_DATABASE_URL) drivers.push({ name: 'PostgreSQL', url: TEST_DATABASE_URL, schema: uniqueSchema('log_retention') });
else console.warn('SKIPPED: log retention on PostgreSQL needs TEST_DATABASE_URL; running it on PGlite only');

describe.each(drivers)('tenant log retention on $name', (driver) => {
  let opened: OpenedStore;
  const clock = new TestClock(new Date('2026-03-31T00:00:00Z'));
  const daysAgo = (days: number) => new Date(clock.now().getTime() - days * 86_400_000);

  beforeAll(async () => {
    opened = await openStore(driver.url, createSecretCipher('k'.repeat(40)), {
      schema: driver.schema,
      ...testStoreOptions,
    });
  });
  afterAll(async () => {
    await opened.close();
    if (driver.name === 'PostgreSQL') await dropSchema(driver.url, driver.schema);
  });

  const dates = async () =>
    (await opened.sql.query<{ date: Date }>('SELECT date FROM tenant_logs ORDER BY date')).rows.map((r) => r.date.toISOString());

  it('deletes the records older than the retention period in batches, and keeps the others', async () => {
    const old = [45, 40, 35, 31, 30.5, 31.5, 60].map(daysAgo);
    const kept = [29, 10, 0].map(daysAgo);
    await opened.store.tenantLogs.append([...old, ...kept].map((at) => logRecord('cs', { clientId: 'c' }, at)));
    const statements = jest.spyOn(opened.store.tenantLogs, 'pruneBefore');
    const retention = new LogRetention(opened.store, clock, { retentionDays: 30, batchSize: 3 }, captureLogger().logger);
    expect(await retention.pruneNow()).toBe(7);
    // 3 + 3 + 1: a short batch means nothing is left.
    expect(statements.mock.results.length).toBe(3);
    expect(await dates()).toEqual(kept.map((d) => d.toISOString()).sort());
    expect(await retention.pruneNow()).toBe(0);
    statements.mockRestore();
  });

  it('stops between batches once stopped', async () => {
    await opened.store.tenantLogs.append([40, 41, 42, 43].map((d) => logRecord('cs', {}, daysAgo(d))));
    const retention = new LogRetention(opened.store, clock, { retentionDays: 30, batchSize: 1 }, captureLogger().logger);
    await retention.stop();
    expect(await retention.pruneNow()).toBe(0);
    expect((await dates()).length).toBe(7);
  });
});

describe('LOG_RETENTION_DAYS', () => {
  it('defaults to 30 days and refuses a value that is not a positive whole number, naming it', () => {
    expect(testConfig().LOG_RETENTION_DAYS).toBe(30);
    expect(testConfig({ LOG_RETENTION_DAYS: '7' }).LOG_RETENTION_DAYS).toBe(7);
    expect(() => testConfig({ LOG_RETENTION_DAYS: '0' })).toThrow(/LOG_RETENTION_DAYS/);
    expect(() => testConfig({ LOG_RETENTION_DAYS: 'a month' })).toThrow(/LOG_RETENTION_DAYS/);
  });
});
