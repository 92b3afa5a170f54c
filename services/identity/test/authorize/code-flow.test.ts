import { createHash, randomBytes } from 'node:crypto';
import { describeOnEachDatabase, FlowHarness, type LoginSetup } from '../passwordless/flow-harness';
import { CALLBACK, LoginSession, queryOf } from './login-session';

const API = 'https://flights.example.com';
const WEB_ORIGIN = 'https://app.example.com';

function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

describeOnEachDatabase('authorization code flow with PKCE', (database) => {
  let h: FlowHarness;
  let spa: LoginSetup;

  beforeAll(async () => {
    // The background workers (log streams, user jobs, the stats rollup) poll hourly here, not every
    // second or two: the statement counts below must not catch a poll on a loaded machine.
    h = await FlowHarness.start({ TRUST_PROXY: 'true', LOG_STREAM_POLL_MS: '3600000', USER_JOB_POLL_MS: '3600000', STATS_ROLLUP_INTERVAL_MS: '3600000' }, { database });
    spa = await h.loginSetup({}, { name: 'Code App', app_type: 'spa', callbacks: [CALLBACK], web_origins: [WEB_ORIGIN] });
    await h.createApi({ name: 'Flights', identifier: API, scopes: [{ value: 'read:flights', description: 'Read flights' }] });
  });
  afterAll(() => h.close());

  function codeQuery(client: LoginSetup, challenge: string | undefined, extra: Record<string, string | undefined> = {}): Record<string, string> {
    const query: Record<string, string | undefined> = {
      client_id: client.clientId,
      redirect_uri: CALLBACK,
      response_type: 'code',
      scope: 'openid profile phone',
      state: 'state-123',
      nonce: 'nonce-456',
      code_challenge: challenge,
      code_challenge_method: challenge ? 'S256' : undefined,
      auth0Client: Buffer.from('{"name":"auth0-spa-js","version":"2.1.3"}').toString('base64'),
      ...extra,
    };
    return Object.fromEntries(Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined));
  }

  /** Signs in through the hosted login; answers the final response and the browser. */
  async function signIn(query: Record<string, string>) {
    const who = h.caller();
    const browser = new LoginSession(h, who.ip);
    const page = await browser.open(query);
    expect(page.status).toBe(200);
    expect((await browser.submitPhone(who.phone)).status).toBe(200);
    const res = await browser.submitCode(h.codeSentTo(who.phone));
    return { res, browser, phone: who.phone };
  }

  async function codeFor(client: LoginSetup = spa, extra: Record<string, string | undefined> = {}) {
    const { verifier, challenge } = pkce();
    const { res, browser, phone } = await signIn(codeQuery(client, challenge, extra));
    expect(res.status).toBe(302);
    const params = queryOf(res.headers.location);
    return { code: params.code!, params, verifier, browser, phone };
  }

  function exchange(body: Record<string, string>, form = false) {
    const req = h.http().post('/oauth/token');
    return form ? req.type('form').send(body) : req.send(body);
  }

  const codeGrant = (client: LoginSetup, code: string, verifier: string | undefined, extra: Record<string, string> = {}) => ({
    grant_type: 'authorization_code',
    client_id: client.clientId,
    code,
    redirect_uri: CALLBACK,
    ...(verifier ? { code_verifier: verifier } : {}),
    ...extra,
  });

  describe('/authorize', () => {
    it('sends the code and the state to the redirect_uri in the query by default', async () => {
      const { params } = await codeFor();
      expect(Object.keys(params).sort()).toEqual(['code', 'state']);
      expect(params.state).toBe('state-123');
      expect(params.code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    });

    it('refuses a public client without a code_challenge, in the query with the state', async () => {
      const res = await h.http().get('/authorize').query(codeQuery(spa, undefined));
      expect(res.status).toBe(302);
      expect(queryOf(res.headers.location)).toEqual({
        error: 'invalid_request',
        error_description: 'The parameter code_challenge is required: a public client must use PKCE (S256).',
        state: 'state-123',
      });
    });

    it('refuses code_challenge_method=plain', async () => {
      const res = await h.http().get('/authorize').query(codeQuery(spa, pkce().verifier, { code_challenge_method: 'plain' }));
      expect(queryOf(res.headers.location)).toMatchObject({ error: 'invalid_request', error_description: 'Unsupported code_challenge_method: plain. Use S256.' });
    });

    it('answers the error in the fragment when the response_mode says so', async () => {
      const res = await h.http().get('/authorize').query(codeQuery(spa, undefined, { response_mode: 'fragment' }));
      expect(res.headers.location!.startsWith(`${CALLBACK}#error=invalid_request`)).toBe(true);
    });

    it('refuses a client without the authorization_code grant', async () => {
      const otpOnly = await h.loginSetup({}, { app_type: 'spa', callbacks: [CALLBACK], grant_types: ['http://auth0.com/oauth/grant-type/passwordless/otp'] });
      const res = await h.http().get('/authorize').query(codeQuery(otpOnly, pkce().challenge));
      expect(queryOf(res.headers.location)).toMatchObject({ error: 'unauthorized_client', error_description: "Grant type 'authorization_code' not allowed for the client." });
    });

    it('prefills the phone page with login_hint and ignores parameters it does not know', async () => {
      const res = await h.http().get('/authorize').query(codeQuery(spa, pkce().challenge, { login_hint: '+14155550199', ui_locales: 'en', foo: 'bar' }));
      expect(res.status).toBe(200);
      expect(res.text).toContain('value="+14155550199"');
    });
  });

  describe('/oauth/token with grant_type=authorization_code', () => {
    it('exchanges the code with its code_verifier for an ID token (nonce, auth_time, sid) and an access token that works at /userinfo', async () => {
      const { code, verifier, phone } = await codeFor();
      const res = await exchange(codeGrant(spa, code, verifier));
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toMatchObject({ token_type: 'Bearer', expires_in: 86400, scope: 'openid profile phone' });
      expect(res.body.refresh_token).toBeUndefined();
      const id = await h.verifyWithJwks(res.body.id_token, spa.clientId);
      expect(id.claims).toMatchObject({ nonce: 'nonce-456', phone_number: phone, sid: expect.stringMatching(/^[A-Za-z0-9]{32}$/) });
      expect(id.claims.auth_time).toBe(Math.floor(h.clock.now().getTime() / 1000));
      const userinfo = await h.http().get('/userinfo').set('authorization', `Bearer ${res.body.access_token}`);
      expect(userinfo.body.phone_number).toBe(phone);
    });

    it('takes a form body, gives a JWT for the audience and a refresh token for offline_access, and the refresh token refreshes', async () => {
      const { code, verifier } = await codeFor(spa, { audience: API, scope: 'openid read:flights offline_access' });
      const res = await exchange(codeGrant(spa, code, verifier), true);
      expect(res.status).toBe(200);
      expect(res.body.scope).toBe('openid read:flights offline_access');
      const access = await h.verifyWithJwks(res.body.access_token, API);
      expect(access.claims).toMatchObject({ azp: spa.clientId, scope: 'openid read:flights offline_access' });
      const refreshed = await exchange({ grant_type: 'refresh_token', client_id: spa.clientId, refresh_token: res.body.refresh_token }, true);
      expect(refreshed.status).toBe(200);
      expect(refreshed.body.refresh_token).toEqual(expect.any(String));
    });

    it('refuses a code used twice and revokes what its first use issued', async () => {
      const { code, verifier } = await codeFor(spa, { scope: 'openid offline_access' });
      const first = await exchange(codeGrant(spa, code, verifier));
      expect(first.status).toBe(200);
      const second = await exchange(codeGrant(spa, code, verifier));
      expect([second.status, second.body.error]).toEqual([400, 'invalid_grant']);
      const refresh = await exchange({ grant_type: 'refresh_token', client_id: spa.clientId, refresh_token: first.body.refresh_token });
      expect([refresh.status, refresh.body.error]).toEqual([400, 'invalid_grant']);
      const userinfo = await h.http().get('/userinfo').set('authorization', `Bearer ${first.body.access_token}`);
      expect(userinfo.status).toBe(401);
    });

    it('refuses a wrong code_verifier, and the code is spent', async () => {
      const { code, verifier } = await codeFor();
      const wrong = await exchange(codeGrant(spa, code, pkce().verifier));
      expect([wrong.status, wrong.body.error, wrong.body.error_description]).toEqual([400, 'invalid_grant', 'Failed to verify code verifier']);
      expect((await exchange(codeGrant(spa, code, verifier))).status).toBe(400);
    });

    it('refuses a missing code_verifier when the request had a challenge', async () => {
      const { code } = await codeFor();
      const res = await exchange(codeGrant(spa, code, undefined));
      expect([res.status, res.body.error]).toEqual([400, 'invalid_grant']);
    });

    it("refuses another client's code", async () => {
      const other = await h.loginSetup({}, { app_type: 'spa', callbacks: [CALLBACK] });
      const { code, verifier } = await codeFor();
      const res = await exchange(codeGrant(other, code, verifier));
      expect([res.status, res.body.error]).toEqual([400, 'invalid_grant']);
    });

    it('refuses a redirect_uri other than the request had', async () => {
      const { code, verifier } = await codeFor();
      const res = await exchange(codeGrant(spa, code, verifier, { redirect_uri: 'https://app.example.com/other' }));
      expect([res.status, res.body.error_description]).toEqual([400, 'The redirect_uri does not match the one of the authorization request.']);
    });

    it('refuses a code after its 60 seconds', async () => {
      const { code, verifier } = await codeFor();
      h.clock.advance(61);
      const res = await exchange(codeGrant(spa, code, verifier));
      expect([res.status, res.body.error]).toEqual([400, 'invalid_grant']);
    });

    it('refuses an unknown code', async () => {
      const res = await exchange(codeGrant(spa, 'not-a-code', pkce().verifier));
      expect([res.status, res.body.error]).toEqual([400, 'invalid_grant']);
    });

    it('lets a confidential client exchange a code without PKCE, authenticating by HTTP Basic', async () => {
      const web = await h.loginSetup({}, { app_type: 'regular_web', callbacks: [CALLBACK], token_endpoint_auth_method: 'client_secret_basic' });
      const { res } = await signIn(codeQuery(web, undefined));
      const { code } = queryOf(res.headers.location);
      const noSecret = await exchange(codeGrant(web, code!, undefined));
      expect(noSecret.status).toBe(401);
      const { res: again } = await signIn(codeQuery(web, undefined));
      const token = await h
        .http()
        .post('/oauth/token')
        .auth(web.clientId, web.clientSecret!)
        .type('form')
        .send({ grant_type: 'authorization_code', code: queryOf(again.headers.location).code!, redirect_uri: CALLBACK });
      expect(token.status).toBe(200);
      expect(token.body.id_token).toEqual(expect.any(String));
    });
  });

  describe('what an exchange costs, and what it never serves stale', () => {
    /** The SQL statements `fn` sends, by their first words. */
    async function statementsOf(fn: () => Promise<unknown>): Promise<string[]> {
      const spy = jest.spyOn(h.identity.sql, 'query');
      try {
        await fn();
        return spy.mock.calls.map(([text]) => String(text).trim().split(/\s+/).slice(0, 2).join(' '));
      } finally {
        spy.mockRestore();
      }
    }

    // The client and the API come from the lookup cache once read; the code is consumed in one
    // statement that also names what the exchange issues (for a replay to revoke); the user is
    // read; the success record joins the tenant-log group commit. No transaction.
    it('takes 3 statements for a JWT access token once the client and the API are cached: consume the code, read the user, append the record', async () => {
      const warm = await codeFor(spa, { audience: API, scope: 'openid read:flights' });
      expect((await exchange(codeGrant(spa, warm.code, warm.verifier))).status).toBe(200);
      const { code, verifier } = await codeFor(spa, { audience: API, scope: 'openid read:flights' });
      const sent = await statementsOf(async () => expect((await exchange(codeGrant(spa, code, verifier))).status).toBe(200));
      expect(sent).toEqual(['UPDATE authorization_codes', 'SELECT u.*,', 'INSERT INTO']);
    });

    it('sees a client changed through the management API at the very next exchange', async () => {
      const app = await h.loginSetup({}, { name: 'Soon without codes', app_type: 'spa', callbacks: [CALLBACK] });
      const first = await codeFor(app);
      expect((await exchange(codeGrant(app, first.code, first.verifier))).status).toBe(200);
      const second = await codeFor(app);
      expect((await h.management('patch', `/clients/${app.clientId}`, { grant_types: ['implicit'] })).status).toBe(200);
      const refused = await exchange(codeGrant(app, second.code, second.verifier));
      expect([refused.status, refused.body.error]).toEqual([403, 'unauthorized_client']);
    });

    it('sees an API deleted through the management API at the very next exchange', async () => {
      const identifier = 'https://short-lived.example.com';
      await h.createApi({ name: 'Short-lived', identifier, scopes: [] });
      const first = await codeFor(spa, { audience: identifier });
      expect((await exchange(codeGrant(spa, first.code, first.verifier))).status).toBe(200);
      const second = await codeFor(spa, { audience: identifier });
      expect((await h.management('delete', `/resource-servers/${encodeURIComponent(identifier)}`)).status).toBe(204);
      const refused = await exchange(codeGrant(spa, second.code, second.verifier));
      expect([refused.status, refused.body.error_description]).toEqual([400, 'The API of the authorization request no longer exists.']);
    });
  });

  it('counts SMS sign-ins and code exchanges (success, refused, replayed) on /metrics', async () => {
    const { code, verifier } = await codeFor();
    await exchange(codeGrant(spa, code, verifier));
    await exchange(codeGrant(spa, code, verifier));
    await exchange(codeGrant(spa, 'unknown', verifier));
    const metrics = (await h.http().get('/metrics')).text;
    expect(metrics).toMatch(/authorize_sign_ins_total\{[^}]*via="sms"[^}]*flow="code"[^}]*\} [1-9]/);
    for (const result of ['success', 'refused', 'replayed']) {
      expect(metrics).toMatch(new RegExp(`authorization_code_exchanges_total\\{[^}]*result="${result}"[^}]*\\} [1-9]`));
    }
  });

  describe('response modes', () => {
    it('form_post: a page posting the code and state to the redirect_uri, its one script allowed by hash', async () => {
      const { res } = await signIn(codeQuery(spa, pkce().challenge, { response_mode: 'form_post' }));
      expect(res.status).toBe(200);
      expect(res.text).toContain(`<form method="post" action="${CALLBACK}">`);
      expect(res.text).toMatch(/<input type="hidden" name="code" value="[A-Za-z0-9_-]{43}">/);
      expect(res.text).toContain('<input type="hidden" name="state" value="state-123">');
      expect(res.text).toContain('<input type="hidden" name="iss" value="http://identity.test/">');
      const script = /<script>([\s\S]*?)<\/script>/.exec(res.text)![1]!;
      const hash = createHash('sha256').update(script).digest('base64');
      expect(res.headers['content-security-policy']).toContain(`script-src 'sha256-${hash}'`);
      expect(res.headers['content-security-policy']).toContain(`form-action ${WEB_ORIGIN}`);
    });

    it('form_post carries the implicit flow tokens too (express-openid-connect\'s id_token default)', async () => {
      const { res } = await signIn(codeQuery(spa, undefined, { response_type: 'id_token', response_mode: 'form_post' }));
      expect(res.status).toBe(200);
      const idToken = /name="id_token" value="([^"]+)"/.exec(res.text)![1]!;
      expect((await h.verifyWithJwks(idToken, spa.clientId)).claims.nonce).toBe('nonce-456');
    });

    it('web_message: a page posting the response to the registered web origin, framable by it only', async () => {
      const { res } = await signIn(codeQuery(spa, pkce().challenge, { response_mode: 'web_message', redirect_uri: WEB_ORIGIN }));
      expect(res.status).toBe(200);
      expect(res.text).toMatch(/postMessage\(\{"type":"authorization_response","response":\{"code":"[A-Za-z0-9_-]{43}","state":"state-123","iss":"http:\/\/identity.test\/"\}\}, "https:\/\/app.example.com"\)/);
      expect(res.headers['content-security-policy']).toContain(`frame-ancestors ${WEB_ORIGIN}`);
      expect(res.headers['x-frame-options']).toBeUndefined();
    });

    it('web_message: refuses (a page, nothing posted) an origin that is not a registered web origin', async () => {
      const res = await h.http().get('/authorize').query(codeQuery(spa, pkce().challenge, { response_mode: 'web_message', redirect_uri: 'https://evil.example.com' }));
      expect(res.status).toBe(400);
      expect(res.text).toContain('Origin not allowed');
      expect(res.text).not.toContain('postMessage');
    });
  });
});
