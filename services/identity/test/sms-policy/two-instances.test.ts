import { connectionBody, describeWithPostgres, dropSchema, uniqueSchema } from '../helpers';
import { FlowHarness, type LoginSetup } from '../passwordless/flow-harness';

/*
 * Two identity instances on one PostgreSQL schema, as two replicas behind a load balancer:
 * velocity counters, fraud-guard counts and blocks are in the database, so what one
 * instance counted or blocked holds on the other. Test numbers written where they are
 * allowed are refused by an instance running in production.
 */
describeWithPostgres('SMS policy across two identity instances on one PostgreSQL', (databaseUrl) => {
  const schema = uniqueSchema('sms_policy');
  const database = { name: 'PostgreSQL', env: { DATABASE_URL: databaseUrl }, schema };
  let a: FlowHarness;
  let b: FlowHarness;
  beforeAll(async () => {
    const shared = { PASSWORDLESS_START_LIMIT_PER_IP_PER_HOUR: '100000', KEY_ENCRYPTION_SECRET: 'k'.repeat(32) };
    a = await FlowHarness.start(shared, { database });
    // The recording gateway listens on 127.0.0.1, which production's default URL policy refuses.
    b = await FlowHarness.start({ ...shared, NODE_ENV: 'production', GATEWAY_URL_POLICY: 'any' }, { database });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await dropSchema(databaseUrl, schema);
  });

  const start = (h: FlowHarness, setup: LoginSetup, phone: string) =>
    h.start({ client_id: setup.clientId, connection: setup.connection, phone_number: phone, send: 'code' });
  const gb = (n: number) => `+447400${String(n).padStart(6, '0')}`;

  it('shares the per-prefix velocity counter: two starts on A and a third on B is one too many', async () => {
    const setup = await a.loginSetup({ sms_velocity_limits: { per_prefix_per_hour: 2 } });
    expect((await start(a, setup, gb(1))).status).toBe(200);
    expect((await start(b, setup, gb(2))).status).toBe(200);
    expect((await start(a, setup, gb(3))).status).toBe(429);
    expect((await start(b, setup, gb(4))).status).toBe(429);
  });

  it('shares fraud-guard counts and blocks: sends spread over both instances block the prefix on both, and a lift on one holds on the other', async () => {
    const setup = await a.loginSetup({ sms_fraud_guard: { mode: 'block', min_sends: 6, min_conversion: 0.5, window_minutes: 60, block_minutes: 60 } });
    for (let i = 0; i < 6; i++) expect((await start(i % 2 ? a : b, setup, gb(100 + i))).status).toBe(200);
    expect((await start(a, setup, gb(110))).status).toBe(429);
    expect((await start(b, setup, gb(111))).status).toBe(429);
    const blocks = await b.management('get', `/connections/${setup.connectionId}/sms-fraud-blocks`);
    expect(blocks.body.blocks.map((x: { prefix: string }) => x.prefix)).toEqual(['+447400']);
    expect((await a.management('delete', `/connections/${setup.connectionId}/sms-fraud-blocks/%2B447400`)).status).toBe(204);
    expect((await start(b, setup, gb(112))).status).toBe(200);
  });

  it('counts a verification made on one instance for a code sent by the other', async () => {
    const setup = await a.loginSetup({ sms_fraud_guard: { mode: 'block', min_sends: 4, min_conversion: 0.5, window_minutes: 60, block_minutes: 60 } });
    for (let i = 0; i < 6; i++) {
      const who = { phone: gb(200 + i), ip: `203.0.113.${i + 1}` };
      const code = await a.sendCode(setup, who);
      expect((await b.ro(setup, who, code)).status).toBe(200);
    }
  });

  it('refuses test numbers on the instance running in production, on write and at start', async () => {
    const testNumbers = [{ phone_number: '+12125557777', code: '111222' }];
    const refused = await b.management('post', '/connections', connectionBody({ gateway_url: b.gateway.url(), sms_test_numbers: testNumbers }));
    expect(refused.status).toBe(400);
    expect(refused.body.details[0]).toEqual({
      path: 'options.sms_test_numbers',
      message: 'test numbers are refused when NODE_ENV=production unless ALLOW_TEST_NUMBERS=true',
    });
    // Written by the instance that allows them; the production instance still refuses to use them.
    const setup = await a.loginSetup({ sms_test_numbers: testNumbers });
    expect((await start(a, setup, '+12125557777')).status).toBe(200);
    const res = await start(b, setup, '+12125557777');
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('bad.phone_number');
    expect(res.body.error_description).toContain('ALLOW_TEST_NUMBERS=true');
    expect((await b.ro(setup, { phone: '+12125557777', ip: '203.0.113.200' }, '111222')).status).toBe(401);
    expect((await a.ro(setup, { phone: '+12125557777', ip: '203.0.113.201' }, '111222')).status).toBe(200);
  });
});
