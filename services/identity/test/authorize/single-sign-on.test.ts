import { createHash, randomBytes } from 'node:crypto';
import { describeOnEachDatabase, FlowHarness, type LoginSetup } from '../passwordless/flow-harness';
import { CALLBACK, fragmentOf, LoginSession, queryOf } from './login-session';

const WEB_ORIGIN = 'https://app.example.com';

function challenge(): string {
  return createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
}

describeOnEachDatabase('login session: single sign-on, silent authentication, logout', (database) => {
  let h: FlowHarness;
  let first: LoginSetup;
  let second: LoginSetup;

  beforeAll(async () => {
    h = await FlowHarness.start({ TRUST_PROXY: 'true' }, { database });
    const a = await h.createClient({ name: 'First', app_type: 'spa', callbacks: [CALLBACK], web_origins: [WEB_ORIGIN], allowed_logout_urls: [`${WEB_ORIGIN}/bye`] });
    const b = await h.createClient({ name: 'Second', app_type: 'spa', callbacks: [CALLBACK], web_origins: [WEB_ORIGIN] });
    const connection = await h.createConnection({}, [a.client_id, b.client_id]);
    first = { clientId: a.client_id, clientName: a.name, connection: connection.name, connectionId: connection.id };
    second = { clientId: b.client_id, clientName: b.name, connection: connection.name, connectionId: connection.id };
  });
  afterAll(() => h.close());

  const query = (client: LoginSetup, extra: Record<string, string> = {}) => ({
    client_id: client.clientId,
    redirect_uri: CALLBACK,
    response_type: 'code',
    code_challenge: challenge(),
    code_challenge_method: 'S256',
    state: 'st',
    scope: 'openid',
    ...extra,
  });

  /** A browser that signed in to `first` with one SMS. */
  async function signedIn() {
    const who = h.caller();
    const browser = new LoginSession(h, who.ip);
    expect((await browser.open(query(first))).status).toBe(200);
    await browser.submitPhone(who.phone);
    const res = await browser.submitCode(h.codeSentTo(who.phone));
    expect(res.status).toBe(302);
    return { browser, res, phone: who.phone, sent: () => h.gateway.requests.filter((r) => r.body.includes(who.phone)).length };
  }

  /** The user signed in on `browser`: the `sub` of an ID token from its session. */
  async function userIdOf(browser: LoginSession): Promise<string> {
    const res = await browser.open({ client_id: first.clientId, redirect_uri: CALLBACK, response_type: 'id_token', nonce: 'n', prompt: 'none' });
    return (await h.verifyWithJwks(fragmentOf(res.headers.location).id_token!, first.clientId)).claims.sub!;
  }

  it('sets an HttpOnly session cookie for every path (SameSite=Lax over http)', async () => {
    const { res, browser } = await signedIn();
    const line = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith('smsauth_session='));
    expect(line).toMatch(/^smsauth_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=604800; HttpOnly; SameSite=Lax$/);
    expect(browser.cookies.has('smsauth_session')).toBe(true);
  });

  it('signs in to a second client of the tenant without an SMS, and prompt=none answers silently', async () => {
    const { browser, sent } = await signedIn();
    const before = sent();
    const sso = await browser.open(query(second));
    expect(sso.status).toBe(302);
    expect(new URL(sso.headers.location!).searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const silent = await browser.open(query(second, { prompt: 'none', response_mode: 'web_message', redirect_uri: WEB_ORIGIN }));
    expect(silent.status).toBe(200);
    expect(silent.text).toContain('"type":"authorization_response","response":{"code":');
    expect(sent()).toBe(before);
    const logs = (await h.management('get', `/logs?q=${encodeURIComponent(`type:ssa AND client_id:${second.clientId}`)}`)).body;
    expect(logs.length).toBeGreaterThan(0);
  });

  it('gives the implicit flow tokens from the session too, with the same sid', async () => {
    const { browser } = await signedIn();
    const res = await browser.open({ client_id: second.clientId, redirect_uri: CALLBACK, response_type: 'id_token', nonce: 'n', prompt: 'none', state: 's' });
    const id = await h.verifyWithJwks(fragmentOf(res.headers.location).id_token!, second.clientId);
    expect(id.claims).toMatchObject({ nonce: 'n', sid: expect.any(String), auth_time: expect.any(Number) });
  });

  it('answers login_required by the response mode for prompt=none without a session, and records fsa', async () => {
    const res = await h.http().get('/authorize').query(query(second, { prompt: 'none' }));
    expect(res.status).toBe(302);
    expect(queryOf(res.headers.location)).toEqual({ error: 'login_required', error_description: 'Login required', state: 'st' });
    const logs = (await h.management('get', `/logs?q=${encodeURIComponent('type:fsa')}`)).body;
    expect(logs.length).toBeGreaterThan(0);
  });

  it('shows the login page for prompt=login despite the session', async () => {
    const { browser } = await signedIn();
    const res = await browser.open(query(second, { prompt: 'login' }));
    expect(res.status).toBe(200);
    expect(res.text).toContain('Mobile phone number');
  });

  it('refuses a session older than max_age (login_required with prompt=none, the page without)', async () => {
    const { browser } = await signedIn();
    h.clock.advance(120);
    const silent = await browser.open(query(second, { prompt: 'none', max_age: '60' }));
    expect(new URL(silent.headers.location!).searchParams.get('error')).toBe('login_required');
    expect((await browser.open(query(second, { max_age: '60' }))).status).toBe(200);
    expect((await browser.open(query(second, { prompt: 'none', max_age: '600' }))).status).toBe(302);
  });

  it('lists the sessions through the management API, and deleting them stops silent authentication', async () => {
    const { browser } = await signedIn();
    await browser.open(query(second, { prompt: 'none' }));
    const userId = await userIdOf(browser);
    const list = await h.management('get', `/users/${encodeURIComponent(userId)}/sessions`);
    expect(list.status).toBe(200);
    expect(list.body.sessions).toHaveLength(1);
    expect(list.body.sessions[0]).toMatchObject({ user_id: userId, clients: [{ client_id: first.clientId }, { client_id: second.clientId }], connection: first.connection });
    const one = await h.management('get', `/sessions/${list.body.sessions[0].id}`);
    expect(one.body.id).toBe(list.body.sessions[0].id);
    expect((await h.management('delete', `/users/${encodeURIComponent(userId)}/sessions`)).status).toBe(202);
    expect(new URL((await browser.open(query(second, { prompt: 'none' }))).headers.location!).searchParams.get('error')).toBe('login_required');
    expect((await h.management('get', `/users/${encodeURIComponent(userId)}/sessions`)).body.sessions).toEqual([]);
  });

  it('ends one session by id through the management API', async () => {
    const { browser } = await signedIn();
    const userId = await userIdOf(browser);
    const [session] = (await h.management('get', `/users/${encodeURIComponent(userId)}/sessions`)).body.sessions;
    expect((await h.management('delete', `/sessions/${session.id}`)).status).toBe(202);
    expect((await h.management('get', `/sessions/${session.id}`)).status).toBe(404);
    expect(new URL((await browser.open(query(second, { prompt: 'none' }))).headers.location!).searchParams.get('error')).toBe('login_required');
  });

  it('ends the sessions of a user who is blocked', async () => {
    const { browser } = await signedIn();
    const userId = await userIdOf(browser);
    expect((await h.management('patch', `/users/${encodeURIComponent(userId)}`, { blocked: true })).status).toBe(200);
    expect(new URL((await browser.open(query(second, { prompt: 'none' }))).headers.location!).searchParams.get('error')).toBe('login_required');
  });

  it('/v2/logout ends the session and clears the cookie', async () => {
    const { browser } = await signedIn();
    const res = await browser.get('/v2/logout', { client_id: first.clientId, returnTo: `${WEB_ORIGIN}/bye` });
    expect(res.status).toBe(302);
    expect(([] as string[]).concat(res.headers['set-cookie'] ?? []).some((c) => c.startsWith('smsauth_session=; Path=/; Max-Age=0'))).toBe(true);
    expect(browser.cookies.has('smsauth_session')).toBe(false);
    const logs = await h.management('get', `/logs?q=${encodeURIComponent(`type:slo AND client_id:${first.clientId}`)}`);
    expect(logs.body).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'slo', description: 'Success Logout' })]));
  });

  it('a refused logout keeps the session (a forged link signs nobody out)', async () => {
    const { browser } = await signedIn();
    const res = await browser.get('/v2/logout', { client_id: first.clientId, returnTo: 'https://evil.example.com/' });
    expect(res.status).toBe(400);
    expect((await browser.open(query(second, { prompt: 'none' }))).headers.location).toContain('code=');
  });

  describe('OIDC RP-initiated logout at /oidc/logout', () => {
    async function idTokenOf(browser: LoginSession): Promise<string> {
      const res = await browser.open({ client_id: first.clientId, redirect_uri: CALLBACK, response_type: 'id_token', nonce: 'n', prompt: 'none' });
      return fragmentOf(res.headers.location).id_token!;
    }

    it('goes back to post_logout_redirect_uri with the state, the client named by id_token_hint, and ends the session', async () => {
      const { browser } = await signedIn();
      const hint = await idTokenOf(browser);
      const res = await browser.get('/oidc/logout', { id_token_hint: hint, post_logout_redirect_uri: `${WEB_ORIGIN}/bye`, state: 'xyz' });
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe(`${WEB_ORIGIN}/bye?state=xyz`);
      expect(new URL((await browser.open(query(second, { prompt: 'none' }))).headers.location!).searchParams.get('error')).toBe('login_required');
    });

    it('accepts an expired id_token_hint', async () => {
      const { browser } = await signedIn();
      const hint = await idTokenOf(browser);
      h.clock.advance(11 * 3600);
      const res = await browser.get('/oidc/logout', { id_token_hint: hint, post_logout_redirect_uri: `${WEB_ORIGIN}/bye` });
      expect(res.headers.location).toBe(`${WEB_ORIGIN}/bye`);
    });

    it('refuses a post_logout_redirect_uri the client does not list', async () => {
      const { browser } = await signedIn();
      const res = await browser.get('/oidc/logout', { client_id: first.clientId, post_logout_redirect_uri: 'https://evil.example.com/' });
      expect(res.status).toBe(400);
      expect(res.headers.location).toBeUndefined();
    });

    it('refuses a client_id that is not the audience of the id_token_hint, and a hint not issued here', async () => {
      const { browser } = await signedIn();
      const hint = await idTokenOf(browser);
      expect((await browser.get('/oidc/logout', { id_token_hint: hint, client_id: second.clientId })).status).toBe(400);
      expect((await browser.get('/oidc/logout', { id_token_hint: 'a.b.c' })).status).toBe(400);
    });

    it('shows the signed-out page without a post_logout_redirect_uri', async () => {
      const { browser } = await signedIn();
      const res = await browser.get('/oidc/logout', { client_id: first.clientId });
      expect(res.status).toBe(200);
      expect(res.text).toContain('You are signed out.');
      expect(browser.cookies.has('smsauth_session')).toBe(false);
    });
  });

  // Last: it moves the clock by days (the harness's management token would expire).
  it('ends the session after its idle lifetime (3 days) unless used, and after its absolute lifetime (7 days) however used', async () => {
    const idle = await signedIn();
    const busy = await signedIn();
    const silently = async (browser: LoginSession) => new URL((await browser.open(query(second, { prompt: 'none' }))).headers.location!).searchParams;
    h.clock.advance(2 * 86_400);
    expect((await silently(busy.browser)).has('code')).toBe(true);
    h.clock.advance(86_400 + 1);
    expect((await silently(idle.browser)).get('error')).toBe('login_required');
    // busy is used every 2 days: alive until 7 days after its SMS login.
    h.clock.advance(86_400 - 1);
    expect((await silently(busy.browser)).has('code')).toBe(true);
    h.clock.advance(2 * 86_400);
    expect((await silently(busy.browser)).has('code')).toBe(true);
    h.clock.advance(86_400 + 1);
    expect((await silently(busy.browser)).get('error')).toBe('login_required');
  });
});
