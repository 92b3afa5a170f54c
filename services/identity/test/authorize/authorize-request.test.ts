import { FlowHarness, type LoginSetup } from '../passwordless/flow-harness';
import request from 'supertest';
import { ADMIN_CLIENT_ID, ADMIN_CLIENT_SECRET, AUTH_URL, clientCredentialsToken, connectionBody, startTestIdentity } from '../helpers';
import { authorizeQuery, CALLBACK, fragmentOf, queryOf } from './login-session';

describe('GET /authorize', () => {
  let h: FlowHarness;
  let setup: LoginSetup;

  beforeAll(async () => {
    h = await FlowHarness.start();
    // Passkeys off: these tests pin the plain SMS pages (test/passkeys covers the pages with passkeys on).
    setup = await h.loginSetup({ passkeys: { enabled: false } }, { name: 'Flow App', callbacks: [CALLBACK, 'http://localhost:3000/cb'] });
  });
  afterAll(() => h.close());

  const open = (query: Record<string, string>) => h.http().get('/authorize').query(query);

  describe('before the redirect_uri is proven', () => {
    it.each([
      ['a different path', 'https://app.example.com/callback/other'],
      ['a trailing slash', 'https://app.example.com/callback/'],
      ['a different host', 'https://evil.example.com/callback'],
      ['a different scheme', 'http://app.example.com/callback'],
      ['an added query', 'https://app.example.com/callback?x=1'],
      ['different case', 'https://APP.example.com/callback'],
    ])('shows an error page and never redirects for a redirect_uri with %s', async (_name, redirectUri) => {
      const res = await open(authorizeQuery(setup, { redirect_uri: redirectUri }));
      expect(res.status).toBe(400);
      expect(res.headers.location).toBeUndefined();
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toContain('Callback URL mismatch');
      expect(res.text).not.toContain(redirectUri);
      expect(res.headers['set-cookie']).toBeUndefined();
    });

    it('shows an error page, not a redirect, for an unknown client even with a plausible redirect_uri', async () => {
      const res = await open(authorizeQuery(setup, { client_id: 'no-such-client' }));
      expect(res.status).toBe(400);
      expect(res.headers.location).toBeUndefined();
      expect(res.text).toContain('Unknown application');
    });

    it.each(['client_id', 'redirect_uri'])('shows an error page when %s is missing', async (name) => {
      const res = await open(authorizeQuery(setup, { [name]: undefined }));
      expect(res.status).toBe(400);
      expect(res.headers.location).toBeUndefined();
      expect(res.text).toContain(`The parameter ${name} is missing.`);
    });

    it('shows an error page when redirect_uri is given twice, even if both are registered', async () => {
      const query = new URLSearchParams(authorizeQuery(setup));
      query.append('redirect_uri', 'http://localhost:3000/cb');
      const res = await h.http().get(`/authorize?${query.toString()}`);
      expect(res.status).toBe(400);
      expect(res.headers.location).toBeUndefined();
      expect(res.text).toContain('redirect_uri was given more than once');
    });

    it('escapes what it shows, so a client name cannot inject markup', async () => {
      const evil = await h.loginSetup({}, { name: '<img src=x onerror=alert(1)>', callbacks: [CALLBACK] });
      const res = await open(authorizeQuery(evil));
      expect(res.status).toBe(200);
      expect(res.text).not.toContain('<img src=x');
      expect(res.text).toContain('&lt;img src=x onerror=alert(1)&gt;');
    });
  });

  describe('after the redirect_uri is proven, errors go back to it in the fragment', () => {
    async function errorOf(query: Record<string, string>) {
      const res = await open(query);
      expect(res.status).toBe(302);
      expect(res.headers.location!.startsWith(`${CALLBACK}#`)).toBe(true);
      return fragmentOf(res.headers.location);
    }

    it('answers unsupported_response_type for an unknown response_type, with the state', async () => {
      expect(await errorOf(authorizeQuery(setup, { response_type: 'code token' }))).toEqual({
        error: 'unsupported_response_type',
        error_description: 'Unsupported response_type: code token. Use code, token, id_token or token id_token.',
        state: 'state-123',
      });
    });

    it('answers invalid_request when response_type is missing, in the query: no response type, so no fragment (RFC 6749 §4.1.2.1)', async () => {
      const res = await open(authorizeQuery(setup, { response_type: undefined }));
      expect(res.status).toBe(302);
      expect(queryOf(res.headers.location)).toEqual({
        error: 'invalid_request',
        error_description: 'The parameter response_type is missing.',
        state: 'state-123',
      });
    });

    it.each([
      ['request', 'request_not_supported', 'Request objects (the request parameter) are not supported: send the parameters in the query.'],
      ['request_uri', 'request_uri_not_supported', 'The request_uri parameter is not supported: send the parameters in the query.'],
    ])('refuses %s with %s rather than ignoring what the object holds (discovery says it is unsupported)', async (name, error, description) => {
      // An unsigned request object (alg none) carrying its own state and nonce.
      const object = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from('{"state":"inner","nonce":"n"}').toString('base64url')}.`;
      const value = name === 'request' ? object : 'https://app.example.com/request.jwt';
      expect(await errorOf(authorizeQuery(setup, { [name]: value }))).toEqual({ error, error_description: description, state: 'state-123' });
    });

    it.each(['id_token', 'token id_token', 'id_token token'])('requires a nonce for response_type=%s', async (responseType) => {
      expect(await errorOf(authorizeQuery(setup, { response_type: responseType, nonce: undefined }))).toEqual({
        error: 'invalid_request',
        error_description: 'The parameter nonce is required when response_type includes id_token.',
        state: 'state-123',
      });
    });

    it('requires the openid scope for an id_token', async () => {
      expect(await errorOf(authorizeQuery(setup, { scope: 'phone' }))).toMatchObject({ error: 'invalid_scope' });
    });

    it('answers login_required for prompt=none: there are no sessions to reuse', async () => {
      expect(await errorOf(authorizeQuery(setup, { prompt: 'none' }))).toMatchObject({ error: 'login_required' });
    });

    it('answers access_denied for an audience that is no API', async () => {
      expect(await errorOf(authorizeQuery(setup, { audience: 'https://unknown-api.example.com' }))).toMatchObject({
        error: 'access_denied',
        error_description: 'Service not found: https://unknown-api.example.com',
      });
    });

    it('refuses the management API as audience while it does not enforce policies (RBAC, docs/rbac.md)', async () => {
      const system = (await h.management('get', `/resource-servers/${encodeURIComponent(`${AUTH_URL}/api/v2/`)}`)).body as { id: string };
      expect((await h.management('patch', `/resource-servers/${system.id}`, { enforce_policies: false })).status).toBe(200);
      try {
        expect(await errorOf(authorizeQuery(setup, { audience: `${AUTH_URL}/api/v2/` }))).toMatchObject({ error: 'access_denied' });
      } finally {
        await h.management('patch', `/resource-servers/${system.id}`, { enforce_policies: true, token_dialect: 'access_token_authz' });
      }
    });

    it('answers unauthorized_client for a client without the passwordless grant', async () => {
      const m2m = await h.loginSetup({}, { app_type: 'non_interactive', callbacks: [CALLBACK] });
      expect(await errorOf(authorizeQuery(m2m))).toMatchObject({ error: 'unauthorized_client' });
    });

    it('answers invalid_request for a connection the client is not enabled on', async () => {
      const other = await h.loginSetup({}, { callbacks: [CALLBACK] });
      expect(await errorOf(authorizeQuery(setup, { connection: other.connection }))).toEqual({
        error: 'invalid_request',
        error_description: `The connection ${other.connection} is not an SMS connection enabled for this client.`,
        state: 'state-123',
      });
    });

    it('requires a connection when the client has several SMS connections, and accepts a named one', async () => {
      const two = await h.loginSetup({}, { callbacks: [CALLBACK] });
      await h.createConnection({}, [two.clientId]);
      expect(await errorOf(authorizeQuery(two))).toMatchObject({
        error: 'invalid_request',
        error_description: 'The parameter connection is required: several SMS connections are enabled for this client.',
      });
      expect((await open(authorizeQuery(two, { connection: two.connection }))).status).toBe(200);
    });

    it('answers invalid_request for a parameter given twice, keeping the state', async () => {
      const query = new URLSearchParams(authorizeQuery(setup));
      query.append('nonce', 'second');
      expect(fragmentOf((await h.http().get(`/authorize?${query.toString()}`)).headers.location)).toMatchObject({
        error: 'invalid_request',
        error_description: 'Parameters given more than once: nonce.',
        state: 'state-123',
      });
    });

    it('leaves state out of the fragment when none was sent', async () => {
      expect(await errorOf(authorizeQuery(setup, { response_type: 'code token', state: undefined }))).not.toHaveProperty('state');
    });

    it('keeps the redirect_uri query and encodes the state exactly', async () => {
      const withQuery = await h.loginSetup({}, { callbacks: ['https://app.example.com/cb?tenant=a'] });
      const state = 'a b&c=d/é#?';
      const res = await open(authorizeQuery(withQuery, { redirect_uri: 'https://app.example.com/cb?tenant=a', response_type: 'code token', state }));
      expect(res.headers.location!.startsWith('https://app.example.com/cb?tenant=a#')).toBe(true);
      expect(fragmentOf(res.headers.location).state).toBe(state);
    });
  });

  describe('a valid request', () => {
    it('shows the phone step: a labelled tel input with autocomplete=tel and a country hint', async () => {
      const res = await open(authorizeQuery(setup));
      expect(res.status).toBe(200);
      expect(res.text).toContain('<html lang="en" dir="ltr">');
      expect(res.text).toContain('<h1>Sign in to Flow App</h1>');
      expect(res.text).toContain('<label for="phone_number">Mobile phone number</label>');
      expect(res.text).toMatch(/<input id="phone_number" name="phone_number" type="tel" autocomplete="tel"[^>]*aria-describedby="phone-hint"/);
      expect(res.text).toContain('<select id="country" name="country" autocomplete="country">');
      expect(res.text).toContain('or with + and the country code');
      expect(res.text).toContain('name="viewport" content="width=device-width, initial-scale=1"');
    });

    it('takes the same parameters in a form POST (OpenID Connect Core §3.1.2.1): the phone step, and errors to the redirect_uri', async () => {
      const post = (query: Record<string, string>) => h.http().post('/authorize').type('form').send(query);
      const page = await post(authorizeQuery(setup));
      expect(page.status).toBe(200);
      expect(page.text).toContain('<h1>Sign in to Flow App</h1>');
      expect(page.headers['set-cookie']).toHaveLength(1);
      const refused = await post(authorizeQuery(setup, { nonce: undefined }));
      expect(refused.status).toBe(302);
      expect(fragmentOf(refused.headers.location)).toEqual({
        error: 'invalid_request',
        error_description: 'The parameter nonce is required when response_type includes id_token.',
        state: 'state-123',
      });
    });

    it('sends a Content-Security-Policy that allows no script at all, and no framing', async () => {
      const res = await open(authorizeQuery(setup));
      const csp = res.headers['content-security-policy'] as string;
      expect(csp).toContain("default-src 'none'");
      expect(csp).not.toMatch(/script-src|unsafe-inline|unsafe-eval/);
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("form-action 'self' https://app.example.com");
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.text).not.toMatch(/<script|\sstyle=|\son\w+=/i);
    });

    it('binds the transaction to an HttpOnly, SameSite=Lax cookie scoped to /authorize', async () => {
      const res = await open(authorizeQuery(setup));
      const cookies = res.headers['set-cookie'] as unknown as string[];
      expect(cookies).toHaveLength(1);
      expect(cookies[0]).toMatch(/^authz_[\w-]{22}=[\w-]{43}; Path=\/authorize; Max-Age=1800; HttpOnly; SameSite=Lax$/);
    });

    it('marks the cookie Secure when AUTH_URL is https', async () => {
      const secure = await startTestIdentity({ AUTH_URL: 'https://auth.example.com' });
      try {
        const admin = await clientCredentialsToken(
          secure.app,
          { clientId: ADMIN_CLIENT_ID, clientSecret: ADMIN_CLIENT_SECRET },
          'https://auth.example.com/api/v2/',
        );
        const manage = (path: string, body: object) => request(secure.app).post(`/api/v2${path}`).set('authorization', `Bearer ${admin}`).send(body);
        const client = (await manage('/clients', { name: 'Secure App', app_type: 'spa', callbacks: [CALLBACK] })).body.client_id as string;
        await manage('/connections', connectionBody({}, [client])).expect(201);
        const res = await request(secure.app).get('/authorize').query(authorizeQuery({ clientId: client } as LoginSetup));
        expect(res.status).toBe(200);
        expect((res.headers['set-cookie'] as unknown as string[])[0]).toMatch(/; HttpOnly; SameSite=Lax; Secure$/);
      } finally {
        await secure.close();
      }
    });

    it('serves its stylesheet as a file', async () => {
      const res = await h.http().get('/authorize/login.css');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/css/);
      expect(res.text).toContain('.wait-30 > span, .wait-30 > button { animation-delay: 30s; }');
      expect(res.text).toContain('.wait-30 .countdown { --cooldown-from: 30; animation-duration: 30s; animation-timing-function: steps(30, end); }');
    });
  });

  it('announces the code flow with PKCE S256 and the implicit flow in the discovery document', async () => {
    const res = await h.http().get('/.well-known/openid-configuration');
    expect(res.body).toMatchObject({
      authorization_endpoint: `${AUTH_URL}/authorize`,
      response_types_supported: ['code', 'token', 'id_token', 'token id_token'],
      response_modes_supported: ['query', 'fragment', 'form_post', 'web_message'],
      code_challenge_methods_supported: ['S256'],
      grant_types_supported: expect.arrayContaining(['authorization_code', 'implicit', 'refresh_token']),
      end_session_endpoint: `${AUTH_URL}/oidc/logout`,
    });
  });
});
