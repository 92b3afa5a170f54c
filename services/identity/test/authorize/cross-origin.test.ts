import { PASSWORDLESS_OTP_GRANT } from '@smsauth/contracts';
import { describeOnEachDatabase, FlowHarness, ISSUER, type LoginSetup } from '../passwordless/flow-harness';
import { fragmentOf, LoginSession } from './login-session';

// Embedded login (issue 44): Lock's client settings, CORS for the application's origin,
// /co/authenticate's login ticket at /authorize, the /co/verify fallback, and the attacks on them.

const APP = 'https://app.example.com';
const OTHER_APP = 'https://other.example.com';
const EVIL = 'https://evil.example.net';
const CALLBACK = `${APP}/callback`;
const VERIFY_PAGE = `${APP}/co-verify`;

describeOnEachDatabase('embedded login: Lock settings, /co/authenticate, login tickets', (database) => {
  let h: FlowHarness;
  let app: LoginSetup;
  let sibling: LoginSetup;
  let closed: LoginSetup;

  const spa = (extra: Record<string, unknown> = {}) => ({
    app_type: 'spa',
    callbacks: [CALLBACK, `${OTHER_APP}/callback`],
    web_origins: [APP, OTHER_APP],
    grant_types: ['authorization_code', 'implicit', 'refresh_token', PASSWORDLESS_OTP_GRANT],
    cross_origin_authentication: true,
    ...extra,
  });

  beforeAll(async () => {
    h = await FlowHarness.start({ TRUST_PROXY: 'true', BRUTE_FORCE_THRESHOLD: '4' }, { database });
    const a = await h.createClient({ name: 'Embedded', ...spa({ cross_origin_loc: VERIFY_PAGE }) });
    const b = await h.createClient({ name: 'Sibling', ...spa() });
    const c = await h.createClient({ name: 'Closed', ...spa({ cross_origin_authentication: false }) });
    const connection = await h.createConnection({}, [a.client_id, b.client_id, c.client_id]);
    const setup = (client: { client_id: string; name: string }) => ({ clientId: client.client_id, clientName: client.name, connection: connection.name, connectionId: connection.id });
    [app, sibling, closed] = [setup(a), setup(b), setup(c)];
  });
  afterAll(() => h.close());

  const authenticate = (setup: LoginSetup, who: { phone: string; ip: string }, otp: string, origin: string | null = APP, extra: Record<string, unknown> = {}) => {
    const req = h.http().post('/co/authenticate').set('X-Forwarded-For', who.ip);
    if (origin) req.set('Origin', origin);
    return req.send({ client_id: setup.clientId, credential_type: PASSWORDLESS_OTP_GRANT, realm: setup.connection, username: who.phone, otp, ...extra });
  };

  const authorizeQuery = (setup: LoginSetup, ticket: string, extra: Record<string, string> = {}) => ({
    client_id: setup.clientId,
    redirect_uri: CALLBACK,
    response_type: 'token id_token',
    nonce: 'n-1',
    state: 's-1',
    scope: 'openid',
    login_ticket: ticket,
    // auth0-js passes these on from the /co/authenticate call; /authorize ignores them.
    realm: setup.connection,
    username: 'ignored',
    ...extra,
  });

  /** A browser that got a ticket from /co/authenticate (its verifier cookie kept). */
  async function ticketFor(setup: LoginSetup = app) {
    const who = h.caller();
    const code = await h.sendCode(setup, who);
    const res = await authenticate(setup, who, code);
    expect(res.status).toBe(200);
    const browser = new LoginSession(h, who.ip);
    const cookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((line) => line.startsWith(`smsauth_co_${res.body.co_id}=`));
    expect(cookie).toBeDefined();
    browser.cookies.set(`smsauth_co_${res.body.co_id}`, res.body.co_verifier);
    return { who, browser, body: res.body as { login_ticket: string; co_verifier: string; co_id: string }, cookie: cookie! };
  }

  const errorOf = (location: string | undefined) => fragmentOf(location).error;

  it('serves Lock the client settings as JSONP, only public fields, and 404 for an unknown client', async () => {
    const res = await h.http().get(`/client/${app.clientId}.js?t123`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/javascript/);
    const match = /^Auth0\.setClient\((.*)\);$/.exec(res.text);
    expect(match).not.toBeNull();
    const settings = JSON.parse(match![1]!);
    expect(settings).toEqual({
      id: app.clientId,
      tenant: 'identity',
      subscription: 'self_hosted',
      authorize: `${ISSUER}authorize`,
      callback: CALLBACK,
      hasAllowedOrigins: true,
      strategies: [{ name: 'sms', connections: [{ name: app.connection }] }],
    });
    expect((await h.http().get('/client/nope.js')).status).toBe(404);
  });

  it('answers CORS for /passwordless/start and /co/authenticate to registered web origins only', async () => {
    const preflight = (path: string, origin: string) =>
      h.http().options(path).set('Origin', origin).set('Access-Control-Request-Method', 'POST').set('Access-Control-Request-Headers', 'content-type, auth0-client');
    const start = await preflight('/passwordless/start', APP);
    expect(start.status).toBe(204);
    expect(start.headers['access-control-allow-origin']).toBe(APP);
    expect(start.headers['access-control-allow-credentials']).toBeUndefined();
    const co = await preflight('/co/authenticate', APP);
    expect(co.headers['access-control-allow-origin']).toBe(APP);
    expect(co.headers['access-control-allow-credentials']).toBe('true');
    for (const path of ['/passwordless/start', '/co/authenticate']) {
      expect((await preflight(path, EVIL)).headers['access-control-allow-origin']).toBeUndefined();
    }
  });

  it('signs in with a login ticket: tokens, a login session that prompt=none honours, the verifier cookie cleared', async () => {
    const { browser, body, cookie } = await ticketFor();
    expect(body.login_ticket).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(cookie).toMatch(/; Path=\/; Max-Age=60; HttpOnly; SameSite=Lax$/);
    const res = await browser.open(authorizeQuery(app, body.login_ticket));
    expect(res.status).toBe(302);
    const params = fragmentOf(res.headers.location);
    expect(params.state).toBe('s-1');
    const id = await h.verifyWithJwks(params.id_token!, app.clientId);
    expect(id.claims).toMatchObject({ nonce: 'n-1', sid: expect.any(String) });
    expect(browser.cookies.has('smsauth_session')).toBe(true);
    expect(browser.cookies.has(`smsauth_co_${body.co_id}`)).toBe(false);

    // Neither the ticket nor the verifier reaches a log line (the access log redacts them).
    expect(h.identity.logs()).not.toContain(body.login_ticket);
    expect(h.identity.logs()).not.toContain(body.co_verifier);

    const silent = await browser.open({ client_id: sibling.clientId, redirect_uri: CALLBACK, response_type: 'id_token', nonce: 'n-2', prompt: 'none' });
    expect(silent.status).toBe(302);
    expect((await h.verifyWithJwks(fragmentOf(silent.headers.location).id_token!, sibling.clientId)).claims.sub).toBe(id.claims.sub);
  });

  it('refuses a ticket replayed, used by another client, for another origin, or without its verifier (login CSRF)', async () => {
    const used = await ticketFor();
    expect((await used.browser.open(authorizeQuery(app, used.body.login_ticket))).status).toBe(302);
    used.browser.cookies.set(`smsauth_co_${used.body.co_id}`, used.body.co_verifier);
    expect(errorOf((await used.browser.open(authorizeQuery(app, used.body.login_ticket))).headers.location)).toBe('access_denied');

    const stolen = await ticketFor();
    expect(errorOf((await stolen.browser.open(authorizeQuery(sibling, stolen.body.login_ticket))).headers.location)).toBe('access_denied');
    const otherOrigin = await stolen.browser.open(authorizeQuery(app, stolen.body.login_ticket, { redirect_uri: `${OTHER_APP}/callback` }));
    expect(fragmentOf(otherOrigin.headers.location)).toMatchObject({ error: 'access_denied', state: 's-1' });

    // The attacker's own ticket, planted in a victim's browser: no verifier there. The sibling has no cross_origin_loc, so no fallback either.
    const planted = await ticketFor(sibling);
    const victim = new LoginSession(h, h.caller().ip);
    const res = await victim.open(authorizeQuery(sibling, planted.body.login_ticket));
    expect(errorOf(res.headers.location)).toBe('access_denied');
    expect(victim.cookies.has('smsauth_session')).toBe(false);
    planted.browser.cookies.set(`smsauth_co_${planted.body.co_id}`, 'x'.repeat(43));
    expect(errorOf((await planted.browser.open(authorizeQuery(sibling, planted.body.login_ticket))).headers.location)).toBe('access_denied');

    const expired = await ticketFor();
    h.clock.advance(61);
    expect(errorOf((await expired.browser.open(authorizeQuery(app, expired.body.login_ticket))).headers.location)).toBe('access_denied');
    expect(errorOf((await expired.browser.open(authorizeQuery(app, 'A'.repeat(43)))).headers.location)).toBe('access_denied');

    const logs = (await h.management('get', `/logs?q=${encodeURIComponent(`type:f AND client_id:${sibling.clientId}`)}`)).body as Array<{ details?: { reason?: string } }>;
    expect(logs.map((l) => l.details?.reason)).toEqual(expect.arrayContaining(['other_client', 'no_verifier', 'wrong_verifier']));
  });

  it('refuses /co/authenticate from another origin, without an Origin, for a client without cross_origin_authentication, and without the OTP grant', async () => {
    const who = h.caller();
    const code = await h.sendCode(app, who);
    for (const origin of [EVIL, null]) {
      const res = await authenticate(app, who, code, origin);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: 'unauthorized_client', error_description: `Origin ${origin ?? '(none)'} is not allowed.` });
    }
    // An origin another client registered: CORS lets its page call, the client's own check does not.
    await h.createClient({ name: 'Third', ...spa({ callbacks: ['https://third.example.org/cb'], web_origins: ['https://third.example.org'] }) });
    const third = await authenticate(app, who, code, 'https://third.example.org');
    expect(third.status).toBe(403);
    expect(third.headers['access-control-allow-origin']).toBe('https://third.example.org');
    expect(third.body.error_description).toBe('Origin https://third.example.org is not allowed.');
    const off = await authenticate(closed, who, code);
    expect(off.status).toBe(403);
    expect(off.body.error_description).toBe('Cross origin login not allowed.');
    const noGrant = await h.createClient({ name: 'No grant', ...spa({ grant_types: ['implicit'] }) });
    expect((await authenticate({ ...app, clientId: noGrant.client_id }, who, code)).body.error).toBe('unauthorized_client');
    expect((await authenticate(app, who, code, APP, { credential_type: 'password' })).body.error).toBe('invalid_request');
    // None of those used the code.
    expect((await authenticate(app, who, code)).status).toBe(200);
  });

  it('counts wrong codes through /co/authenticate with the other paths\' (brute-force block at the threshold)', async () => {
    const who = h.caller();
    await h.sendCode(app, who);
    for (let i = 0; i < 2; i += 1) expect((await h.otp(app, who, '000000')).status).toBe(400);
    const code = await h.sendCode(app, who);
    for (let i = 0; i < 2; i += 1) {
      const wrong = await authenticate(app, who, code === '000000' ? '111111' : '000000');
      expect(wrong.status).toBe(400);
      expect(wrong.body.error).toBe('invalid_grant');
    }
    const blocked = await authenticate(app, who, code);
    expect(blocked.status).toBe(429);
    expect(blocked.body.error).toBe('too_many_attempts');
  });

  it('falls back to /co/verify without the cookie: frames cross_origin_loc, takes the verifier it answers with the page\'s CSRF token', async () => {
    const { browser, body } = await ticketFor();
    browser.cookies.delete(`smsauth_co_${body.co_id}`);
    const redirected = await browser.open(authorizeQuery(app, body.login_ticket));
    expect(redirected.status).toBe(303);
    const location = new URL(redirected.headers.location!, ISSUER);
    expect(location.pathname).toBe('/co/verify');
    const page = await browser.get('/co/verify', Object.fromEntries(location.searchParams));
    expect(page.status).toBe(200);
    expect(page.text).toContain(`src="${VERIFY_PAGE}#origin=${encodeURIComponent('http://identity.test')}"`);
    expect(page.text).toContain(`data-co-id="${body.co_id}"`);
    expect(page.headers['content-security-policy']).toContain(`frame-src ${APP}`);
    const fields = Object.fromEntries([...page.text.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!.replace(/&amp;/g, '&')]));
    expect(fields.login_ticket).toBe(body.login_ticket);

    // A cross-site form post carries no CSRF cookie: refused, the ticket untouched.
    const forged = await h.http().post('/co/verify').type('form').send({ ...fields, co_verifier: body.co_verifier });
    expect(forged.status).toBe(403);

    const wrong = await browser.post('/co/verify', { ...fields, co_verifier: '' });
    expect(errorOf(wrong.headers.location)).toBe('access_denied');

    const again = await ticketFor();
    browser.cookies.delete(`smsauth_co_${again.body.co_id}`);
    const next = await browser.get('/co/verify', authorizeQuery(app, again.body.login_ticket));
    const nextFields = Object.fromEntries([...next.text.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!.replace(/&amp;/g, '&')]));
    const res = await browser.post('/co/verify', { ...nextFields, co_verifier: again.body.co_verifier });
    expect(res.status).toBe(302);
    expect(fragmentOf(res.headers.location).id_token).toBeDefined();
    expect(browser.cookies.has('smsauth_session')).toBe(true);
  });
});
