import { describeOnEachDatabase, FlowHarness, type LoginSetup } from './flow-harness';

const WRONG = { error: 'invalid_user_password', error_description: 'Wrong phone number or verification code.' };
const BLOCKED = {
  error: 'too_many_attempts',
  error_description: 'Your account has been blocked after multiple consecutive login attempts.',
};

/** A 6-digit code that is not `code`. */
function wrongCode(code: string, n = 1): string {
  return String((Number(code) + n) % 1_000_000).padStart(6, '0');
}

describeOnEachDatabase('one-time codes, brute-force protection and rate limits', (database) => {
  let h: FlowHarness;
  let setup: LoginSetup;

  beforeAll(async () => {
    h = await FlowHarness.start(
      {
        TRUST_PROXY: 'true',
        KEY_ENCRYPTION_SECRET: 'k'.repeat(40),
        PASSWORDLESS_START_LIMIT_PER_IP_PER_HOUR: '5',
        PASSWORDLESS_START_LIMIT_PER_PHONE_PER_HOUR: '3',
        BRUTE_FORCE_THRESHOLD: '10',
        BRUTE_FORCE_BLOCK_SECONDS: '600',
      },
      { database },
    );
    setup = await h.loginSetup();
  });
  afterAll(() => h.close());

  const codeRow = async (phone: string) =>
    (await h.identity.sql.query<{ attempts: number; used: boolean; secret: string }>(
      'SELECT attempts, used, secret FROM one_time_codes WHERE connection_id = $1 AND phone_number = $2',
      [setup.connectionId, phone],
    )).rows[0];
  const failuresByIp = async (phone: string, ip: string) =>
    (await h.identity.sql.query<{ failures: number }>('SELECT failures FROM login_failures_by_ip WHERE phone_number = $1 AND ip = $2', [phone, ip])).rows[0]?.failures ?? 0;
  const consecutiveFailures = async (phone: string) =>
    (await h.identity.sql.query<{ consecutive_failures: number }>('SELECT consecutive_failures FROM login_failures_by_phone WHERE phone_number = $1', [phone])).rows[0]
      ?.consecutive_failures ?? 0;

  describe('codes', () => {
    it('rejects a code that was already used', async () => {
      const who = h.caller();
      const code = await h.sendCode(setup, who);
      expect((await h.ro(setup, who, code)).status).toBe(200);
      const again = await h.ro(setup, who, code);
      expect(again.status).toBe(401);
      expect(again.body).toEqual(WRONG);
    });

    it('accepts only the newest code: a new start invalidates the previous one', async () => {
      const who = h.caller();
      const first = await h.sendCode(setup, who);
      const second = await h.sendCode(setup, who);
      expect(second).not.toBe(first); // one chance in a million of a spurious failure
      expect((await h.ro(setup, who, first)).status).toBe(401);
      expect((await h.ro(setup, who, second)).status).toBe(200);
    });

    it('kills a code after 3 wrong attempts, even for the right code afterwards', async () => {
      const who = h.caller();
      const code = await h.sendCode(setup, who);
      for (let i = 1; i <= 3; i += 1) expect((await h.ro(setup, who, wrongCode(code, i))).status).toBe(401);
      const right = await h.ro(setup, who, code);
      expect(right.status).toBe(401);
      expect(right.body).toEqual(WRONG);
    });

    it('still accepts the right code after 2 wrong attempts', async () => {
      const who = h.caller();
      const code = await h.sendCode(setup, who);
      for (let i = 1; i <= 2; i += 1) expect((await h.ro(setup, who, wrongCode(code, i))).status).toBe(401);
      expect((await h.ro(setup, who, code)).status).toBe(200);
    });

    it('accepts a code until time_step seconds have passed and refuses it from then on', async () => {
      const quick = await h.loginSetup({ totp: { time_step: 60, length: 6 } });
      const a = h.caller();
      const b = h.caller();
      const codeA = await h.sendCode(quick, a);
      const codeB = await h.sendCode(quick, b);
      h.clock.advance(59);
      expect((await h.ro(quick, a, codeA)).status).toBe(200);
      h.clock.advance(1);
      const late = await h.ro(quick, b, codeB);
      expect(late.status).toBe(401);
      expect(late.body).toEqual(WRONG);
    });

    it('refuses a code with trailing characters that a lenient parseInt compare would accept', async () => {
      const who = h.caller();
      const code = await h.sendCode(setup, who);
      expect((await h.ro(setup, who, `${code}x`)).status).toBe(401);
      expect((await h.ro(setup, who, ` ${code}`)).status).toBe(401);
      expect((await h.ro(setup, who, code)).status).toBe(200);
    });

    it('uses codes of totp.length digits', async () => {
      const long = await h.loginSetup({ totp: { time_step: 300, length: 8 } });
      const who = h.caller();
      const code = await h.sendCode(long, who);
      expect(code).toMatch(/^\d{8}$/);
      expect((await h.ro(long, who, code)).status).toBe(200);
    });

    it('binds a code to the client that started the login', async () => {
      const other = await h.createClient({ name: 'Other App' });
      await h.management('patch', `/connections/${setup.connectionId}`, { enabled_clients: [setup.clientId, other.client_id] });
      const who = h.caller();
      const code = await h.sendCode(setup, who);
      expect((await h.ro({ ...setup, clientId: other.client_id }, who, code)).status).toBe(401);
      expect((await h.ro(setup, who, code)).status).toBe(200);
    });

    it('stores the code secret encrypted when KEY_ENCRYPTION_SECRET is set', async () => {
      const who = h.caller();
      const code = await h.sendCode(setup, who);
      const row = await codeRow(who.phone);
      expect(row!.secret).toMatch(/^aes256gcm:v2:[0-9a-f]{8}:/);
      expect(row!.secret).not.toContain(code);
    });
  });

  describe('parallel exchanges', () => {
    it('gives exactly one success to 20 parallel exchanges of one code', async () => {
      // Without IP blocking, so the 19 refusals cannot turn into 429s mid-burst.
      const open = await h.loginSetup({ brute_force_protection: false });
      const who = h.caller();
      const code = await h.sendCode(open, who);
      const results = await Promise.all(Array.from({ length: 20 }, () => h.ro(open, who, code)));
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s === 401)).toHaveLength(19);
      const user = await h.identity.store.users.findByPhone(open.connectionId, who.phone);
      expect(user!.logins_count).toBe(1);
      expect((await h.identity.store.codes.find(open.connectionId, who.phone))!.used).toBe(true);
    });

    it('keeps the counters exact under 50 parallel wrong guesses and leaves the code dead after 3', async () => {
      const who = h.caller();
      const code = await h.sendCode(setup, who);
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => h.ro(setup, who, wrongCode(code, i + 1))));
      const rejected = results.filter((r) => r.status === 401).length;
      const blocked = results.filter((r) => r.status === 429).length;
      expect(rejected + blocked).toBe(50);
      // Every guess that was checked is counted once, however they interleaved; at least
      // the threshold were checked before the IP block took effect.
      expect(rejected).toBeGreaterThanOrEqual(10);
      expect(await failuresByIp(who.phone, who.ip)).toBe(rejected);
      expect(await consecutiveFailures(who.phone)).toBe(rejected);
      expect((await codeRow(who.phone))!.attempts).toBe(3);
      // The code is dead for everyone, also from an address that is not blocked.
      expect((await h.ro(setup, { ...who, ip: h.caller().ip }, code)).status).toBe(401);
    });
  });

  describe('brute-force protection', () => {
    async function failTimes(who: { phone: string; ip: string }, times: number, on: LoginSetup = setup): Promise<void> {
      for (let i = 0; i < times; i += 1) expect((await h.ro(on, who, '000000')).status).toBe(401);
    }

    it('blocks an IP for a number after 10 failures from it, even with the right code; other IPs still log in', async () => {
      const who = h.caller();
      await h.sendCode(setup, who);
      await failTimes(who, 10);
      const code = await h.sendCode(setup, who);
      const blocked = await h.ro(setup, who, code);
      expect(blocked.status).toBe(429);
      expect(blocked.body).toEqual(BLOCKED);
      const otp = await h.otp(setup, who, code);
      expect(otp.status).toBe(429);
      expect(otp.body.error).toBe('too_many_attempts');

      const blocks = await h.management('get', `/user-blocks?identifier=${encodeURIComponent(who.phone)}`);
      expect(blocks.body).toEqual({ blocked_for: [{ identifier: who.phone, ip: who.ip }] });
      // The blocked requests did not spend the code: another address can still use it.
      const elsewhere = { ...who, ip: h.caller().ip };
      expect((await h.ro(setup, elsewhere, code)).status).toBe(200);
    });

    it('lifts the block when BRUTE_FORCE_BLOCK_SECONDS have passed', async () => {
      const longLived = await h.loginSetup({ totp: { time_step: 3600, length: 6 } });
      const who = h.caller();
      await failTimes(who, 10, longLived);
      const code = await h.sendCode(longLived, who);
      h.clock.advance(599);
      expect((await h.ro(longLived, who, code)).status).toBe(429);
      h.clock.advance(1);
      expect((await h.ro(longLived, who, code)).status).toBe(200);
    });

    it('lets an admin lift the block with DELETE /api/v2/user-blocks', async () => {
      const who = h.caller();
      await failTimes(who, 10);
      const code = await h.sendCode(setup, who);
      expect((await h.ro(setup, who, code)).status).toBe(429);
      const unblock = await h.management('delete', `/user-blocks?identifier=${encodeURIComponent(who.phone)}`);
      expect(unblock.status).toBe(204);
      expect((await h.ro(setup, who, code)).status).toBe(200);
    });

    it('resets the counters of the number and the IP after a success', async () => {
      const who = h.caller();
      await failTimes(who, 9);
      expect(await failuresByIp(who.phone, who.ip)).toBe(9);
      expect(await consecutiveFailures(who.phone)).toBe(9);
      expect((await h.ro(setup, who, await h.sendCode(setup, who))).status).toBe(200);
      expect(await failuresByIp(who.phone, who.ip)).toBe(0);
      expect(await consecutiveFailures(who.phone)).toBe(0);
      await failTimes(who, 9);
      expect((await h.ro(setup, who, await h.sendCode(setup, who))).status).toBe(200);
    });

    it('does not block an IP when the connection turns brute-force protection off', async () => {
      const open = await h.loginSetup({ brute_force_protection: false });
      const who = h.caller();
      for (let i = 0; i < 12; i += 1) expect((await h.ro(open, who, '000000')).status).toBe(401);
      expect((await h.ro(open, who, await h.sendCode(open, who))).status).toBe(200);
    });

    it('locks a number after 100 consecutive failures from any IPs until an admin unblocks it', async () => {
      const who = h.caller();
      for (let batch = 0; batch < 5; batch += 1) {
        const results = await Promise.all(Array.from({ length: 20 }, () => h.ro(setup, { ...who, ip: h.caller().ip }, '000000')));
        expect(results.map((r) => r.status)).toEqual(Array(20).fill(401));
      }
      expect(await consecutiveFailures(who.phone)).toBe(100);
      const code = await h.sendCode(setup, { ...who, ip: h.caller().ip });
      const fresh = { ...who, ip: h.caller().ip };
      const locked = await h.ro(setup, fresh, code);
      expect(locked.status).toBe(429);
      expect(locked.body).toEqual(BLOCKED);
      const blocks = await h.management('get', `/user-blocks?identifier=${encodeURIComponent(who.phone)}`);
      expect(blocks.body.blocked_for).toContainEqual({ identifier: who.phone });

      expect((await h.management('delete', `/user-blocks?identifier=${encodeURIComponent(who.phone)}`)).status).toBe(204);
      expect((await h.ro(setup, fresh, code)).status).toBe(200);
    });
  });

  describe('start rate limits', () => {
    const startFor = (phone: string, ip: string) =>
      h.start({ client_id: setup.clientId, connection: setup.connection, phone_number: phone, send: 'code' }, ip);

    it('limits starts per IP per hour, with X-RateLimit headers on every answer', async () => {
      const { ip } = h.caller();
      const reset = String(Math.ceil(h.clock.now().getTime() / 3_600_000) * 3600);
      for (let i = 1; i <= 5; i += 1) {
        const res = await startFor(h.caller().phone, ip);
        expect(res.status).toBe(200);
        expect(res.headers['x-ratelimit-limit']).toBe(i <= 2 ? '3' : '5'); // the per-phone limit binds first
        expect(res.headers['x-ratelimit-reset']).toBe(reset);
      }
      const sent = h.gateway.requests.length;
      const refused = await startFor(h.caller().phone, ip);
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({ error: 'too_many_requests', error_description: 'Too many requests. Please try again later.' });
      expect(refused.headers['x-ratelimit-limit']).toBe('5');
      expect(refused.headers['x-ratelimit-remaining']).toBe('0');
      expect(refused.headers['x-ratelimit-reset']).toBe(reset);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(h.gateway.requests.length).toBe(sent);
    });

    it('limits starts per phone number per hour, from any IPs, and allows them again in the next hour', async () => {
      const { phone } = h.caller();
      const remaining: string[] = [];
      for (let i = 1; i <= 3; i += 1) {
        const res = await startFor(phone, h.caller().ip);
        expect(res.status).toBe(200);
        remaining.push(res.headers['x-ratelimit-remaining'] as string);
      }
      expect(remaining).toEqual(['2', '1', '0']);
      const refused = await startFor(phone, h.caller().ip);
      expect(refused.status).toBe(429);
      expect(refused.headers['x-ratelimit-limit']).toBe('3');
      expect(refused.body.error).toBe('too_many_requests');

      h.clock.advance(3600);
      expect((await startFor(phone, h.caller().ip)).status).toBe(200);
    });
  });

  it(`runs on ${database.name}`, () => {
    expect(h.identity.sql.driver).toBe(database.name === 'PGlite' ? 'pglite' : 'pg');
  });
});
