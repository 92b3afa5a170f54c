import { PASSWORDLESS_OTP_GRANT } from '@smsauth/contracts';
import { AUTH_URL } from './helpers';
import { describeOnEachDatabase, FlowHarness, type LoginSetup } from './passwordless/flow-harness';

describeOnEachDatabase('POST /oauth/revoke', (database) => {
  let h: FlowHarness;
  beforeAll(async () => {
    h = await FlowHarness.start({}, { database });
  });
  afterAll(() => h.close());

  /** A signed-in user's refresh token (public native client, offline_access). */
  async function refreshTokenOf(setup: LoginSetup): Promise<string> {
    const who = h.caller();
    const code = await h.sendCode(setup, who);
    const res = await h.otp(setup, who, code, { scope: 'openid offline_access', ...(setup.clientSecret ? { client_secret: setup.clientSecret } : {}) });
    expect(res.status).toBe(200);
    return res.body.refresh_token as string;
  }

  const refresh = (setup: LoginSetup, token: string) =>
    h.http().post('/oauth/token').send({ grant_type: 'refresh_token', client_id: setup.clientId, refresh_token: token });
  const revoke = (body: Record<string, unknown>) => h.http().post('/oauth/revoke').send(body);

  it('revokes a refresh token: 200 with an empty body, and the token (and its successors) no longer refresh', async () => {
    const setup = await h.loginSetup();
    const first = await refreshTokenOf(setup);
    const rotated = await refresh(setup, first);
    expect(rotated.status).toBe(200);
    const res = await revoke({ client_id: setup.clientId, token: first });
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    expect(res.headers['cache-control']).toBe('no-store');
    const after = await refresh(setup, rotated.body.refresh_token);
    expect([after.status, after.body.error]).toEqual([400, 'invalid_grant']);
  });

  it('accepts a form body and a confidential client\'s secret, as the SDKs send it', async () => {
    const setup = await h.loginSetup({}, { name: 'Web', app_type: 'regular_web' });
    const token = await refreshTokenOf(setup);
    const res = await h.http().post('/oauth/revoke').type('form').send({ client_id: setup.clientId, client_secret: setup.clientSecret, token });
    expect(res.status).toBe(200);
    const after = await h
      .http()
      .post('/oauth/token')
      .send({ grant_type: 'refresh_token', client_id: setup.clientId, client_secret: setup.clientSecret, refresh_token: token });
    expect(after.status).toBe(400);
  });

  it('answers 200 for an unknown token and leaves another client\'s token working', async () => {
    const mine = await h.loginSetup();
    const theirs = await h.loginSetup();
    expect((await revoke({ client_id: mine.clientId, token: 'no-such-token' })).status).toBe(200);
    const their = await refreshTokenOf(theirs);
    const res = await revoke({ client_id: mine.clientId, token: their });
    expect([res.status, res.text]).toEqual([200, '']);
    expect((await refresh(theirs, their)).status).toBe(200);
  });

  it('answers 400 invalid_request naming a missing token or client_id, and 401 for an unknown client', async () => {
    const setup = await h.loginSetup();
    const noToken = await revoke({ client_id: setup.clientId });
    expect([noToken.status, noToken.body.error, noToken.body.error_description]).toEqual([400, 'invalid_request', 'Missing or invalid parameter: token']);
    const noClient = await revoke({ token: 'x' });
    expect([noClient.status, noClient.body.error_description]).toEqual([400, 'Missing or invalid parameter: client_id']);
    const unknown = await revoke({ client_id: 'nobody', token: 'x' });
    expect([unknown.status, unknown.body]).toEqual([401, { error: 'invalid_client', error_description: 'Client authentication failed' }]);
  });

  it('keeps the OTP grant usable for the revoked user (a revoke ends a token, not the account)', async () => {
    const setup = await h.loginSetup();
    const who = h.caller();
    const first = await h.otp(setup, who, await h.sendCode(setup, who), { scope: 'openid offline_access' });
    expect((await revoke({ client_id: setup.clientId, token: first.body.refresh_token })).status).toBe(200);
    const again = await h.http().post('/oauth/token').send({
      grant_type: PASSWORDLESS_OTP_GRANT,
      client_id: setup.clientId,
      realm: setup.connection,
      username: who.phone,
      otp: await h.sendCode(setup, who),
    });
    expect(again.status).toBe(200);
  });
});

describe('GET /v2/logout', () => {
  let h: FlowHarness;
  let clientId: string;
  beforeAll(async () => {
    h = await FlowHarness.start();
    const created = await h.management('post', '/clients', {
      name: 'Logout app',
      app_type: 'spa',
      allowed_logout_urls: ['https://app.example.com/signed-out', 'https://app.example.com/bye'],
    });
    expect(created.body.allowed_logout_urls).toEqual(['https://app.example.com/signed-out', 'https://app.example.com/bye']);
    clientId = created.body.client_id;
  });
  afterAll(() => h.close());

  const logout = (query: Record<string, string>) => h.http().get('/v2/logout').query(query);

  it('redirects to a returnTo the client lists', async () => {
    const res = await logout({ client_id: clientId, returnTo: 'https://app.example.com/bye' });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('https://app.example.com/bye');
  });

  it('answers a 400 page naming a returnTo the client does not list, and never redirects there', async () => {
    for (const returnTo of ['https://evil.example/', 'https://app.example.com/bye/', 'https://app.example.com/bye?x=1']) {
      const res = await logout({ client_id: clientId, returnTo });
      expect(res.status).toBe(400);
      expect(res.headers.location).toBeUndefined();
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toContain('is not defined as a valid URL in &quot;Allowed Logout URLs&quot;');
    }
  });

  it('refuses a returnTo without a client_id or with an unknown one', async () => {
    expect((await logout({ returnTo: 'https://app.example.com/bye' })).status).toBe(400);
    const unknown = await logout({ client_id: 'nobody', returnTo: 'https://app.example.com/bye' });
    expect(unknown.status).toBe(400);
    expect(unknown.text).toContain('Unknown client');
  });

  it('without returnTo, goes to the client\'s first allowed logout URL, or shows a signed-out page', async () => {
    const first = await logout({ client_id: clientId });
    expect([first.status, first.headers.location]).toEqual([302, 'https://app.example.com/signed-out']);
    const bare = await logout({});
    expect(bare.status).toBe(200);
    expect(bare.text).toContain('signed out');
  });

  it('follows a PATCH of allowed_logout_urls, and refuses a URL that is not http(s)', async () => {
    const patched = await h.management('patch', `/clients/${clientId}`, { allowed_logout_urls: ['https://new.example.com/'] });
    expect(patched.body.allowed_logout_urls).toEqual(['https://new.example.com/']);
    expect((await logout({ client_id: clientId, returnTo: 'https://new.example.com/' })).status).toBe(302);
    expect((await logout({ client_id: clientId, returnTo: 'https://app.example.com/bye' })).status).toBe(400);
    const bad = await h.management('patch', `/clients/${clientId}`, { allowed_logout_urls: ['javascript:alert(1)'] });
    expect([bad.status, bad.body.details[0].path]).toEqual([400, 'allowed_logout_urls.0']);
  });

  it('is announced by discovery, with the revocation endpoint and private_key_jwt', async () => {
    const discovery = (await h.http().get('/.well-known/openid-configuration')).body;
    expect(discovery).toMatchObject({
      revocation_endpoint: `${AUTH_URL}/oauth/revoke`,
      end_session_endpoint: `${AUTH_URL}/oidc/logout`,
      token_endpoint_auth_methods_supported: expect.arrayContaining(['client_secret_post', 'client_secret_basic', 'private_key_jwt', 'none']),
      token_endpoint_auth_signing_alg_values_supported: expect.arrayContaining(['RS256', 'PS256', 'ES256']),
    });
  });
});
