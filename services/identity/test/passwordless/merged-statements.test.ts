import { createHash } from 'node:crypto';
import { describeOnEachDatabase, FlowHarness, type LoginSetup } from './flow-harness';

/*
 * The login path counts and stores several things in one statement each (round-trips.test.ts
 * has the counts): the start's rate limits with the fraud guard's send, and the login with the
 * fraud guard's verification and the opaque access token. These tests hold what each merged
 * statement may change, and when it must change nothing.
 */

const GB_MOBILE = (n: number) => `+447400${String(n).padStart(6, '0')}`; // prefix +447400
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describeOnEachDatabase('what the merged login statements count and store', (database) => {
  let h: FlowHarness;
  beforeAll(async () => {
    h = await FlowHarness.start({ TRUST_PROXY: 'true', PASSWORDLESS_START_LIMIT_PER_PHONE_PER_HOUR: '2' }, { database });
  });
  afterAll(() => h.close());

  const startFor = (setup: LoginSetup, who: { phone: string; ip: string }) =>
    h.start({ client_id: setup.clientId, connection: setup.connection, phone_number: who.phone, send: 'code' }, who.ip);
  const gbCaller = (n: number) => ({ phone: GB_MOBILE(n), ip: h.caller().ip });

  async function prefixCounters(setup: LoginSetup): Promise<Array<{ prefix: string; sends: number; verified: number }>> {
    const { rows } = await h.identity.sql.query<{ prefix: string; sends: number; verified: number }>(
      'SELECT prefix, sends, verified FROM sms_prefix_counters WHERE connection_id = $1 ORDER BY prefix',
      [setup.connectionId],
    );
    return rows.map((r) => ({ prefix: r.prefix, sends: Number(r.sends), verified: Number(r.verified) }));
  }
  async function accessTokenRows(setup: LoginSetup): Promise<Array<{ token_hash: string; user_id: string; scope: string }>> {
    const { rows } = await h.identity.sql.query<{ token_hash: string; user_id: string; scope: string }>(
      'SELECT token_hash, user_id, scope FROM access_tokens WHERE client_id = $1 ORDER BY created_at',
      [setup.clientId],
    );
    return rows;
  }
  async function startsCounted(phone: string): Promise<number> {
    const { rows } = await h.identity.sql.query<{ count: number }>('SELECT count FROM rate_limit_counters WHERE key = $1', [`start:phone:${phone}`]);
    return rows.length ? Number(rows[0]!.count) : 0;
  }
  async function userIdOf(setup: LoginSetup, phone: string): Promise<string> {
    const { rows } = await h.identity.sql.query<{ user_id: string }>(
      'SELECT user_id FROM users WHERE connection_id = $1 AND phone_number = $2',
      [setup.connectionId, phone],
    );
    return rows[0]!.user_id;
  }

  describe('a login', () => {
    it('counts its verified code for the prefix in the fraud guard\'s window, next to the start\'s send', async () => {
      const setup = await h.loginSetup();
      const who = gbCaller(1);
      const code = await h.sendCode(setup, who);
      expect(await prefixCounters(setup)).toEqual([{ prefix: '+447400', sends: 1, verified: 0 }]);
      expect((await h.ro(setup, who, code)).status).toBe(200);
      expect(await prefixCounters(setup)).toEqual([{ prefix: '+447400', sends: 1, verified: 1 }]);
    });

    it('with a wrong code counts no verification and leaves no access token; the right code then stores exactly one, for the user', async () => {
      const setup = await h.loginSetup();
      const who = gbCaller(2);
      const code = await h.sendCode(setup, who);
      const wrong = code === '000000' ? '111111' : '000000';
      expect((await h.ro(setup, who, wrong)).status).toBe(401);
      expect(await accessTokenRows(setup)).toEqual([]);
      expect(await prefixCounters(setup)).toEqual([{ prefix: '+447400', sends: 1, verified: 0 }]);

      const res = await h.ro(setup, who, code);
      expect(res.status).toBe(200);
      expect(await accessTokenRows(setup)).toEqual([{ token_hash: sha256(res.body.access_token), user_id: await userIdOf(setup, who.phone), scope: 'openid' }]);
      expect((await h.http().get('/userinfo').set('authorization', `Bearer ${res.body.access_token}`)).status).toBe(200);
    });

    it('with a code already used counts nothing more and stores no second token', async () => {
      const setup = await h.loginSetup();
      const who = gbCaller(3);
      const code = await h.sendCode(setup, who);
      expect((await h.ro(setup, who, code)).status).toBe(200);
      expect((await h.ro(setup, who, code)).status).toBe(401);
      expect(await accessTokenRows(setup)).toHaveLength(1);
      expect(await prefixCounters(setup)).toEqual([{ prefix: '+447400', sends: 1, verified: 1 }]);
    });

    it('of a test number, a safe-listed number, or with the fraud guard off counts no verification', async () => {
      const testNumber = '+12125550142';
      const safe = gbCaller(4);
      const listed = await h.loginSetup({ sms_test_numbers: [{ phone_number: testNumber, code: '975310' }], sms_safe_list: [safe.phone] });
      expect((await h.ro(listed, { phone: testNumber, ip: h.caller().ip }, '975310')).status).toBe(401); // no start yet
      await startFor(listed, { phone: testNumber, ip: h.caller().ip });
      expect((await h.ro(listed, { phone: testNumber, ip: h.caller().ip }, '975310')).status).toBe(200);
      expect((await h.ro(listed, safe, await h.sendCode(listed, safe))).status).toBe(200);
      expect(await prefixCounters(listed)).toEqual([]);

      const off = await h.loginSetup({ sms_fraud_guard: { mode: 'off', min_sends: 5, min_conversion: 0.5, window_minutes: 60, block_minutes: 30 } });
      const who = gbCaller(5);
      expect((await h.ro(off, who, await h.sendCode(off, who))).status).toBe(200);
      expect(await prefixCounters(off)).toEqual([]);
    });

    it('through the OTP grant stores the opaque access token with the login without an audience, and none with one', async () => {
      const setup = await h.loginSetup();
      const api = await h.createApi({ name: 'Merged statements', identifier: 'https://merged-statements.test', scopes: [] });
      const who = gbCaller(7);
      const opaque = await h.otp(setup, who, await h.sendCode(setup, who));
      expect(opaque.status).toBe(200);
      expect((await accessTokenRows(setup)).map((r) => r.token_hash)).toEqual([sha256(opaque.body.access_token)]);
      expect((await h.http().get('/userinfo').set('authorization', `Bearer ${opaque.body.access_token}`)).status).toBe(200);

      const jwt = await h.otp(setup, who, await h.sendCode(setup, who), { audience: api.identifier });
      expect(jwt.status).toBe(200);
      expect(jwt.body.access_token.split('.')).toHaveLength(3);
      expect(await accessTokenRows(setup)).toHaveLength(1);
      expect(await prefixCounters(setup)).toEqual([{ prefix: '+447400', sends: 2, verified: 2 }]);
    });
  });

  describe('a start', () => {
    it('refused by the per-number rate limit counts no fraud guard send', async () => {
      const setup = await h.loginSetup();
      const who = gbCaller(20);
      expect((await startFor(setup, who)).status).toBe(200);
      expect((await startFor(setup, who)).status).toBe(200);
      const refused = await startFor(setup, who);
      expect(refused.status).toBe(429);
      expect(refused.headers).toMatchObject({ 'x-ratelimit-limit': '2', 'x-ratelimit-remaining': '0' });
      expect(await startsCounted(who.phone)).toBe(3);
      expect(await prefixCounters(setup)).toEqual([{ prefix: '+447400', sends: 2, verified: 0 }]);
    });

    it('refused by disable_signup, a blocked user or a country rule counts its rate limit but no fraud guard send', async () => {
      const closed = await h.loginSetup({ disable_signup: true });
      const stranger = gbCaller(21);
      expect((await startFor(closed, stranger)).body.error_description).toBe('Public signup is disabled');
      const blocked = gbCaller(22);
      expect((await h.management('post', '/users', { connection: closed.connection, phone_number: blocked.phone, blocked: true })).status).toBe(201);
      expect((await startFor(closed, blocked)).status).toBe(401);
      expect(await prefixCounters(closed)).toEqual([]);

      const elsewhere = await h.loginSetup({ allowed_countries: ['FR'] });
      const gb = gbCaller(23);
      expect((await startFor(elsewhere, gb)).status).toBe(400);
      expect(await prefixCounters(elsewhere)).toEqual([]);
      for (const phone of [stranger.phone, blocked.phone, gb.phone]) expect(await startsCounted(phone)).toBe(1);
    });

    it('to a blocked prefix is refused with the block\'s 429 and counts nothing; in monitor mode the same block is not honoured and the send is counted', async () => {
      const guard = { min_sends: 5, min_conversion: 0.5, window_minutes: 60, block_minutes: 30 };
      const blocking = await h.loginSetup({ sms_fraud_guard: { ...guard, mode: 'block' } });
      const monitoring = await h.loginSetup({ sms_fraud_guard: { ...guard, mode: 'monitor' } });
      const until = new Date(h.clock.now().getTime() + 10 * 60_000);
      for (const setup of [blocking, monitoring]) {
        await h.identity.sql.query(
          `INSERT INTO sms_fraud_blocks (connection_id, prefix, blocked_until, created_at, sends, verified) VALUES ($1, '+447400', $2, $3, 50, 0)`,
          [setup.connectionId, until, h.clock.now()],
        );
      }
      const refused = await startFor(blocking, gbCaller(24));
      expect(refused.status).toBe(429);
      expect(refused.body.error_description).toBe('SMS to this number range is temporarily blocked: too few codes sent to it were used');
      expect(Number(refused.headers['retry-after'])).toBe(10 * 60);
      expect(await prefixCounters(blocking)).toEqual([]);

      expect((await startFor(monitoring, gbCaller(25))).status).toBe(200);
      expect(await prefixCounters(monitoring)).toEqual([{ prefix: '+447400', sends: 1, verified: 0 }]);
    });

    it('with velocity limits set counts the fraud guard send after them, and not for a start they refuse', async () => {
      const setup = await h.loginSetup({ sms_velocity_limits: { per_country_per_hour: 1 } });
      expect((await startFor(setup, gbCaller(26))).status).toBe(200);
      expect((await startFor(setup, gbCaller(27))).status).toBe(429);
      expect(await prefixCounters(setup)).toEqual([{ prefix: '+447400', sends: 1, verified: 0 }]);
    });
  });

  // Last: moving the clock a day on expires the harness's management token.
  describe('a later login', () => {
    it('drops the user\'s expired opaque access tokens as it stores the new one', async () => {
      const setup = await h.loginSetup();
      const who = gbCaller(6);
      const first = await h.ro(setup, who, await h.sendCode(setup, who));
      expect(first.status).toBe(200);
      h.clock.advance(86_400 + 60);
      const second = await h.ro(setup, who, await h.sendCode(setup, who));
      expect(second.status).toBe(200);
      expect((await accessTokenRows(setup)).map((r) => r.token_hash)).toEqual([sha256(second.body.access_token)]);
    });
  });
});
