import { OAuthErrorBodySchema, SmsProviderErrorDescriptions, StartResponseSchema } from '@smsauth/contracts';
import { answer, startTcpProxy, type TcpProxy } from '@smsauth/test-support';
import { describeOnEachDatabase, FlowHarness, type LoginSetup } from '../passwordless/flow-harness';

/*
 * The delivery gateway failing in each way a network dependency fails. The status and body
 * of each failure (and that the code is discarded) are also in test/passwordless/start.test.ts
 * ("delivery failures"); this suite adds what the database must look like afterwards and that
 * the next start works once the gateway is back, without restarting anything.
 */

type Caller = { phone: string; ip: string };

interface Fault {
  description: string;
  break(): Promise<void> | void;
  repair(): Promise<void>;
}

describeOnEachDatabase('identity while the SMS delivery gateway fails (faults)', (database) => {
  let h: FlowHarness;
  let proxy: TcpProxy;
  let setup: LoginSetup;

  beforeAll(async () => {
    h = await FlowHarness.start({ TRUST_PROXY: 'true', GATEWAY_TIMEOUT_MS: '500' }, { database });
    // The gateway sits behind a proxy the test can cut (connection refused) or pause (a hang).
    proxy = await startTcpProxy({ host: '127.0.0.1', port: h.gateway.port });
    setup = await h.loginSetup({ gateway_url: proxy.proxiedUrl(h.gateway.url()) });
  });
  afterEach(() => h.gateway.reset());
  afterAll(async () => {
    await proxy?.close();
    await h?.close();
  });

  const faults: Array<[string, () => Fault]> = [
    [
      'is down (connection refused)',
      () => ({ description: 'Unable to reach the SMS gateway', break: () => proxy.cut(), repair: () => proxy.restore() }),
    ],
    [
      'hangs (no answer within GATEWAY_TIMEOUT_MS)',
      () => ({ description: SmsProviderErrorDescriptions.GATEWAY_TIMEOUT, break: () => proxy.pause(), repair: () => proxy.restore() }),
    ],
    [
      'answers 500',
      () => ({
        description: SmsProviderErrorDescriptions.unexpectedGatewayResponse(500),
        break: () => h.gateway.respondWith(answer(500)),
        repair: async () => h.gateway.reset(),
      }),
    ],
    [
      'answers 401',
      () => ({
        description: SmsProviderErrorDescriptions.GATEWAY_AUTH_FAILED,
        break: () => h.gateway.respondWith(answer(401)),
        repair: async () => h.gateway.reset(),
      }),
    ],
  ];

  const startBody = (who: Caller) => ({ client_id: setup.clientId, connection: setup.connection, phone_number: who.phone, send: 'code' });

  /** What a failed start could damage, read straight from the database. */
  async function databaseState(people: Caller[]) {
    const phones = people.map((p) => p.phone);
    const keys = people.flatMap((p) => [`start:ip:${p.ip}`, `start:phone:${p.phone}`]);
    const sql = h.identity.sql;
    const [users, codes, counters, byIp, byPhone] = await Promise.all([
      sql.query('SELECT * FROM users WHERE phone_number = ANY($1) ORDER BY phone_number', [phones]),
      sql.query('SELECT phone_number, request_id FROM one_time_codes WHERE phone_number = ANY($1)', [phones]),
      sql.query<{ key: string; count: number }>('SELECT key, count FROM rate_limit_counters WHERE key = ANY($1)', [keys]),
      sql.query('SELECT * FROM login_failures_by_ip WHERE phone_number = ANY($1)', [phones]),
      sql.query('SELECT * FROM login_failures_by_phone WHERE phone_number = ANY($1)', [phones]),
    ]);
    return {
      users: users.rows,
      codes: codes.rows,
      counters: Object.fromEntries(counters.rows.map((r) => [r.key, r.count])) as Record<string, number>,
      loginFailures: [...byIp.rows, ...byPhone.rows],
    };
  }

  it.each(faults)(
    'when the gateway %s: start answers sms_provider_error, corrupts no user or counter, and works again once the gateway is back',
    async (_name, makeFault) => {
      const fault = makeFault();
      const existing = h.caller();
      expect((await h.ro(setup, existing, await h.sendCode(setup, existing))).status).toBe(200);
      const newcomer = h.caller();
      const before = await databaseState([existing, newcomer]);
      expect(before.users).toHaveLength(1);

      await fault.break();
      try {
        for (const who of [existing, newcomer]) {
          const res = await h.start(startBody(who), who.ip);
          expect(res.status).toBe(400);
          expect(OAuthErrorBodySchema.parse(res.body)).toEqual({ error: 'sms_provider_error', error_description: fault.description });
        }
      } finally {
        await fault.repair();
      }

      const after = await databaseState([existing, newcomer]);
      expect(after.users).toEqual(before.users); // the existing user untouched, no user for the newcomer
      expect(after.codes).toEqual([]); // the undelivered codes are discarded
      expect(after.loginFailures).toEqual(before.loginFailures); // no attempt spent, nobody blocked
      // A well-formed start counts against the limits also when delivery fails (docs/identity.md, "Rate limits"), exactly once.
      expect(after.counters).toEqual({
        [`start:ip:${existing.ip}`]: before.counters[`start:ip:${existing.ip}`]! + 1,
        [`start:phone:${existing.phone}`]: before.counters[`start:phone:${existing.phone}`]! + 1,
        [`start:ip:${newcomer.ip}`]: 1,
        [`start:phone:${newcomer.phone}`]: 1,
      });

      // Back: both numbers get a code that logs them in; the existing user keeps its id.
      for (const who of [existing, newcomer]) {
        const res = await h.start(startBody(who), who.ip);
        expect(res.status).toBe(200);
        expect(StartResponseSchema.parse(res.body).phone_number).toBe(who.phone);
        expect((await h.ro(setup, who, h.codeSentTo(who.phone))).status).toBe(200);
      }
      const users = await h.identity.store.users.findByPhone(setup.connectionId, existing.phone);
      expect(users!.user_id).toBe(before.users[0]!.user_id);
      expect(users!.logins_count).toBe(2);
      expect(await h.identity.store.users.findByPhone(setup.connectionId, newcomer.phone)).toMatchObject({ logins_count: 1 });
    },
  );
});
