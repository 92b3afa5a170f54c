import {
  DeliveryRequestSchema,
  JwksSchema,
  OAuthErrorBodySchema,
  OAuthTokenResponseSchema,
  RoTokenResponseSchema,
  StartResponseSchema,
} from '@smsauth/contracts';
import { describeWithPostgres, dropSchema, uniqueSchema } from '../helpers';
import { FlowHarness, type LoginSetup, type TestDatabase } from '../passwordless/flow-harness';

/*
 * Two identity instances (two apps, each with its own store and connection pool, listening
 * on their own ports) on ONE PostgreSQL schema, as two replicas behind a load balancer. The
 * start limits (SMS pumping), brute-force counters and one-time codes must hold in total
 * across both. Connections are created through A and point at A's recording gateway, so
 * that gateway receives every SMS either instance sends.
 */

const TOO_MANY_REQUESTS = { error: 'too_many_requests', error_description: 'Too many requests. Please try again later.' };
const BLOCKED = {
  error: 'too_many_attempts',
  error_description: 'Your account has been blocked after multiple consecutive login attempts.',
};
// The defaults of PASSWORDLESS_START_LIMIT_PER_PHONE_PER_HOUR / _PER_IP_PER_HOUR (the hosted product's 50/IP).
const PER_PHONE_LIMIT = 10;
const PER_IP_LIMIT = 50;

function wrongCode(code: string, n = 1): string {
  return String((Number(code) + n) % 1_000_000).padStart(6, '0');
}

describeWithPostgres('two identity instances on one PostgreSQL', (databaseUrl) => {
  const schema = uniqueSchema('twoinst');
  const database: TestDatabase = { name: 'PostgreSQL', env: { DATABASE_URL: databaseUrl }, schema };
  let a: FlowHarness;
  let b: FlowHarness;
  let setup: LoginSetup;

  beforeAll(async () => {
    // TRUST_PROXY: the harness's X-Forwarded-For is the client address on both instances.
    a = await FlowHarness.start({ TRUST_PROXY: 'true' }, { database });
    b = await FlowHarness.start({ TRUST_PROXY: 'true' }, { database });
    // These tests send many codes to one prefix and verify few: the SMS fraud guard a new
    // connection runs would block it (sms-policy/two-instances.test.ts covers the guard).
    setup = await a.loginSetup({ sms_fraud_guard: { mode: 'off' } });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await dropSchema(databaseUrl, schema);
  });

  /** Callers come from A's sequence only: B's would repeat A's numbers and addresses. */
  const caller = () => a.caller();
  const instance = (i: number) => (i % 2 === 0 ? a : b);
  const startOn = (h: FlowHarness, phone: string, ip: string) =>
    h.start({ client_id: setup.clientId, connection: setup.connection, phone_number: phone, send: 'code' }, ip);
  /** Messages A's gateway received for `phone` (B's gateway is never configured on a connection). */
  /** A start on `h`; the code is read from A's gateway, which every connection here uses. */
  const sendCodeVia = async (h: FlowHarness, who: { phone: string; ip: string }) => {
    const res = await startOn(h, who.phone, who.ip);
    expect(res.status).toBe(200);
    return a.codeSentTo(who.phone);
  };
  const messagesTo = (phone: string) => a.gateway.requests.filter((r) => DeliveryRequestSchema.parse(JSON.parse(r.body)).recipient === phone);

  it('shares one schema and one signing key between the two instances', async () => {
    expect(a.identity.sql.driver).toBe('pg');
    expect(b.identity.sql.driver).toBe('pg');
    expect(a.identity.sql).not.toBe(b.identity.sql);
    const jwksA = JwksSchema.parse((await a.http().get('/.well-known/jwks.json')).body);
    const jwksB = JwksSchema.parse((await b.http().get('/.well-known/jwks.json')).body);
    expect(jwksB).toEqual(jwksA);
  });

  describe('SMS pumping: start limits in total across A and B', () => {
    it(`refuses the start after ${PER_PHONE_LIMIT} for one number when requests alternate between A and B, and sends exactly ${PER_PHONE_LIMIT} SMS`, async () => {
      const { phone } = caller();
      const statuses: number[] = [];
      for (let i = 0; i < PER_PHONE_LIMIT + 2; i += 1) {
        const res = await startOn(instance(i), phone, caller().ip);
        statuses.push(res.status);
        if (res.status === 200) {
          StartResponseSchema.parse(res.body);
          expect(res.headers['x-ratelimit-remaining']).toBe(String(PER_PHONE_LIMIT - i - 1));
        } else {
          expect(OAuthErrorBodySchema.parse(res.body)).toEqual(TOO_MANY_REQUESTS);
          expect(res.headers['x-ratelimit-limit']).toBe(String(PER_PHONE_LIMIT));
          expect(res.headers['x-ratelimit-remaining']).toBe('0');
          expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
        }
      }
      expect(statuses).toEqual([...Array(PER_PHONE_LIMIT).fill(200), 429, 429]);
      expect(messagesTo(phone)).toHaveLength(PER_PHONE_LIMIT);
      expect(b.gateway.requests).toHaveLength(0);
    });

    it(`refuses the start after ${PER_IP_LIMIT} from one address when requests alternate between A and B, and sends exactly ${PER_IP_LIMIT} SMS`, async () => {
      const { ip } = caller();
      const phones: string[] = [];
      const statuses: number[] = [];
      for (let i = 0; i < PER_IP_LIMIT + 2; i += 1) {
        const { phone } = caller();
        phones.push(phone);
        const res = await startOn(instance(i), phone, ip);
        statuses.push(res.status);
        if (res.status !== 200) {
          expect(OAuthErrorBodySchema.parse(res.body)).toEqual(TOO_MANY_REQUESTS);
          expect(res.headers['x-ratelimit-limit']).toBe(String(PER_IP_LIMIT));
        }
      }
      expect(statuses).toEqual([...Array(PER_IP_LIMIT).fill(200), 429, 429]);
      const sent = phones.map((phone) => messagesTo(phone).length);
      expect(sent).toEqual([...Array(PER_IP_LIMIT).fill(1), 0, 0]);
    });

    it(`lets exactly ${PER_PHONE_LIMIT} of 30 parallel starts for one number (15 on each instance) through`, async () => {
      const { phone } = caller();
      const results = await Promise.all(Array.from({ length: 30 }, (_, i) => startOn(instance(i), phone, caller().ip)));
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(PER_PHONE_LIMIT);
      expect(statuses.filter((s) => s === 429)).toHaveLength(30 - PER_PHONE_LIMIT);
      expect(messagesTo(phone)).toHaveLength(PER_PHONE_LIMIT);
      const { rows } = await a.identity.sql.query<{ count: number }>('SELECT count FROM rate_limit_counters WHERE key = $1', [`start:phone:${phone}`]);
      // Every start was counted once, also the refused ones: no lost update across the two pools.
      expect(rows[0]?.count).toBe(30);
    });
  });

  describe('one-time codes across A and B', () => {
    it('exchanges a code issued on A on B, for tokens that verify with the keys A publishes', async () => {
      const who = caller();
      const code = await sendCodeVia(a, who);
      const res = await b.ro(setup, who, code, { scope: 'openid phone' });
      expect(res.status).toBe(200);
      const tokens = RoTokenResponseSchema.parse(res.body);
      const { claims } = await a.verifyWithJwks(tokens.id_token!, setup.clientId);
      expect(claims.phone_number).toBe(who.phone);
      // And it is spent for A too.
      expect((await a.ro(setup, who, code)).status).toBe(401);
    });

    it('gives exactly one success when the same code is raced 10 times on A and 10 times on B at once', async () => {
      const who = caller();
      const code = await sendCodeVia(b, who);
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => instance(i).otp(setup, { ...who, ip: caller().ip }, code)),
      );
      const winners = results.filter((r) => r.status === 200);
      expect(winners).toHaveLength(1);
      OAuthTokenResponseSchema.parse(winners[0]!.body);
      expect(results.filter((r) => r.status === 400)).toHaveLength(19);
      for (const r of results.filter((x) => x.status === 400)) expect(OAuthErrorBodySchema.parse(r.body).error).toBe('invalid_grant');
      expect((await a.identity.store.codes.find(setup.connectionId, who.phone))!.used).toBe(true);
      expect((await b.identity.store.users.findByPhone(setup.connectionId, who.phone))!.logins_count).toBe(1);
    });

    it('compares only 3 of 50 parallel wrong guesses split over A and B, counts all 50, and the code is dead on both', async () => {
      const who = caller();
      const code = await sendCodeVia(a, who);
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => instance(i).otp(setup, { ...who, ip: caller().ip }, wrongCode(code, i + 1))),
      );
      expect(results.map((r) => r.status)).toEqual(Array(50).fill(400));
      const stored = await a.identity.store.codes.find(setup.connectionId, who.phone);
      expect(stored).toMatchObject({ attempts: 3, used: false });
      const { rows } = await a.identity.sql.query<{ consecutive_failures: number }>(
        'SELECT consecutive_failures FROM login_failures_by_phone WHERE phone_number = $1',
        [who.phone],
      );
      expect(rows[0]?.consecutive_failures).toBe(50);
      expect((await a.ro(setup, { ...who, ip: caller().ip }, code)).status).toBe(401);
      expect((await b.ro(setup, { ...who, ip: caller().ip }, code)).status).toBe(401);
    });

    it('blocks an address after 10 failures counted together on A and B (5 on each), on both instances', async () => {
      const who = caller();
      for (let i = 0; i < 10; i += 1) expect((await instance(i).ro(setup, who, '000000')).status).toBe(401);
      const code = await sendCodeVia(b, who);
      for (const h of [a, b]) {
        const res = await h.ro(setup, who, code);
        expect(res.status).toBe(429);
        expect(res.body).toEqual(BLOCKED);
      }
      // The code was not spent by the blocked requests: another address can still use it.
      expect((await b.ro(setup, { ...who, ip: caller().ip }, code)).status).toBe(200);
    });
  });
});
