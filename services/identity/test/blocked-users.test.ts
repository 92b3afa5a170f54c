import { authorizeQuery, CALLBACK, fragmentOf, LoginSession } from './authorize/login-session';
import { describeOnEachDatabase, FlowHarness, type LoginSetup } from './passwordless/flow-harness';

const BLOCKED = { error: 'unauthorized', error_description: 'user is blocked' };

describeOnEachDatabase('users created and blocked through the management API', (database) => {
  let h: FlowHarness;
  let open: LoginSetup;
  let closed: LoginSetup;

  beforeAll(async () => {
    h = await FlowHarness.start({ TRUST_PROXY: 'true' }, { database });
    open = await h.loginSetup({}, { callbacks: [CALLBACK] });
    closed = await h.loginSetup({ disable_signup: true }, { callbacks: [CALLBACK] });
  });
  afterAll(() => h.close());

  async function createUser(setup: LoginSetup, phone: string, extra: Record<string, unknown> = {}): Promise<string> {
    const res = await h.management('post', '/users', { connection: setup.connection, phone_number: phone, ...extra });
    expect(res.status).toBe(201);
    return res.body.user_id as string;
  }
  const setBlocked = async (userId: string, blocked: boolean) => {
    const res = await h.management('patch', `/users/${encodeURIComponent(userId)}`, { blocked });
    expect(res.status).toBe(200);
    expect(res.body.blocked).toBe(blocked);
  };
  const messagesTo = (phone: string) => h.gateway.requests.filter((r) => (JSON.parse(r.body) as { recipient: string }).recipient === phone);
  const startBody = (setup: LoginSetup, phone: string) => ({ client_id: setup.clientId, connection: setup.connection, phone_number: phone, send: 'code' });

  describe('with disable_signup, a user created through the API is the only way in', () => {
    it('refuses an unknown number and signs in the created one, whose number becomes verified', async () => {
      const stranger = h.caller();
      expect((await h.start(startBody(closed, stranger.phone), stranger.ip)).body.error_description).toBe('Public signup is disabled');

      const who = h.caller();
      const userId = await createUser(closed, who.phone);
      const started = await h.start(startBody(closed, who.phone), who.ip);
      expect(started.status).toBe(200);
      expect(started.body.phone_verified).toBe(false);
      const login = await h.ro(closed, who, h.codeSentTo(who.phone));
      expect(login.status).toBe(200);
      const id = await h.verifyWithJwks(login.body.id_token, closed.clientId);
      expect(id.claims.sub).toBe(userId);
      const user = (await h.management('get', `/users/${encodeURIComponent(userId)}`)).body;
      expect(user).toMatchObject({ phone_verified: true, logins_count: 1, blocked: false });
    });
  });

  describe('blocked: true', () => {
    it('refuses /passwordless/start with 401 unauthorized "user is blocked", and nothing is sent or stored', async () => {
      const who = h.caller();
      await createUser(closed, who.phone, { blocked: true });
      const res = await h.start(startBody(closed, who.phone), who.ip);
      expect(res.status).toBe(401);
      expect(res.body).toEqual(BLOCKED);
      expect(messagesTo(who.phone)).toHaveLength(0);
      const { rows } = await h.identity.sql.query('SELECT 1 FROM one_time_codes WHERE phone_number = $1', [who.phone]);
      expect(rows).toHaveLength(0);
    });

    it('refuses /oauth/ro and the OTP grant with a right code, and the same code works once unblocked', async () => {
      const who = h.caller();
      const userId = await createUser(open, who.phone);
      const code = await h.sendCode(open, who);
      await setBlocked(userId, true);

      const ro = await h.ro(open, who, code);
      expect(ro.status).toBe(401);
      expect(ro.body).toEqual(BLOCKED);
      const otp = await h.otp(open, who, code);
      expect(otp.status).toBe(401);
      expect(otp.body).toEqual(BLOCKED);

      await setBlocked(userId, false);
      expect((await h.ro(open, who, code)).status).toBe(200);
    });

    it('refuses the refresh grant while blocked, without spending the token, which works again once unblocked', async () => {
      const who = h.caller();
      const userId = await createUser(open, who.phone);
      const login = await h.otp(open, who, await h.sendCode(open, who), { scope: 'openid offline_access' });
      expect(login.status).toBe(200);
      const refresh = () => h.http().post('/oauth/token').send({ grant_type: 'refresh_token', client_id: open.clientId, refresh_token: login.body.refresh_token });

      await setBlocked(userId, true);
      const refused = await refresh();
      expect(refused.status).toBe(401);
      expect(refused.body).toEqual(BLOCKED);

      await setBlocked(userId, false);
      const renewed = await refresh();
      expect(renewed.status).toBe(200);
      expect(renewed.body.refresh_token).toEqual(expect.any(String));
    });

    it('applies to a user who signed up by logging in, blocked afterwards', async () => {
      const who = h.caller();
      const first = await h.ro(open, who, await h.sendCode(open, who));
      const userId = (await h.verifyWithJwks(first.body.id_token, open.clientId)).claims.sub!;
      await setBlocked(userId, true);
      expect((await h.start(startBody(open, who.phone), who.ip)).body).toEqual(BLOCKED);
    });
  });

  describe('on the hosted login page', () => {
    async function openLogin(ip: string) {
      const session = new LoginSession(h, ip);
      expect((await session.open(authorizeQuery(open))).status).toBe(200);
      return session;
    }

    it('sends a blocked user back to the application with error=unauthorized "user is blocked", without a code', async () => {
      const who = h.caller();
      await createUser(open, who.phone, { blocked: true });
      const session = await openLogin(who.ip);
      const res = await session.post('/authorize/phone', { phone_number: who.phone });
      expect(res.status).toBe(302);
      expect(res.headers.location!.startsWith(`${CALLBACK}#`)).toBe(true);
      expect(fragmentOf(res.headers.location)).toEqual({ ...BLOCKED, state: 'state-123' });
      expect(messagesTo(who.phone)).toHaveLength(0);
      // The transaction is over: its pages are gone.
      expect((await session.post('/authorize/phone', { phone_number: who.phone })).status).toBe(400);
    });

    it('sends a user blocked after the code was sent back to the application at the code step', async () => {
      const who = h.caller();
      const userId = await createUser(open, who.phone);
      const session = await openLogin(who.ip);
      expect((await session.submitPhone(who.phone)).status).toBe(200);
      await setBlocked(userId, true);
      const res = await session.submitCode(h.codeSentTo(who.phone));
      expect(res.status).toBe(302);
      expect(fragmentOf(res.headers.location)).toEqual({ ...BLOCKED, state: 'state-123' });
    });
  });
});
