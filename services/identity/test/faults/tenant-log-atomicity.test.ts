import pg from 'pg';
import { describeWithPostgres } from '../helpers';
import { FlowHarness, type LoginSetup } from '../passwordless/flow-harness';
import { logMark } from '../logs/log-harness';

/**
 * No event without its change and no change without its event: a trigger makes PostgreSQL end
 * the service's own connection (pg_terminate_backend of itself) in the middle of the
 * transaction, exactly when it writes the record, or exactly when it writes the change.
 * The request fails (503) and neither the change nor the record stays.
 */
describeWithPostgres('tenant log records and their changes when the database connection dies mid-transaction (faults)', (databaseUrl) => {
  let h: FlowHarness;
  let setup: LoginSetup;
  let admin: pg.Client;
  let schema: string;

  /** Runs `action` while PostgreSQL ends the connection of whoever writes to `table`; returns its status. */
  const statusWhileKillingWritersOf = async (table: string, action: () => PromiseLike<{ status: number }>) => {
    await admin.query(`CREATE TRIGGER kill_writer BEFORE INSERT OR UPDATE ON ${schema}.${table} FOR EACH ROW EXECUTE FUNCTION ${schema}.kill_writer()`);
    try {
      return (await action()).status;
    } finally {
      await admin.query(`DROP TRIGGER kill_writer ON ${schema}.${table}`);
    }
  };

  beforeAll(async () => {
    h = await FlowHarness.start({ TRUST_PROXY: 'true' }, { database: { name: 'PostgreSQL', env: { DATABASE_URL: databaseUrl }, schema: (schema = `log_faults_${process.pid}_${Date.now()}`) } });
    setup = await h.loginSetup();
    admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    await admin.query(`CREATE FUNCTION ${schema}.kill_writer() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_terminate_backend(pg_backend_pid()); RETURN NEW; END $$`);
  });
  afterAll(async () => {
    await h?.close();
    await admin?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin?.end();
  });

  const failuresOf = async (phone: string) =>
    (await h.identity.sql.query<{ n: number }>('SELECT consecutive_failures AS n FROM login_failures_by_phone WHERE phone_number = $1', [phone])).rows[0]?.n ?? 0;

  it('a wrong code whose record cannot be written is not counted, and is counted with its record once it can', async () => {
    const who = h.caller();
    const code = await h.sendCode(setup, who);
    const wrong = code === '000000' ? '111111' : '000000';
    const mark = await logMark(h);
    expect(await statusWhileKillingWritersOf('tenant_logs', () => h.ro(setup, who, wrong))).toBe(503);
    expect(await failuresOf(who.phone)).toBe(0);
    expect(await mark.types()).toEqual([]);

    expect((await h.ro(setup, who, wrong)).status).toBe(401);
    expect(await failuresOf(who.phone)).toBe(1);
    expect(await mark.types()).toEqual(['fp']);
  });

  it('a wrong code whose failure count cannot be written leaves no record', async () => {
    const who = h.caller();
    const code = await h.sendCode(setup, who);
    const mark = await logMark(h);
    expect(await statusWhileKillingWritersOf('login_failures_by_phone', () => h.ro(setup, who, code === '000000' ? '111111' : '000000'))).toBe(503);
    expect(await mark.types()).toEqual([]);
  });

  it('a login whose record cannot be written does not happen: no user, the code still unused, and it works afterwards', async () => {
    const who = h.caller();
    const code = await h.sendCode(setup, who);
    const mark = await logMark(h);
    expect(await statusWhileKillingWritersOf('tenant_logs', () => h.ro(setup, who, code))).toBe(503);
    expect(await h.identity.store.users.findByPhone(setup.connectionId, who.phone)).toBeUndefined();
    const used = await h.identity.sql.query<{ used: boolean }>('SELECT used FROM one_time_codes WHERE phone_number = $1', [who.phone]);
    expect(used.rows).toEqual([{ used: false }]);
    expect(await mark.types()).toEqual([]);

    expect((await h.ro(setup, who, code)).status).toBe(200);
    expect(await mark.types()).toEqual(['s']);
  });

  it('a management write whose record cannot be written does not happen, and a write that fails records nothing', async () => {
    const mark = await logMark(h);
    const countNamed = async (name: string) => (await h.identity.sql.query('SELECT 1 FROM clients WHERE name = $1', [name])).rows.length;
    expect(await statusWhileKillingWritersOf('tenant_logs', () => h.management('post', '/clients', { name: 'Unrecorded', app_type: 'native' }))).toBe(503);
    expect(await countNamed('Unrecorded')).toBe(0);

    expect(await statusWhileKillingWritersOf('clients', () => h.management('post', '/clients', { name: 'Unwritten', app_type: 'native' }))).toBe(503);
    expect(await countNamed('Unwritten')).toBe(0);
    expect(await mark.types()).toEqual([]);
  });
});
