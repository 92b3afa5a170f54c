import { createHash, randomBytes } from 'node:crypto';
import { describeOnEachDatabase, FlowHarness, type LoginSetup } from '../passwordless/flow-harness';
import { CALLBACK, LoginSession } from './login-session';

describeOnEachDatabase("refresh tokens from the code flow, by the client's refresh_token settings", (database) => {
  let h: FlowHarness;

  beforeAll(async () => {
    h = await FlowHarness.start({ TRUST_PROXY: 'true' }, { database });
  });
  afterAll(() => h.close());

  async function client(refreshToken: Record<string, unknown> | undefined): Promise<LoginSetup> {
    return h.loginSetup({}, { app_type: 'spa', callbacks: [CALLBACK], ...(refreshToken ? { refresh_token: refreshToken } : {}) });
  }

  /** One SMS login through the code flow with offline_access: the token response. */
  async function tokensFor(setup: LoginSetup): Promise<Record<string, string>> {
    const verifier = randomBytes(32).toString('base64url');
    const who = h.caller();
    const browser = new LoginSession(h, who.ip);
    await browser.open({
      client_id: setup.clientId,
      redirect_uri: CALLBACK,
      response_type: 'code',
      scope: 'openid offline_access',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    });
    await browser.submitPhone(who.phone);
    const res = await browser.submitCode(h.codeSentTo(who.phone));
    const code = new URL(res.headers.location!).searchParams.get('code')!;
    const token = await h.http().post('/oauth/token').type('form').send({ grant_type: 'authorization_code', client_id: setup.clientId, code, redirect_uri: CALLBACK, code_verifier: verifier });
    expect(token.status).toBe(200);
    return token.body;
  }

  const refresh = (setup: LoginSetup, token: string) =>
    h.http().post('/oauth/token').send({ grant_type: 'refresh_token', client_id: setup.clientId, refresh_token: token });

  it('shows the settings on the client record (the defaults when none were given)', async () => {
    const res = await h.createClient({ name: 'Settings', app_type: 'spa', refresh_token: { rotation_type: 'non-rotating', expiration_type: 'non-expiring' } });
    const read = await h.management('get', `/clients/${res.client_id}`);
    expect(read.body.refresh_token).toMatchObject({ rotation_type: 'non-rotating', expiration_type: 'non-expiring', leeway: 0 });
    const bad = await h.management('post', '/clients', { name: 'Bad', app_type: 'spa', refresh_token: { rotation_type: 'sometimes', expiration_type: 'expiring' } });
    expect([bad.status, bad.body.details?.[0]?.path]).toEqual([400, 'refresh_token.rotation_type']);
  });

  it('non-rotating: the same refresh token keeps working and no new one is answered', async () => {
    const setup = await client({ rotation_type: 'non-rotating', expiration_type: 'non-expiring' });
    const { refresh_token: token } = await tokensFor(setup);
    const once = await refresh(setup, token!);
    expect(once.status).toBe(200);
    expect(once.body.refresh_token).toBeUndefined();
    expect((await refresh(setup, token!)).status).toBe(200);
  });

  it('rotating with leeway: a retry of the previous token within the leeway is answered, after it the family is revoked', async () => {
    const setup = await client({ rotation_type: 'rotating', expiration_type: 'expiring', leeway: 30 });
    const { refresh_token: token } = await tokensFor(setup);
    const next = await refresh(setup, token!);
    expect(next.status).toBe(200);
    h.clock.advance(10);
    expect((await refresh(setup, token!)).status).toBe(200);
    h.clock.advance(30);
    const reuse = await refresh(setup, token!);
    expect([reuse.status, reuse.body.error]).toEqual([400, 'invalid_grant']);
    expect((await refresh(setup, next.body.refresh_token)).status).toBe(400);
  });

  it('expiring: a token unused for idle_token_lifetime expires, and the family ends after token_lifetime however used', async () => {
    const setup = await client({ rotation_type: 'rotating', expiration_type: 'expiring', idle_token_lifetime: 100, token_lifetime: 250, infinite_token_lifetime: false });
    const idle = await tokensFor(setup);
    h.clock.advance(101);
    expect((await refresh(setup, idle.refresh_token!)).status).toBe(400);

    let { refresh_token: token } = await tokensFor(setup);
    for (let i = 0; i < 2; i += 1) {
      h.clock.advance(90);
      const res = await refresh(setup, token!);
      expect(res.status).toBe(200);
      token = res.body.refresh_token;
    }
    h.clock.advance(90);
    expect((await refresh(setup, token!)).status).toBe(400);
  });
});
