import { PASSWORDLESS_OTP_GRANT } from '@smsauth/contracts';
import { logRecord } from '../../src/domain/logs/tenant-log';
import { describeOnEachDatabase, FlowHarness, type LoginSetup } from './flow-harness';

/*
 * Each SQL statement is a round trip to the database, and on a loaded host the round trips,
 * not the statements' work, dominate a login's cost (BENCHMARKS.md section 4). These counts
 * are the budget: a change that adds a statement to the login path has to change them here.
 */
describeOnEachDatabase('SQL statements per passwordless login', (database) => {
  let h: FlowHarness;
  let setup: LoginSetup;
  let statements: jest.SpyInstance;

  beforeAll(async () => {
    // The background workers poll the database (log streams every 1 s, user jobs every 2 s, the
    // stats rollup every minute): a request slower than that on a loaded machine counted a poll as
    // its own statement. Here they poll hourly: not during these tests.
    h = await FlowHarness.start({ TRUST_PROXY: 'true', LOG_STREAM_POLL_MS: '3600000', USER_JOB_POLL_MS: '3600000', STATS_ROLLUP_INTERVAL_MS: '3600000' }, { database });
    setup = await h.loginSetup({
      gateway_authentication: { method: 'bearer', subject: 'identity', audience: 'sms-gateway', secret: 'gateway-secret-for-round-trips' },
    });
    statements = jest.spyOn(h.identity.sql, 'query');
  });
  afterAll(async () => {
    statements.mockRestore();
    await h.close();
  });

  /** The statements `fn` sends, by their first words. */
  async function statementsOf(fn: () => Promise<unknown>): Promise<string[]> {
    statements.mockClear();
    await fn();
    return statements.mock.calls.map(([text]) => String(text).trim().split(/\s+/).slice(0, 2).join(' '));
  }

  // A connection created now runs the SMS fraud guard (count the prefix's send, or find it
  // blocked) in the rate limits' statement. The code and its tenant-log record (`cs`) are
  // written ahead of the delivery in one statement, and the outcome after it: still 4. The
  // outcome's UPDATE is shared with concurrent starts' (one statement for all, under load).
  it('a start reads its context once, counts both rate limits and its prefix for the fraud guard at once, writes the code with its record ahead of the SMS and the outcome after: 4 statements', async () => {
    const who = h.caller();
    const sent = await statementsOf(async () => expect((await h.start({ client_id: setup.clientId, connection: setup.connection, phone_number: who.phone, send: 'code' }, who.ip)).status).toBe(200));
    expect(sent).toEqual(['SELECT to_jsonb(cl)', 'WITH first', 'WITH claimed', 'UPDATE tenant_logs']);
  });

  it('the delivery outcomes of starts settled at the same moment go to their records in one UPDATE', async () => {
    const at = new Date();
    const [first, second] = [logRecord('cs', { clientId: setup.clientId }, at), logRecord('cs', { clientId: setup.clientId }, at)];
    await h.identity.store.tenantLogs.append([first, second]);
    const logins = h.identity.store.passwordlessLogins;
    const sent = await statementsOf(() =>
      Promise.all([
        logins.settleStart(first.log_id, { delivery: 'sent', channel: 'sms' }),
        logins.settleStart(second.log_id, { delivery: 'failed' }),
        logins.settleStart(first.log_id, { note: 'merged' }),
      ]),
    );
    expect(sent).toEqual(['UPDATE tenant_logs']);
    expect((await h.identity.store.tenantLogs.findById(first.log_id))?.details).toEqual({ delivery: 'sent', channel: 'sms', note: 'merged' });
    expect((await h.identity.store.tenantLogs.findById(second.log_id))?.details).toEqual({ delivery: 'failed' });
  });

  it('a start with an Idempotency-Key looks its key up first: 5 statements; its retry answers from the key: 2, and sends nothing', async () => {
    const who = h.caller();
    const body = { client_id: setup.clientId, connection: setup.connection, phone_number: who.phone, send: 'code' };
    const sent = await statementsOf(async () => expect((await h.start(body, who.ip).set('Idempotency-Key', `rt-${who.phone}`)).status).toBe(200));
    expect(sent).toEqual(['SELECT to_jsonb(cl)', 'SELECT *', 'WITH first', 'WITH claimed', 'WITH logged']);
    const deliveries = h.gateway.requests.length;
    const retried = await statementsOf(async () => expect((await h.start(body, who.ip).set('Idempotency-Key', `rt-${who.phone}`)).status).toBe(200));
    expect(retried).toEqual(['SELECT to_jsonb(cl)', 'SELECT *']);
    expect(h.gateway.requests).toHaveLength(deliveries);
  });

  // The context reads the code as it stands; a guess right for it takes its attempt in the completion.
  it('/oauth/ro with the right code takes 2 statements: context with the code, and a completion that also takes the attempt, counts the fraud guard\'s verification and stores the opaque access token', async () => {
    const who = h.caller();
    const code = await h.sendCode(setup, who);
    const sent = await statementsOf(async () => expect((await h.ro(setup, who, code)).status).toBe(200));
    expect(sent).toEqual(['SELECT to_jsonb(cl)', 'WITH consumed']);
    const { rows } = await h.identity.sql.query<{ attempts: number; used: boolean }>('SELECT attempts, used FROM one_time_codes WHERE phone_number = $1', [who.phone]);
    expect(rows).toEqual([{ attempts: 1, used: true }]);
  });

  it('/oauth/ro with a wrong code takes the attempt first, as before: context, attempt, the failure counted', async () => {
    const who = h.caller();
    const code = await h.sendCode(setup, who);
    const wrong = String((Number(code) + 1) % 10 ** code.length).padStart(code.length, '0');
    const sent = await statementsOf(async () => expect((await h.ro(setup, who, wrong)).status).toBe(401));
    expect(sent.slice(0, 2)).toEqual(['SELECT to_jsonb(cl)', 'UPDATE one_time_codes']);
    const { rows } = await h.identity.sql.query<{ attempts: number; used: boolean }>('SELECT attempts, used FROM one_time_codes WHERE phone_number = $1', [who.phone]);
    expect(rows).toEqual([{ attempts: 1, used: false }]);
  });

  it('the OTP grant with a JWT access token takes 3: context with the code, API, and a completion that also takes the attempt and counts the fraud guard\'s verification', async () => {
    const api = await h.createApi({ name: 'Round trips', identifier: 'https://round-trips.test', scopes: [] });
    const who = h.caller();
    const code = await h.sendCode(setup, who);
    const sent = await statementsOf(async () =>
      expect(
        (
          await h
            .http()
            .post('/oauth/token')
            .set('X-Forwarded-For', who.ip)
            .send({ grant_type: PASSWORDLESS_OTP_GRANT, client_id: setup.clientId, realm: setup.connection, username: who.phone, otp: code, audience: api.identifier })
        ).status,
      ).toBe(200),
    );
    expect(sent).toEqual(['SELECT to_jsonb(cl)', 'SELECT *', 'WITH consumed']);
  });
});
