import { NEW_CONNECTION_SMS_POLICY } from '@smsauth/contracts';
import { adminToken } from '../helpers';
import { FlowHarness, describeOnEachDatabase, type LoginSetup } from '../passwordless/flow-harness';

/*
 * The per-connection SMS policy over HTTP: every field accepting and refusing, refusals that
 * store and send nothing, the fraud guard blocking a pumped prefix (and what lifts a block),
 * test numbers, and what the refusals report (/metrics, one masked log line each).
 */

const GB_MOBILE = (n: number) => `+447400${String(n).padStart(6, '0')}`; // prefix +447400
const FR_MOBILE = '+33612345678';
const DE_MOBILE = '+4915123456789';
const US_PREMIUM = (n: number) => `+1900555${String(n).padStart(4, '0')}`;
const US_PERSONAL = '+15005550006';
const US_FIXED_OR_MOBILE = '+14155550142';

describeOnEachDatabase('per-connection SMS policy', (database) => {
  let h: FlowHarness;
  let nextIp = 0;
  beforeAll(async () => {
    // Attackers rotate addresses; a high per-IP limit keeps these runs about the SMS policy.
    h = await FlowHarness.start({ PASSWORDLESS_START_LIMIT_PER_IP_PER_HOUR: '100000' }, { database });
  });
  afterAll(() => h.close());

  const ip = () => {
    nextIp += 1;
    return `198.19.${Math.floor(nextIp / 250)}.${(nextIp % 250) + 1}`;
  };
  const start = (setup: LoginSetup, phone: string) =>
    h.start({ client_id: setup.clientId, connection: setup.connection, phone_number: phone, send: 'code' }, ip());
  const sentTo = (phone: string) => h.gateway.requests.filter((r) => (JSON.parse(r.body) as { recipient: string }).recipient === phone).length;
  const login = async (setup: LoginSetup, phone: string) => {
    const who = { phone, ip: ip() };
    const code = await h.sendCode(setup, who);
    return h.ro(setup, who, code);
  };
  const metric = async (name: string, labels: string) => {
    const text = (await h.http().get('/metrics')).text;
    const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(labels));
    return line ? Number(line.split(' ').pop()) : 0;
  };

  describe('connection options through /api/v2', () => {
    it('writes the documented defaults into a new connection and shows them', async () => {
      const setup = await h.loginSetup();
      const res = await h.management('get', `/connections/${setup.connectionId}`);
      expect(res.body.options).toMatchObject({
        allowed_number_types: ['MOBILE', 'FIXED_LINE_OR_MOBILE'],
        sms_prefix_digits: 4,
        sms_fraud_guard: { mode: 'block', min_sends: 50, min_conversion: 0.1, window_minutes: 60, block_minutes: 1440 },
      });
      expect(res.body.options.sms_fraud_guard).toEqual(NEW_CONNECTION_SMS_POLICY.sms_fraud_guard);
      expect(res.body.options.allowed_countries).toBeUndefined();
    });

    it.each([
      [{ allowed_countries: ['XX'] }, 'options.allowed_countries.0', 'XX is not a known ISO 3166-1 alpha-2 country code'],
      [{ denied_countries: ['GB', 'gb'] }, 'options.denied_countries.1', 'must be an ISO 3166-1 alpha-2 country code in upper case, like GB'],
      [{ allowed_number_types: ['SATELLITE'] }, 'options.allowed_number_types.0', ''],
      [{ allowed_number_types: [] }, 'options.allowed_number_types', ''],
      [{ sms_prefix_digits: 0 }, 'options.sms_prefix_digits', ''],
      [{ sms_velocity_limits: { per_country_per_hour: -1 } }, 'options.sms_velocity_limits.per_country_per_hour', ''],
      [{ sms_fraud_guard: { mode: 'panic' } }, 'options.sms_fraud_guard.mode', ''],
      [{ sms_fraud_guard: { min_conversion: 1.5 } }, 'options.sms_fraud_guard.min_conversion', ''],
      [{ sms_safe_list: ['0044 7400'] }, 'options.sms_safe_list.0', 'must be an E.164 phone number like +14155550123'],
      [{ sms_test_numbers: [{ phone_number: '+12125550111', code: '12ab' }] }, 'options.sms_test_numbers.0.code', 'must be 4 to 10 digits'],
      [{ sms_safe_list: ['+447400123456', '+15550001111'] }, 'options.sms_safe_list.1', '+15550001111 is not a valid number for +1'],
      [{ sms_test_numbers: [{ phone_number: '+4479', code: '1234' }] }, 'options.sms_test_numbers.0', '+4479 is too short'],
      [{ sms_test_numbers: [{ phone_number: '+12125550111', code: '1234' }, { phone_number: '+12125550111', code: '5678' }] }, 'options.sms_test_numbers', 'lists a phone number twice'],
    ])('refuses a connection with %j, naming the field', async (options, path, message) => {
      const res = await h.management('post', '/connections', { ...connectionBodyFor(h, options) });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_request');
      expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
      if (message) expect(res.body.error_description).toContain(message);
    });

    it('accepts every policy field, merges objects on PATCH and removes a field with null', async () => {
      const setup = await h.loginSetup({
        allowed_countries: ['GB', 'FR'],
        denied_countries: ['RU'],
        allowed_number_types: ['MOBILE'],
        sms_prefix_digits: 3,
        sms_velocity_limits: { per_country_per_hour: 500, per_prefix_per_hour: 50 },
        sms_fraud_guard: { mode: 'monitor', min_sends: 20 },
        sms_safe_list: [GB_MOBILE(1)],
        sms_test_numbers: [{ phone_number: '+12125559999', code: '424242' }],
      });
      const patched = await h.management('patch', `/connections/${setup.connectionId}`, {
        options: { sms_fraud_guard: { mode: 'block' }, sms_velocity_limits: { per_prefix_per_hour: null }, allowed_countries: null },
      });
      expect(patched.status).toBe(200);
      expect(patched.body.options.sms_fraud_guard).toEqual({ mode: 'block', min_sends: 20, min_conversion: 0.1, window_minutes: 60, block_minutes: 1440 });
      expect(patched.body.options.sms_velocity_limits).toEqual({ per_country_per_hour: 500, per_prefix_per_hour: null });
      expect(patched.body.options.allowed_countries).toBeUndefined();
      expect(patched.body.options.denied_countries).toEqual(['RU']);

      const refused = await h.management('patch', `/connections/${setup.connectionId}`, { options: { denied_countries: ['ZZ'] } });
      expect(refused.status).toBe(400);
      expect(refused.body.details[0].path).toBe('options.denied_countries.0');
    });
  });

  describe('countries', () => {
    it('sends to an allowed country and refuses another with 400 bad.phone_number, sending and storing nothing', async () => {
      const setup = await h.loginSetup({ allowed_countries: ['GB'] });
      expect((await login(setup, GB_MOBILE(10))).status).toBe(200);

      const refused = await start(setup, FR_MOBILE);
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({ error: 'bad.phone_number', error_description: 'SMS to this country is not enabled for this connection' });
      expect(sentTo(FR_MOBILE)).toBe(0);
      const conn = await h.identity.store.connections.findByName(setup.connection);
      expect(await h.identity.store.codes.find(conn!.id, FR_MOBILE)).toBeUndefined();
    });

    it('refuses a denied country and sends to the others', async () => {
      const setup = await h.loginSetup({ denied_countries: ['FR'] });
      expect((await start(setup, FR_MOBILE)).body.error_description).toBe('SMS to this country is not enabled for this connection');
      expect((await start(setup, DE_MOBILE)).status).toBe(200);
    });
  });

  describe('number types', () => {
    it('by default refuses premium-rate and personal numbers, naming the type, and sends to mobile and +1 numbers', async () => {
      const setup = await h.loginSetup();
      const premium = await start(setup, US_PREMIUM(1));
      expect(premium.status).toBe(400);
      expect(premium.body.error).toBe('bad.phone_number');
      expect(premium.body.error_description).toContain('PREMIUM_RATE');
      expect((await start(setup, US_PERSONAL)).body.error_description).toContain('PERSONAL_NUMBER');
      expect(sentTo(US_PREMIUM(1)) + sentTo(US_PERSONAL)).toBe(0);
      expect((await start(setup, GB_MOBILE(20))).status).toBe(200);
      // +1 numbers cannot be told apart: FIXED_LINE_OR_MOBILE is allowed by default.
      expect((await start(setup, US_FIXED_OR_MOBILE)).status).toBe(200);
    });

    it('sends to a type the connection lists', async () => {
      const setup = await h.loginSetup({ allowed_number_types: ['MOBILE', 'PREMIUM_RATE'] });
      expect((await start(setup, US_PREMIUM(2))).status).toBe(200);
      expect((await start(setup, US_FIXED_OR_MOBILE)).body.error_description).toContain('FIXED_LINE_OR_MOBILE');
    });
  });

  describe('velocity limits', () => {
    it('answers 429 with X-RateLimit-* past the per-country limit, while other countries still get codes', async () => {
      const setup = await h.loginSetup({ sms_velocity_limits: { per_country_per_hour: 2 } });
      expect((await start(setup, GB_MOBILE(30))).status).toBe(200);
      expect((await start(setup, '+447911123456')).status).toBe(200); // GG shares +44 but is its own country
      expect((await start(setup, GB_MOBILE(31))).status).toBe(200);
      const refused = await start(setup, GB_MOBILE(32));
      expect(refused.status).toBe(429);
      expect(refused.body.error).toBe('too_many_requests');
      expect(refused.headers).toMatchObject({ 'x-ratelimit-limit': '2', 'x-ratelimit-remaining': '0' });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(sentTo(GB_MOBILE(32))).toBe(0);
      expect((await start(setup, FR_MOBILE)).status).toBe(200);
      // A new hour, a new allowance.
      h.clock.advance(3600);
      expect((await start(setup, GB_MOBILE(33))).status).toBe(200);
    });

    it('limits one prefix (country code and sms_prefix_digits digits) and not its neighbours', async () => {
      const setup = await h.loginSetup({ sms_prefix_digits: 4, sms_velocity_limits: { per_prefix_per_hour: 2 } });
      expect((await start(setup, GB_MOBILE(40))).status).toBe(200);
      expect((await start(setup, GB_MOBILE(41))).status).toBe(200);
      expect((await start(setup, GB_MOBILE(42))).status).toBe(429);
      expect((await start(setup, '+447401000042')).status).toBe(200);
    });

    it('never throttles a number on the safe list', async () => {
      const safe = GB_MOBILE(50);
      const setup = await h.loginSetup({ sms_velocity_limits: { per_prefix_per_hour: 1 }, sms_safe_list: [safe] });
      expect((await start(setup, GB_MOBILE(51))).status).toBe(200);
      expect((await start(setup, GB_MOBILE(52))).status).toBe(429);
      for (let i = 0; i < 3; i++) expect((await start(setup, safe)).status).toBe(200);
    });
  });

  describe('fraud guard', () => {
    const guard = { mode: 'block', min_sends: 5, min_conversion: 0.5, window_minutes: 60, block_minutes: 30 };

    it('blocks a prefix whose codes are sent and never used, lists the block, and lets it expire by itself', async () => {
      const setup = await h.loginSetup({ sms_fraud_guard: guard });
      for (let i = 0; i < 5; i++) expect((await start(setup, GB_MOBILE(100 + i))).status).toBe(200);
      const refused = await start(setup, GB_MOBILE(105));
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({ error: 'too_many_requests', error_description: 'SMS to this number range is temporarily blocked: too few codes sent to it were used' });
      expect(Number(refused.headers['retry-after'])).toBe(30 * 60);
      expect(sentTo(GB_MOBILE(105))).toBe(0);

      const blocks = await h.management('get', `/connections/${setup.connectionId}/sms-fraud-blocks`);
      expect(blocks.status).toBe(200);
      expect(blocks.body.blocks).toEqual([
        { prefix: '+447400', sends: 5, verified: 0, created_at: h.clock.now().toISOString(), blocked_until: new Date(h.clock.now().getTime() + 30 * 60_000).toISOString() },
      ]);
      // Another prefix and another country are untouched.
      expect((await login(setup, FR_MOBILE)).status).toBe(200);
      expect((await start(setup, '+447401000001')).status).toBe(200);

      h.clock.advance(30 * 60);
      expect((await start(setup, GB_MOBILE(106))).status).toBe(200);
      expect((await h.management('get', `/connections/${setup.connectionId}/sms-fraud-blocks`)).body.blocks).toEqual([]);
    });

    it('keeps a prefix open while its codes are used', async () => {
      const setup = await h.loginSetup({ sms_fraud_guard: guard });
      for (let i = 0; i < 8; i++) expect((await login(setup, GB_MOBILE(200 + i))).status).toBe(200);
    });

    it('lifts a block through DELETE /api/v2/connections/{id}/sms-fraud-blocks/{prefix}, and 404s when none is in force', async () => {
      const setup = await h.loginSetup({ sms_fraud_guard: guard });
      for (let i = 0; i < 6; i++) await start(setup, GB_MOBILE(300 + i));
      expect((await start(setup, GB_MOBILE(310))).status).toBe(429);
      const path = `/connections/${setup.connectionId}/sms-fraud-blocks/${encodeURIComponent('+447400')}`;
      expect((await h.management('delete', path)).status).toBe(204);
      expect((await start(setup, GB_MOBILE(311))).status).toBe(200);
      expect((await h.management('delete', path)).status).toBe(404);
      expect((await h.management('get', '/connections/con_missing/sms-fraud-blocks')).status).toBe(404);
    });

    it('lists and lifts blocks only with read:sms_fraud_blocks / delete:sms_fraud_blocks', async () => {
      const setup = await h.loginSetup();
      const reader = await adminToken(h.identity.app, 'read:sms_fraud_blocks update:connections');
      const list = await h.http().get(`/api/v2/connections/${setup.connectionId}/sms-fraud-blocks`).set('authorization', `Bearer ${reader}`);
      expect(list.status).toBe(200);
      const lift = await h.http().delete(`/api/v2/connections/${setup.connectionId}/sms-fraud-blocks/%2B447400`).set('authorization', `Bearer ${reader}`);
      expect(lift.status).toBe(403);
      expect(lift.body.error).toBe('insufficient_scope');
    });

    it('never blocks a number on the safe list', async () => {
      const safe = GB_MOBILE(450);
      const setup = await h.loginSetup({ sms_fraud_guard: guard, sms_safe_list: [safe] });
      for (let i = 0; i < 6; i++) await start(setup, GB_MOBILE(400 + i));
      expect((await start(setup, GB_MOBILE(410))).status).toBe(429);
      expect((await login(setup, safe)).status).toBe(200);
    });

    it('in monitor mode counts and reports a pumped prefix but never refuses', async () => {
      const setup = await h.loginSetup({ sms_fraud_guard: { ...guard, mode: 'monitor' } });
      const before = await metric('sms_fraud_guard_detections_total', 'mode="monitor"');
      for (let i = 0; i < 12; i++) expect((await start(setup, GB_MOBILE(500 + i))).status).toBe(200);
      expect(await metric('sms_fraud_guard_detections_total', 'mode="monitor"')).toBe(before + 7);
      expect(h.identity.logs()).toContain('SMS fraud guard (monitor)');
      expect((await h.management('get', `/connections/${setup.connectionId}/sms-fraud-blocks`)).body.blocks).toEqual([]);
    });

    it('with mode off counts nothing and never refuses', async () => {
      const setup = await h.loginSetup({ sms_fraud_guard: { ...guard, mode: 'off' } });
      for (let i = 0; i < 10; i++) expect((await start(setup, GB_MOBILE(600 + i))).status).toBe(200);
    });
  });

  describe('a pumping run', () => {
    it('over a range of valid mobile numbers that never verify: blocked after the configured volume, while a user in another country logs in', async () => {
      const setup = await h.loginSetup({ sms_fraud_guard: { mode: 'block', min_sends: 20, min_conversion: 0.2, window_minutes: 60, block_minutes: 60 } });
      const sentBefore = h.gateway.requests.length;
      const statuses: number[] = [];
      for (let i = 0; i < 300; i++) {
        statuses.push((await start(setup, GB_MOBILE(10_000 + i * 7))).status);
        // The attack does not stop a real user elsewhere.
        if (i === 150) expect((await login(setup, DE_MOBILE)).status).toBe(200);
      }
      expect(statuses.filter((s) => s === 200)).toHaveLength(20);
      expect(statuses.slice(20).every((s) => s === 429)).toBe(true);
      expect(h.gateway.requests.length - sentBefore).toBe(20 + 1); // the pump's 20 and the real user's code
    });

    it('over one premium range: every start refused by number type, nothing sent', async () => {
      const setup = await h.loginSetup();
      const sentBefore = h.gateway.requests.length;
      const before = await metric('sms_start_refusals_total', 'reason="number_type"');
      for (let i = 0; i < 200; i++) expect((await start(setup, US_PREMIUM(1000 + i))).status).toBe(400);
      expect(h.gateway.requests.length).toBe(sentBefore);
      expect(await metric('sms_start_refusals_total', 'reason="number_type"')).toBe(before + 200);
    });

    it('thousands of earlier unverified sends (pre-seeded in the store) block the prefix at the next start', async () => {
      const setup = await h.loginSetup({ allowed_number_types: ['PREMIUM_RATE'] });
      const now = h.clock.now();
      const windowStart = new Date(Math.floor(now.getTime() / 3_600_000) * 3_600_000);
      await h.identity.sql.query(
        `INSERT INTO sms_prefix_counters (connection_id, prefix, window_start, sends, verified) VALUES ($1, '+19005', $2, 5000, 3)`,
        [setup.connectionId, windowStart],
      );
      expect((await start(setup, US_PREMIUM(77))).status).toBe(429);
      expect((await h.management('get', `/connections/${setup.connectionId}/sms-fraud-blocks`)).body.blocks[0]).toMatchObject({ prefix: '+19005', sends: 5000, verified: 3 });
    });
  });

  describe('connections created before the SMS policy', () => {
    it('keep working unchanged: every type, no limits, the fraud guard only monitoring', async () => {
      const setup = await h.loginSetup();
      // Written as an older version wrote it: no policy fields in the options.
      const stored = (await h.identity.store.connections.findByName(setup.connection))!;
      const legacy = { ...stored.options };
      for (const key of ['allowed_number_types', 'sms_prefix_digits', 'sms_fraud_guard'] as const) delete legacy[key];
      await h.identity.sql.query(`UPDATE connections SET options = $2::jsonb WHERE id = $1`, [stored.id, JSON.stringify(legacy)]);

      expect((await start(setup, US_PREMIUM(3))).status).toBe(200);
      expect((await login(setup, '+14155550143')).status).toBe(200);
      for (let i = 0; i < 60; i++) expect((await start(setup, GB_MOBILE(700 + i))).status).toBe(200);
      expect((await h.management('get', `/connections/${setup.connectionId}/sms-fraud-blocks`)).body.blocks).toEqual([]);
    });
  });

  describe('test numbers', () => {
    const testNumber = '+12125550199';

    it('log in with the fixed code, get no SMS, skip every limit, and are logged and counted', async () => {
      const setup = await h.loginSetup({
        sms_test_numbers: [{ phone_number: testNumber, code: '246810' }],
        sms_velocity_limits: { per_country_per_hour: 1 },
      });
      const before = await metric('sms_test_number_uses_total', 'step="start"');
      // More than PASSWORDLESS_START_LIMIT_PER_PHONE_PER_HOUR (10).
      for (let i = 0; i < 12; i++) expect((await start(setup, testNumber)).status).toBe(200);
      expect(sentTo(testNumber)).toBe(0);
      const who = { phone: testNumber, ip: ip() };
      expect((await h.ro(setup, who, '000000')).status).toBe(401);
      const res = await h.ro(setup, who, '246810');
      expect(res.status).toBe(200);
      expect(res.body.id_token).toBeDefined();
      expect(await metric('sms_test_number_uses_total', 'step="start"')).toBe(before + 12);
      expect(await metric('sms_test_number_uses_total', 'step="login"')).toBeGreaterThanOrEqual(1);
      expect(h.identity.logs()).toContain('test number start: no SMS sent');
    });

    it('need a start first: the fixed code alone logs nobody in', async () => {
      const setup = await h.loginSetup({ sms_test_numbers: [{ phone_number: testNumber, code: '135790' }] });
      expect((await h.ro(setup, { phone: testNumber, ip: ip() }, '135790')).status).toBe(401);
    });
  });

  describe('what refusals report', () => {
    it('counts every refusal by reason (per-IP and per-number 429s as rate_limit) with one masked log line each', async () => {
      const setup = await h.loginSetup({ allowed_countries: ['GB'] });
      const country = await metric('sms_start_refusals_total', 'reason="country"');
      const rateLimit = await metric('sms_start_refusals_total', 'reason="rate_limit"');
      await start(setup, FR_MOBILE);
      const phone = GB_MOBILE(900);
      for (let i = 0; i < 11; i++) await start(setup, phone); // PASSWORDLESS_START_LIMIT_PER_PHONE_PER_HOUR=10
      expect(await metric('sms_start_refusals_total', 'reason="country"')).toBe(country + 1);
      expect(await metric('sms_start_refusals_total', 'reason="rate_limit"')).toBe(rateLimit + 1);
      const logs = h.identity.logs();
      expect(logs).toContain('passwordless start refused before sending');
      expect(logs).toContain('rate_limit');
      expect(logs).toContain('***0900');
      expect(logs).toContain('***5678');
      expect(logs).not.toContain(FR_MOBILE);
      expect(logs).not.toContain(FR_MOBILE.slice(1));
    });
  });
});

function connectionBodyFor(h: FlowHarness, options: Record<string, unknown>): Record<string, unknown> {
  return {
    options: {
      name: `sms-${Math.random().toString(36).slice(2, 10)}`,
      strategy: 'sms',
      provider: 'sms_gateway',
      gateway_url: h.gateway.url(),
      template: 'Your code is @@password@@',
      ...options,
    },
  };
}
