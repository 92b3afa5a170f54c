import { rollUpLoginStats } from '../../src/domain/logs/stats-rollup';
import { adminToken } from '../helpers';
import { describeOnEachDatabase, FlowHarness, type LoginSetup } from '../passwordless/flow-harness';

const GB_MOBILE = (n: number) => `+447400${String(n).padStart(6, '0')}`; // prefix +447400
const US_MOBILE = (n: number) => `+1415555${String(n).padStart(4, '0')}`; // prefix +14155
const DE_MOBILE = '+4915123456789';
const guard = { mode: 'block', min_sends: 5, min_conversion: 0.5, window_minutes: 60, block_minutes: 30 };

describeOnEachDatabase('the console figures and a number’s timeline', (database) => {
  let h: FlowHarness;
  let setup: LoginSetup;
  let nextIp = 0;

  const ip = () => {
    nextIp += 1;
    return `198.19.${Math.floor(nextIp / 250)}.${(nextIp % 250) + 1}`;
  };
  const start = (phone: string) => h.start({ client_id: setup.clientId, connection: setup.connection, phone_number: phone, send: 'code' }, ip());
  const login = async (phone: string) => {
    const who = { phone, ip: ip() };
    const code = await h.sendCode(setup, who);
    const res = await h.ro(setup, who, code);
    expect(res.status).toBe(200);
  };
  const stats = (query: string) => h.management('get', `/stats/sms?${query}`);
  const logsOf = async (phone: string) =>
    (await h.management('get', `/logs?sort=date:1&q=${encodeURIComponent(`phone_number:"${phone}"`)}`)).body as Array<{ type: string; details: Record<string, unknown> }>;

  beforeAll(async () => {
    h = await FlowHarness.start({ PASSWORDLESS_START_LIMIT_PER_IP_PER_HOUR: '100000' }, { database });
    setup = await h.loginSetup({ sms_fraud_guard: guard, denied_countries: ['DE'] });
    // 2030-01-01, 00:00 UTC: two US logins; five GB codes, one used; the sixth GB start finds the prefix pumped; DE is denied.
    await login(US_MOBILE(1));
    await login(US_MOBILE(2));
    for (let i = 1; i <= 4; i++) expect((await start(GB_MOBILE(i))).status).toBe(200);
    await login(GB_MOBILE(5));
    expect((await start(GB_MOBILE(6))).status).toBe(429);
    expect((await start(DE_MOBILE)).status).toBe(400);
    // 02:00: one more US login.
    h.clock.advance(2 * 3600);
    await login(US_MOBILE(3));
  });
  afterAll(() => h.close());

  // Spend at the built-in prices: a British SMS 0.0524, a US one 0.0083.
  const hourly = [
    { period: '2030-01-01T00:00:00.000Z', key: 'DE', sent: 0, verified: 0, conversion: null, refused: { country: 1 }, passkey_logins: 0, spend_usd: 0, saved_usd: 0 },
    { period: '2030-01-01T00:00:00.000Z', key: 'GB', sent: 5, verified: 1, conversion: 0.2, refused: { fraud_guard: 1 }, passkey_logins: 0, spend_usd: 0.262, saved_usd: 0 },
    { period: '2030-01-01T00:00:00.000Z', key: 'US', sent: 2, verified: 2, conversion: 1, refused: {}, passkey_logins: 0, spend_usd: 0.0166, saved_usd: 0 },
    { period: '2030-01-01T02:00:00.000Z', key: 'US', sent: 1, verified: 1, conversion: 1, refused: {}, passkey_logins: 0, spend_usd: 0.0083, saved_usd: 0 },
  ];

  it('counts codes sent, verified and refused per hour and country', async () => {
    const res = await stats('from=2030-01-01&to=2030-01-01&interval=hour&group_by=country');
    expect(res.status).toBe(200);
    expect(res.body).toEqual(hourly);
  });

  it('answers the same figures once the rollup has counted the records, and counts records written after it', async () => {
    expect(await rollUpLoginStats(h.identity.store)).toBeGreaterThan(0);
    expect((await stats('from=2030-01-01&to=2030-01-01&interval=hour&group_by=country')).body).toEqual(hourly);
    const added = await stats('from=2030-01-01T02:00:00Z&to=2030-01-01T03:00:00Z&interval=hour');
    expect(added.body).toEqual([hourly[3]]);
  });

  it('equals a count over the raw tenant log records, by day and by prefix and connection', async () => {
    const raw = await h.identity.sql.query<{ prefix: string; type: string; n: number }>(
      `SELECT phone_prefix AS prefix, type, count(*)::int AS n FROM tenant_logs
        WHERE type IN ('cs', 's', 'sms_start_refused') AND connection = $1 GROUP BY 1, 2 ORDER BY 1, 2`,
      [setup.connection],
    );
    const rawOf = (prefix: string, type: string) => raw.rows.find((r) => r.prefix === prefix && r.type === type)?.n ?? 0;
    const byPrefix = (await stats('from=2030-01-01&to=2030-01-02&group_by=prefix')).body as Array<{ key: string; sent: number; verified: number; refused: Record<string, number> }>;
    expect(byPrefix.map((f) => f.key)).toEqual(['+14155', '+447400', '+491512']);
    for (const figure of byPrefix) {
      expect(figure.sent).toBe(rawOf(figure.key, 'cs'));
      expect(figure.verified).toBe(rawOf(figure.key, 's'));
      expect(Object.values(figure.refused).reduce((a, b) => a + b, 0)).toBe(rawOf(figure.key, 'sms_start_refused'));
    }
    const byConnection = await stats('from=2030-01-01&to=2030-01-02&group_by=connection');
    expect(byConnection.body).toEqual([
      { period: '2030-01-01T00:00:00.000Z', key: setup.connection, sent: 8, verified: 4, conversion: 0.5, refused: { country: 1, fraud_guard: 1 }, passkey_logins: 0, spend_usd: 0.2869, saved_usd: 0 },
    ]);
  });

  it('answers Auth0’s daily figures and the active users', async () => {
    const daily = await h.management('get', '/stats/daily?from=20300101&to=20300102');
    expect(daily.status).toBe(200);
    expect(daily.body).toEqual([
      expect.objectContaining({ date: '2030-01-01T00:00:00.000Z', logins: 4, signups: 4, leaked_passwords: 0 }),
      expect.objectContaining({ date: '2030-01-02T00:00:00.000Z', logins: 0, signups: 0, leaked_passwords: 0 }),
    ]);
    const active = await h.management('get', '/stats/active-users');
    expect(active.body).toBe(4);
  });

  it('needs read:stats and refuses ranges it cannot answer', async () => {
    const token = await adminToken(h.identity.app, 'read:users read:logs');
    const refused = await h.http().get('/api/v2/stats/sms').set('authorization', `Bearer ${token}`);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('insufficient_scope');
    for (const [query, path] of [
      ['from=2030-02-01&to=2030-01-01', 'to'],
      ['from=2030-01-01&to=2030-03-01&interval=hour', 'from'],
      ['from=yesterday', 'from'],
      ['group_by=city', 'group_by'],
      ['from=1969-12-31', 'from'],
      ['to=2030-02-30', 'to'],
    ]) {
      const res = await stats(query!);
      expect(res.status).toBe(400);
      expect(res.body.details[0].path).toBe(path);
    }
    expect((await h.management('get', '/stats/daily?from=20300230')).status).toBe(400);
    expect((await h.management('get', '/stats/daily?from=00000101&to=00000102')).status).toBe(400);
  });

  it('answers the 7 days up to a `to` given alone', async () => {
    const week = await stats('to=2030-01-01&group_by=connection&interval=hour');
    expect(week.status).toBe(200);
    expect(week.body.map((f: { period: string }) => f.period)).toEqual(['2030-01-01T00:00:00.000Z', '2030-01-01T02:00:00.000Z']);
  });

  it('finds every event of a number that never became a user, and the fraud guard’s decision on it', async () => {
    expect((await logsOf(GB_MOBILE(2))).map((l) => l.type)).toEqual(['cs']);
    const blocked = await logsOf(GB_MOBILE(6));
    expect(blocked).toEqual([
      expect.objectContaining({
        type: 'sms_start_refused',
        phone_number: '***0006',
        details: expect.objectContaining({ refusal: 'fraud_guard', prefix: '+447400', prefix_blocked_until: '2030-01-01T00:30:00.000Z' }),
      }),
    ]);
    expect((await logsOf(DE_MOBILE)).map((l) => [l.type, l.details.refusal])).toEqual([['sms_start_refused', 'country']]);
  });

  it('shows a number’s timeline: the code sent and delivered, a wrong code, the login, then a start refused while the user is blocked', async () => {
    const who = { phone: US_MOBILE(50), ip: ip() };
    const code = await h.sendCode(setup, who);
    expect((await h.ro(setup, who, code === '000000' ? '111111' : '000000')).status).toBe(401);
    expect((await h.ro(setup, who, code)).status).toBe(200);
    const timeline = await logsOf(who.phone);
    expect(timeline.map((l) => l.type)).toEqual(['cs', 'fp', 's']);
    expect(timeline[0]!.details.delivery).toBe('sent');
    const userId = (await h.management('get', `/users?q=${encodeURIComponent(`phone_number:"${who.phone}"`)}`)).body[0].user_id as string;
    await h.management('patch', `/users/${encodeURIComponent(userId)}`, { blocked: true });
    expect((await start(who.phone)).status).toBe(401);
    expect((await logsOf(who.phone)).map((l) => l.type)).toEqual(['cs', 'fp', 's', 'sapi', 'sms_start_blocked_user']);
  });

  it('keeps no number in clear in the tenant log, and refuses a search for something that is not a number', async () => {
    const { rows } = await h.identity.sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM tenant_logs t WHERE row_to_json(t)::text LIKE '%7400000002%' OR row_to_json(t)::text LIKE '%4155550001%'`,
    );
    expect(rows[0]!.n).toBe(0);
    const res = await h.management('get', `/logs?q=${encodeURIComponent('phone_number:"12"')}`);
    expect(res.status).toBe(400);
    expect(res.body.details[0].path).toBe('q');
  });
});
