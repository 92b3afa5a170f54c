import { createSecretCipher } from '../../src/store/secret-cipher';
import { openStore, type OpenedStore, type TenantLogRecord } from '../../src/store';
import { dropSchema, TEST_DATABASE_URL, uniqueSchema, testStoreOptions } from '../helpers';

const drivers = [{ name: 'PGlite', url: 'memory://', schema: 'public' }];
if (TEST_DATABASE_URL) drivers.push({ name: 'PostgreSQL', url: TEST_DATABASE_URL, schema: uniqueSchema('tenant_logs_store') });
else console.warn('SKIPPED: the tenant log store on PostgreSQL needs TEST_DATABASE_URL; running it on PGlite only');

const record = (logId: string, overrides: Partial<TenantLogRecord> = {}): TenantLogRecord => ({
  log_id: logId,
  date: new Date('2026-03-01T10:00:00.123Z'),
  type: 's',
  description: 'Successful login',
  client_id: 'client-1',
  user_id: 'sms|abc',
  phone_number: '+1415***2671',
  details: { grant_type: 'otp' },
  ...overrides,
});

describe.each(drivers)('tenant log records on $name', (driver) => {
  let opened: OpenedStore;
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

  const rowsOf = async (logIds: string[]) =>
    (
      await opened.sql.query<Record<string, unknown>>(
        'SELECT seq, tx_id::text AS tx_id, log_id, date, type, description, client_id, client_name, user_id, phone_number, details FROM tenant_logs WHERE log_id = ANY($1) ORDER BY seq',
        [logIds],
      )
    ).rows;

  it('appends one record or several in the order given, each with its writing transaction', async () => {
    await opened.store.tenantLogs.append(record('one'));
    await opened.store.transaction((tx) => tx.tenantLogs.append([record('two', { type: 'fp' }), record('three', { client_name: 'App' })]));
    const rows = await rowsOf(['one', 'two', 'three']);
    expect(rows.map((r) => [r.log_id, r.type])).toEqual([
      ['one', 's'],
      ['two', 'fp'],
      ['three', 's'],
    ]);
    expect(rows[0]).toMatchObject({ description: 'Successful login', client_id: 'client-1', client_name: null, phone_number: '+1415***2671', details: { grant_type: 'otp' } });
    expect((rows[0]!.date as Date).toISOString()).toBe('2026-03-01T10:00:00.123Z');
    // Two records of one transaction share its id; the earlier standalone one has another.
    expect(rows[1]!.tx_id).toBe(rows[2]!.tx_id);
    expect(rows[0]!.tx_id).not.toBe(rows[1]!.tx_id);
  });

  it('writes the standalone records of concurrent callers in one INSERT, each caller resolving once it is stored', async () => {
    const query = jest.spyOn(opened.sql, 'query');
    try {
      const ids = Array.from({ length: 10 }, (_, i) => `grouped-${i}`);
      await Promise.all(ids.map((id) => opened.store.tenantLogs.append(record(id))));
      const inserts = query.mock.calls.filter(([text]) => String(text).includes('INSERT INTO tenant_logs'));
      expect(inserts).toHaveLength(1);
      expect((await rowsOf(ids)).map((r) => r.log_id)).toEqual(ids);
    } finally {
      query.mockRestore();
    }
  });

  it('rejects every caller of a grouped INSERT that fails, and stores none of their records', async () => {
    await opened.store.tenantLogs.append(record('taken'));
    const results = await Promise.allSettled([opened.store.tenantLogs.append(record('fresh')), opened.store.tenantLogs.append(record('taken'))]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(await rowsOf(['fresh'])).toEqual([]);
  });

  it('rolls the records back with the transaction that appended them', async () => {
    await expect(
      opened.store.transaction(async (tx) => {
        await tx.tenantLogs.append(record('rolled-back'));
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(await rowsOf(['rolled-back'])).toEqual([]);
  });

  it('appends nothing for an empty list', async () => {
    const before = await opened.sql.query<{ n: string }>('SELECT count(*)::text AS n FROM tenant_logs');
    await opened.store.tenantLogs.append([]);
    const after = await opened.sql.query<{ n: string }>('SELECT count(*)::text AS n FROM tenant_logs');
    expect(after.rows[0]!.n).toBe(before.rows[0]!.n);
  });
});
