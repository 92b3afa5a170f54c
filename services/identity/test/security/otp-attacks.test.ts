import crypto from 'node:crypto';
import {
  OAuthErrorBodySchema,
  OAuthTokenResponseSchema,
  RoTokenResponseSchema,
  OTP_GRANT_DESCRIPTIONS,
  WRONG_CODE_DESCRIPTION,
} from '@smsauth/contracts';
import { otpMatches, verifyOtp, computeOtp, generateOtpSecret } from '../../src/domain/passwordless/otp';
import { describeOnEachDatabase, FlowHarness, type LoginSetup } from '../passwordless/flow-harness';

/*
 * Attacks on one-time codes over real HTTP (a listening identity app, a recording delivery
 * gateway that the code is read from). What protection.test.ts and login.test.ts already
 * prove on one instance is not repeated here; these add the parallel cases from many
 * addresses, the OTP grant's answers under attack, cross-binding of codes, the expiry
 * instant, spoofed X-Forwarded-For against the IP block and the constant-time compare.
 */

const RO_WRONG = { error: 'invalid_user_password', error_description: WRONG_CODE_DESCRIPTION };
const GRANT_WRONG = { error: 'invalid_grant', error_description: OTP_GRANT_DESCRIPTIONS.wrong };
const GRANT_EXPIRED = { error: 'invalid_grant', error_description: OTP_GRANT_DESCRIPTIONS.expired };
const GRANT_EXHAUSTED = { error: 'invalid_grant', error_description: OTP_GRANT_DESCRIPTIONS.exhausted };
const BLOCKED = {
  error: 'too_many_attempts',
  error_description: 'Your account has been blocked after multiple consecutive login attempts.',
};

/** A 6-digit code that is not `code`. */
function wrongCode(code: string, n = 1): string {
  return String((Number(code) + n) % 1_000_000).padStart(6, '0');
}

function count<T>(items: readonly T[], predicate: (item: T) => boolean): number {
  return items.filter(predicate).length;
}

describeOnEachDatabase('attacks on one-time codes over HTTP', (database) => {
  let h: FlowHarness;
  let setup: LoginSetup;

  beforeAll(async () => {
    // Default limits (BRUTE_FORCE_THRESHOLD 10, start limits 50/IP and 10/number); the
    // harness sends X-Forwarded-For, which TRUST_PROXY makes the client address.
    h = await FlowHarness.start({ TRUST_PROXY: 'true' }, { database });
    setup = await h.loginSetup();
  });
  afterAll(() => h.close());

  const codeRow = async (on: LoginSetup, phone: string) =>
    (
      await h.identity.sql.query<{ attempts: number; used: boolean }>(
        'SELECT attempts, used FROM one_time_codes WHERE connection_id = $1 AND phone_number = $2',
        [on.connectionId, phone],
      )
    ).rows[0];
  const consecutiveFailures = async (phone: string) =>
    (
      await h.identity.sql.query<{ consecutive_failures: number }>(
        'SELECT consecutive_failures FROM login_failures_by_phone WHERE phone_number = $1',
        [phone],
      )
    ).rows[0]?.consecutive_failures ?? 0;
  const ipFailureRows = async (phone: string) =>
    (await h.identity.sql.query<{ failures: number }>('SELECT failures FROM login_failures_by_ip WHERE phone_number = $1', [phone])).rows;
  const logins = async (on: LoginSetup, phone: string) => (await h.identity.store.users.findByPhone(on.connectionId, phone))?.logins_count ?? 0;
  /** `n` distinct client addresses, so the per-IP block cannot decide the outcome. */
  const addresses = (n: number) => Array.from({ length: n }, () => h.caller().ip);

  describe('parallel exchanges of one right code', () => {
    it('gives exactly one of 20 parallel /oauth/ro exchanges from 20 addresses tokens; the other 19 get the wrong-code error', async () => {
      const who = h.caller();
      const code = await h.sendCode(setup, who);
      const results = await Promise.all(addresses(20).map((ip) => h.ro(setup, { ...who, ip }, code)));

      const winners = results.filter((r) => r.status === 200);
      expect(winners).toHaveLength(1);
      expect(RoTokenResponseSchema.parse(winners[0]!.body).id_token).toEqual(expect.any(String));
      const losers = results.filter((r) => r.status !== 200);
      expect(losers.map((r) => r.status)).toEqual(Array(19).fill(401));
      for (const loser of losers) expect(OAuthErrorBodySchema.parse(loser.body)).toEqual(RO_WRONG);

      expect((await codeRow(setup, who.phone))!.used).toBe(true);
      expect(await logins(setup, who.phone)).toBe(1);
    });

    it('gives exactly one of 20 parallel OTP-grant exchanges a verifiable token; the other 19 get 400 invalid_grant', async () => {
      const who = h.caller();
      const code = await h.sendCode(setup, who);
      const results = await Promise.all(addresses(20).map((ip) => h.otp(setup, { ...who, ip }, code, { scope: 'openid phone' })));

      const winners = results.filter((r) => r.status === 200);
      expect(winners).toHaveLength(1);
      const tokens = OAuthTokenResponseSchema.parse(winners[0]!.body);
      const { claims } = await h.verifyWithJwks(tokens.id_token!, setup.clientId);
      expect(claims.phone_number).toBe(who.phone);

      const losers = results.filter((r) => r.status !== 200);
      expect(losers.map((r) => r.status)).toEqual(Array(19).fill(400));
      // A loser that read the row before the winner marked it used sees its 3 attempts
      // taken (a right guess takes one too) and is told so; afterwards it reads as wrong.
      for (const loser of losers) expect([GRANT_WRONG, GRANT_EXHAUSTED]).toContainEqual(OAuthErrorBodySchema.parse(loser.body));

      const row = await codeRow(setup, who.phone);
      expect(row).toMatchObject({ used: true });
      expect(row!.attempts).toBeLessThanOrEqual(3);
      expect(await logins(setup, who.phone)).toBe(1);
    });
  });

  describe('parallel wrong guesses', () => {
    it('compares only 3 of 50 parallel wrong guesses from 50 addresses, counts all 50 and leaves the code dead', async () => {
      const who = h.caller();
      const code = await h.sendCode(setup, who);
      const ips = addresses(50);
      const results = await Promise.all(ips.map((ip, i) => h.otp(setup, { ...who, ip }, wrongCode(code, i + 1))));

      expect(results.map((r) => r.status)).toEqual(Array(50).fill(400));
      const bodies = results.map((r) => OAuthErrorBodySchema.parse(r.body));
      // The 3 guesses that took an attempt were compared and are wrong; every later one
      // found the attempts used up without being compared.
      expect(count(bodies, (b) => b.error_description === GRANT_WRONG.error_description)).toBe(3);
      expect(count(bodies, (b) => b.error_description === GRANT_EXHAUSTED.error_description)).toBe(47);

      expect(await codeRow(setup, who.phone)).toEqual({ attempts: 3, used: false });
      expect(await consecutiveFailures(who.phone)).toBe(50);
      const perIp = await ipFailureRows(who.phone);
      expect(perIp).toHaveLength(50);
      expect(perIp.every((r) => r.failures === 1)).toBe(true);

      const right = await h.otp(setup, { ...who, ip: h.caller().ip }, code);
      expect(right.status).toBe(400);
      expect(right.body).toEqual(GRANT_EXHAUSTED);
      expect(await logins(setup, who.phone)).toBe(0);
    });
  });

  describe('replay and cross-binding', () => {
    it('refuses a code used at /oauth/token when it is replayed at /oauth/token and at /oauth/ro', async () => {
      const who = h.caller();
      const code = await h.sendCode(setup, who);
      expect((await h.otp(setup, who, code)).status).toBe(200);

      const again = await h.otp(setup, who, code);
      expect(again.status).toBe(400);
      // "used" reads as wrong: the answer does not confirm the code was once right.
      expect(again.body).toEqual(GRANT_WRONG);
      const atRo = await h.ro(setup, who, code);
      expect(atRo.status).toBe(401);
      expect(atRo.body).toEqual(RO_WRONG);
      expect(await logins(setup, who.phone)).toBe(1);
    });

    it('refuses the code of connection A on connection B for the same client and number', async () => {
      const client = await h.createClient({ name: 'Two Connections' });
      const connA = await h.createConnection({}, [client.client_id]);
      const connB = await h.createConnection({}, [client.client_id]);
      const onA: LoginSetup = { clientId: client.client_id, clientName: client.name, connection: connA.name, connectionId: connA.id };
      const onB: LoginSetup = { ...onA, connection: connB.name, connectionId: connB.id };
      const who = h.caller();

      const codeA = await h.sendCode(onA, who);
      const noCodeOnB = await h.ro(onB, who, codeA);
      expect(noCodeOnB.status).toBe(401);
      expect(noCodeOnB.body).toEqual(RO_WRONG);

      const codeB = await h.sendCode(onB, who);
      expect(codeB).not.toBe(codeA); // one chance in a million of a spurious failure
      const crossed = await h.otp(onB, who, codeA);
      expect(crossed.status).toBe(400);
      expect(crossed.body).toEqual(GRANT_WRONG);

      // Each code still works where it was issued (the crossed guess took one of B's 3 attempts).
      expect((await h.otp(onB, who, codeB)).status).toBe(200);
      expect((await h.otp(onA, who, codeA)).status).toBe(200);
    });

    it('refuses the code sent to number X when it is presented for number Y', async () => {
      const x = h.caller();
      const y = h.caller();
      const codeX = await h.sendCode(setup, x);

      const yWithoutCode = await h.ro(setup, { ...y, ip: x.ip }, codeX);
      expect(yWithoutCode.status).toBe(401);
      expect(yWithoutCode.body).toEqual(RO_WRONG);

      const codeY = await h.sendCode(setup, y);
      expect(codeY).not.toBe(codeX); // one chance in a million of a spurious failure
      const crossed = await h.otp(setup, { ...y, ip: x.ip }, codeX);
      expect(crossed.status).toBe(400);
      expect(crossed.body).toEqual(GRANT_WRONG);
      expect(await logins(setup, y.phone)).toBe(0);

      expect((await h.otp(setup, y, codeY)).status).toBe(200);
      expect((await h.otp(setup, x, codeX)).status).toBe(200);
    });
  });

  describe('expiry at totp.time_step (injected clock)', () => {
    it('accepts a code 1 ms before time_step and answers "expired" at time_step and after it', async () => {
      const quick = await h.loginSetup({ totp: { time_step: 120, length: 6 } });
      const [early, atStep, late] = [h.caller(), h.caller(), h.caller()];
      const codes = [await h.sendCode(quick, early), await h.sendCode(quick, atStep), await h.sendCode(quick, late)];

      h.clock.advance(119.999);
      const inTime = await h.otp(quick, early, codes[0]!);
      expect(inTime.status).toBe(200);
      OAuthTokenResponseSchema.parse(inTime.body);

      h.clock.advance(0.001); // exactly issued_at + time_step
      const expired = await h.otp(quick, atStep, codes[1]!);
      expect(expired.status).toBe(400);
      expect(expired.body).toEqual(GRANT_EXPIRED);

      h.clock.advance(1);
      const later = await h.otp(quick, late, codes[2]!);
      expect(later.status).toBe(400);
      expect(later.body).toEqual(GRANT_EXPIRED);
      const atRo = await h.ro(quick, late, codes[2]!);
      expect(atRo.status).toBe(401);
      expect(atRo.body).toEqual(RO_WRONG);
      // An expired code is refused before it is compared: no attempt was taken.
      expect((await codeRow(quick, late.phone))!.attempts).toBe(0);
    });
  });

  it(`runs on ${database.name}`, () => {
    expect(h.identity.sql.driver).toBe(database.name === 'PGlite' ? 'pglite' : 'pg');
  });
});

describeOnEachDatabase('the 10-failures-per-IP block against spoofed X-Forwarded-For', (database) => {
  // Both harnesses below share one PostgreSQL schema, and failure counters are per number:
  // each test uses a number of its own.
  /** 10 wrong guesses (default BRUTE_FORCE_THRESHOLD), each with a new spoofed X-Forwarded-For. */
  async function failTenTimes(h: FlowHarness, setup: LoginSetup, phone: string, forwardedFor: (i: number) => string): Promise<void> {
    for (let i = 0; i < 10; i += 1) {
      const res = await h.ro(setup, { phone, ip: forwardedFor(i) }, '000000');
      expect(res.status).toBe(401);
    }
  }

  describe('with TRUST_PROXY off (the default)', () => {
    let h: FlowHarness;
    let setup: LoginSetup;
    beforeAll(async () => {
      h = await FlowHarness.start({}, { database });
      setup = await h.loginSetup();
    });
    afterAll(() => h.close());

    it('ignores X-Forwarded-For: rotating it does not escape the block, which answers 429 too_many_attempts even for the right code', async () => {
      const phone = '+14155559101';
      await failTenTimes(h, setup, phone, (i) => `203.0.113.${i + 1}`);
      const code = await h.sendCode(setup, { phone, ip: '203.0.113.99' });

      const ro = await h.ro(setup, { phone, ip: '203.0.113.200' }, code);
      expect(ro.status).toBe(429);
      expect(ro.body).toEqual(BLOCKED);
      const otp = await h.otp(setup, { phone, ip: '198.51.100.7' }, code);
      expect(otp.status).toBe(429);
      expect(OAuthErrorBodySchema.parse(otp.body).error).toBe('too_many_attempts');
      // One block, for the socket address every request really came from.
      const blocks = await h.management('get', `/user-blocks?identifier=${encodeURIComponent(phone)}`);
      expect(blocks.body.blocked_for).toHaveLength(1);
      expect(blocks.body.blocked_for[0].ip).toMatch(/127\.0\.0\.1$/);
    });
  });

  describe('with TRUST_PROXY=1 (one proxy in front, which appends the real address)', () => {
    let h: FlowHarness;
    let setup: LoginSetup;
    beforeAll(async () => {
      h = await FlowHarness.start({ TRUST_PROXY: '1' }, { database });
      setup = await h.loginSetup();
    });
    afterAll(() => h.close());

    it('uses the address the proxy appended: entries the caller prepends do not escape the block', async () => {
      const phone = '+14155559102';
      const real = '192.0.2.10';
      await failTenTimes(h, setup, phone, (i) => `10.9.8.${i + 1}, ${real}`);
      const code = await h.sendCode(setup, { phone, ip: '192.0.2.99' });

      const spoofed = await h.ro(setup, { phone, ip: `10.9.8.77, ${real}` }, code);
      expect(spoofed.status).toBe(429);
      expect(spoofed.body).toEqual(BLOCKED);
      const blocks = await h.management('get', `/user-blocks?identifier=${encodeURIComponent(phone)}`);
      expect(blocks.body).toEqual({ blocked_for: [{ identifier: phone, ip: real }] });
      // Another real client address is not blocked for the number.
      expect((await h.ro(setup, { phone, ip: `10.9.8.77, 192.0.2.11` }, code)).status).toBe(200);
    });
  });
});

describe('constant-time comparison of codes', () => {
  const params = { issuedAt: new Date('2030-01-01T00:00:00Z'), step: 300, digits: 6 };

  function spyOnTimingSafeEqual() {
    // The module object the source imports from: its named import reads this property.
    return jest.spyOn(crypto, 'timingSafeEqual');
  }
  const equalLengthBuffers = (call: unknown[]) =>
    call.length === 2 && Buffer.isBuffer(call[0]) && Buffer.isBuffer(call[1]) && (call[0] as Buffer).length === (call[1] as Buffer).length;

  it('compares a guess of the right length with crypto.timingSafeEqual on two equal-length buffers, however many digits match', () => {
    const secret = generateOtpSecret();
    const code = computeOtp(secret, params);
    const spy = spyOnTimingSafeEqual();
    try {
      const guesses = [code, `${code.slice(0, 5)}${(Number(code[5]) + 1) % 10}`, `${(Number(code[0]) + 1) % 10}${code.slice(1)}`, wrongCode(code, 500_000)];
      expect(guesses.map((g) => verifyOtp(g, secret, params))).toEqual([true, false, false, false]);
      expect(spy).toHaveBeenCalledTimes(guesses.length);
      for (const call of spy.mock.calls) expect(equalLengthBuffers(call)).toBe(true);
    } finally {
      spy.mockRestore();
    }
  });

  it('still calls crypto.timingSafeEqual on two equal-length buffers when the guess has another length', () => {
    const spy = spyOnTimingSafeEqual();
    try {
      expect(otpMatches('12345', '123456')).toBe(false);
      expect(otpMatches('1234567', '123456')).toBe(false);
      expect(otpMatches('', '123456')).toBe(false);
      expect(spy).toHaveBeenCalledTimes(3);
      for (const call of spy.mock.calls) expect(equalLengthBuffers(call)).toBe(true);
    } finally {
      spy.mockRestore();
    }
  });

  describeOnEachDatabase('on a real exchange', (database) => {
    let h: FlowHarness;
    beforeAll(async () => {
      h = await FlowHarness.start({ TRUST_PROXY: 'true' }, { database });
    });
    afterAll(() => h.close());

    it('compares the code sent to /oauth/ro with crypto.timingSafeEqual', async () => {
      const setup = await h.loginSetup();
      const who = h.caller();
      const code = await h.sendCode(setup, who);
      const spy = spyOnTimingSafeEqual();
      try {
        expect((await h.ro(setup, who, wrongCode(code))).status).toBe(401);
        expect((await h.ro(setup, who, code)).status).toBe(200);
        expect(spy).toHaveBeenCalledTimes(2);
        for (const call of spy.mock.calls) expect(equalLengthBuffers(call)).toBe(true);
      } finally {
        spy.mockRestore();
      }
    });
  });
});
