import { DeliveryRequestSchema, OAuthErrorBodySchema, StartResponseSchema, WRONG_CODE_DESCRIPTION } from '@smsauth/contracts';
import type { Response } from 'supertest';
import { describeOnEachDatabase, FlowHarness, type LoginSetup } from '../passwordless/flow-harness';

/*
 * User enumeration through /passwordless/start and the code exchanges. Without
 * disable_signup every number may sign up, so start must not tell a number with a user
 * from one without. With disable_signup the hosted product answers an unknown number with
 * 400 bad.connection "Public signup is disabled" (behaviour.md) and we do the same: that
 * difference is the documented trade-off, recorded here so any change to it is seen.
 */

/** Headers that differ between any two responses: when, which request, and a hash of the body. */
const PER_RESPONSE_HEADERS = ['date', 'x-request-id', 'etag'];

/** What an observer can compare: status, body (the random _id and the echoed number masked) and headers. */
function observable(res: Response) {
  const headers = Object.fromEntries(Object.entries(res.headers).filter(([name]) => !PER_RESPONSE_HEADERS.includes(name)));
  const body = res.status === 200 ? { ...StartResponseSchema.parse(res.body), _id: '<id>', phone_number: '<number>' } : res.body;
  return { status: res.status, body, headers };
}

describeOnEachDatabase('user enumeration', (database) => {
  let h: FlowHarness;

  beforeAll(async () => {
    h = await FlowHarness.start({ TRUST_PROXY: 'true' }, { database });
  });
  afterAll(() => h.close());

  const startFor = (on: LoginSetup, who: { phone: string; ip: string }) =>
    h.start({ client_id: on.clientId, connection: on.connection, phone_number: who.phone, send: 'code' }, who.ip);
  const messagesTo = (phone: string) => h.gateway.requests.filter((r) => DeliveryRequestSchema.parse(JSON.parse(r.body)).recipient === phone);

  /** A number with a user (one start, one login) and one without (one start, no login): equal counters. */
  async function knownAndUnknown(on: LoginSetup) {
    const known = h.caller();
    const unknown = h.caller();
    expect((await h.ro(on, known, await h.sendCode(on, known))).status).toBe(200);
    expect((await startFor(on, unknown)).status).toBe(200);
    expect(await h.identity.store.users.findByPhone(on.connectionId, known.phone)).toBeDefined();
    expect(await h.identity.store.users.findByPhone(on.connectionId, unknown.phone)).toBeUndefined();
    return { known, unknown };
  }

  describe('without disable_signup', () => {
    let open: LoginSetup;
    beforeAll(async () => {
      open = await h.loginSetup({ disable_signup: false });
    });

    it('answers /passwordless/start identically for a number with a user and one without (status, body, headers)', async () => {
      const { known, unknown } = await knownAndUnknown(open);
      // Fresh client addresses for both, so the per-IP counters are equal too.
      const forKnown = await startFor(open, { phone: known.phone, ip: h.caller().ip });
      const forUnknown = await startFor(open, { phone: unknown.phone, ip: h.caller().ip });

      expect(forKnown.status).toBe(200);
      expect(observable(forKnown)).toEqual(observable(forUnknown));
      // Both got an SMS of the same shape.
      const [toKnown, toUnknown] = [known.phone, unknown.phone].map((phone) => DeliveryRequestSchema.parse(JSON.parse(messagesTo(phone).at(-1)!.body)));
      expect(toKnown!.body.replace(/\d+/g, '#')).toBe(toUnknown!.body.replace(/\d+/g, '#'));
    });

    it('answers a wrong code for a number with a user as it answers any code for a number without one', async () => {
      const { known, unknown } = await knownAndUnknown(open);
      await h.sendCode(open, known);
      const never = h.caller(); // never started, never logged in
      const ro = await Promise.all([known, unknown, never].map((who) => h.ro(open, who, '000000')));
      const otp = await Promise.all([known, unknown, never].map((who) => h.otp(open, who, '000000')));
      for (const res of ro) expect(observable(res)).toEqual(observable(ro[0]!));
      for (const res of otp) expect(observable(res)).toEqual(observable(otp[0]!));
      expect(ro[0]!.status).toBe(401);
      expect(OAuthErrorBodySchema.parse(ro[0]!.body).error_description).toBe(WRONG_CODE_DESCRIPTION);
      expect(otp[0]!.body).toEqual({ error: 'invalid_grant', error_description: WRONG_CODE_DESCRIPTION });
    });
  });

  describe('with disable_signup (the documented trade-off)', () => {
    let closed: LoginSetup;
    beforeAll(async () => {
      closed = await h.loginSetup({ disable_signup: false });
    });

    it('tells a number with a user (200, SMS sent) from one without (400 bad.connection, nothing sent)', async () => {
      // The users sign up while signup is open; then the connection closes signup.
      const { known, unknown } = await knownAndUnknown(closed);
      const patched = await h.management('patch', `/connections/${closed.connectionId}`, { options: { disable_signup: true } });
      expect(patched.status).toBe(200);
      const sentBefore = messagesTo(unknown.phone).length;

      const forKnown = await startFor(closed, { phone: known.phone, ip: h.caller().ip });
      const forUnknown = await startFor(closed, { phone: unknown.phone, ip: h.caller().ip });

      expect(forKnown.status).toBe(200);
      expect(StartResponseSchema.parse(forKnown.body)).toMatchObject({ phone_number: known.phone, phone_verified: true });
      expect(forUnknown.status).toBe(400);
      expect(OAuthErrorBodySchema.parse(forUnknown.body)).toEqual({ error: 'bad.connection', error_description: 'Public signup is disabled' });
      expect(messagesTo(unknown.phone)).toHaveLength(sentBefore);
      // The refusal comes after the start was counted: probing still spends the rate limits.
      expect(forUnknown.headers['x-ratelimit-remaining']).toBe(forKnown.headers['x-ratelimit-remaining']);
    });

    it('still answers the code exchanges identically for a number with a user and one without', async () => {
      const signup = await h.loginSetup({ disable_signup: false });
      const { known, unknown } = await knownAndUnknown(signup);
      expect((await h.management('patch', `/connections/${signup.connectionId}`, { options: { disable_signup: true } })).status).toBe(200);
      await h.sendCode(signup, known);
      const ro = await Promise.all([known, unknown].map((who) => h.ro(signup, who, '000000')));
      const otp = await Promise.all([known, unknown].map((who) => h.otp(signup, who, '000000')));
      expect(observable(ro[0]!)).toEqual(observable(ro[1]!));
      expect(observable(otp[0]!)).toEqual(observable(otp[1]!));
      expect(otp[0]!.body).toEqual({ error: 'invalid_grant', error_description: WRONG_CODE_DESCRIPTION });
    });
  });
});
