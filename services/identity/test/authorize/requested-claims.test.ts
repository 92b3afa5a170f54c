import { createHash, randomBytes } from 'node:crypto';
import { FlowHarness, type LoginSetup } from '../passwordless/flow-harness';
import { CALLBACK, fragmentOf, LoginSession, queryOf } from './login-session';

// OpenID Connect Core §5.5 (the claims parameter), §3.1.2.1 (acr_values, id_token_hint), and the
// response mode of a refused request object: what test-compat's conformance modules need of
// /authorize, checked here without a browser.

const ACR = 'urn:smsauth:acr:single-factor';
const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('/authorize: claims, acr_values, id_token_hint', () => {
  let h: FlowHarness;
  let setup: LoginSetup;
  let browser: LoginSession;
  let phone: string;
  let sub: string;

  const implicit = (extra: Record<string, string> = {}) => ({
    client_id: setup.clientId,
    redirect_uri: CALLBACK,
    response_type: 'token id_token',
    nonce: 'n',
    state: 'st',
    scope: 'openid',
    prompt: 'none',
    ...extra,
  });

  beforeAll(async () => {
    h = await FlowHarness.start();
    const client = await h.createClient({ name: 'Claims', app_type: 'spa', callbacks: [CALLBACK], grant_types: ['authorization_code', 'implicit', 'refresh_token'] });
    const connection = await h.createConnection({}, [client.client_id]);
    setup = { clientId: client.client_id, clientName: client.name, connection: connection.name, connectionId: connection.id };
    const who = h.caller();
    phone = who.phone;
    browser = new LoginSession(h, who.ip);
    await browser.open({ ...implicit(), prompt: 'login' });
    await browser.submitPhone(who.phone);
    const res = await browser.submitCode(h.codeSentTo(who.phone));
    sub = (await h.verifyWithJwks(fragmentOf(res.headers.location).id_token!, setup.clientId)).claims.sub!;
  });
  afterAll(() => h.close());

  it('releases user claims named in the claims parameter: in the ID token and at /userinfo', async () => {
    const claims = JSON.stringify({ id_token: { name: null, email: { essential: true } }, userinfo: { phone_number: { essential: true } } });
    const response = fragmentOf((await browser.open(implicit({ claims }))).headers.location);
    const { claims: idToken } = await h.verifyWithJwks(response.id_token!, setup.clientId);
    expect(idToken).toMatchObject({ name: phone });
    expect(idToken).not.toHaveProperty('email');
    expect(idToken).not.toHaveProperty('phone_number');
    const info = await h.http().get('/userinfo').set('authorization', `Bearer ${response.access_token}`);
    expect(info.body).toEqual({ sub, phone_number: phone });
  });

  it('keeps the claims asked for at UserInfo through a code exchange and a refresh', async () => {
    const verifier = randomBytes(32).toString('base64url');
    const res = await browser.open({
      ...implicit({ claims: JSON.stringify({ userinfo: { name: { essential: true } } }), scope: 'openid offline_access' }),
      response_type: 'code',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    });
    const { code } = queryOf(res.headers.location);
    const tokens = await h.http().post('/oauth/token').type('form').send({ grant_type: 'authorization_code', client_id: setup.clientId, code, redirect_uri: CALLBACK, code_verifier: verifier });
    expect(tokens.status).toBe(200);
    const { claims: idToken } = await h.verifyWithJwks(tokens.body.id_token, setup.clientId);
    expect(idToken).not.toHaveProperty('name');
    const info = await h.http().get('/userinfo').set('authorization', `Bearer ${tokens.body.access_token}`);
    expect(info.body).toEqual({ sub, name: phone });
    const refreshed = await h.http().post('/oauth/token').type('form').send({ grant_type: 'refresh_token', client_id: setup.clientId, refresh_token: tokens.body.refresh_token });
    expect(refreshed.status).toBe(200);
    const again = await h.http().get('/userinfo').set('authorization', `Bearer ${refreshed.body.access_token}`);
    expect(again.body).toEqual({ sub, name: phone });
  });

  it('refuses a claims parameter that is not a JSON object', async () => {
    const response = fragmentOf((await browser.open(implicit({ claims: '{"userinfo":' }))).headers.location);
    expect(response).toMatchObject({ error: 'invalid_request', error_description: 'The claims parameter must be a JSON object.', state: 'st' });
  });

  it('puts the acr in the ID token when acr_values or the claims parameter asks for the one it asserts, and none otherwise', async () => {
    const acrOf = async (extra: Record<string, string>) =>
      (await h.verifyWithJwks(fragmentOf((await browser.open(implicit(extra))).headers.location).id_token!, setup.clientId)).claims.acr;
    expect(await acrOf({ acr_values: `1 ${ACR}` })).toBe(ACR);
    expect(await acrOf({ claims: JSON.stringify({ id_token: { acr: { essential: true } } }) })).toBe(ACR);
    expect(await acrOf({ acr_values: 'urn:mace:incommon:iap:silver' })).toBeUndefined();
    expect(await acrOf({})).toBeUndefined();
    const discovery = await h.http().get('/.well-known/openid-configuration');
    expect(discovery.body).toMatchObject({ acr_values_supported: [ACR], claims_parameter_supported: true });
  });

  it('answers prompt=none with an id_token_hint of the signed-in user, and login_required for another user', async () => {
    const own = fragmentOf((await browser.open(implicit())).headers.location).id_token!;
    expect(fragmentOf((await browser.open(implicit({ id_token_hint: own }))).headers.location).id_token).toEqual(expect.any(String));
    const other = `${encode({ alg: 'RS256' })}.${encode({ sub: 'sms|someone-else' })}.sig`;
    expect(fragmentOf((await browser.open(implicit({ id_token_hint: other }))).headers.location)).toMatchObject({ error: 'login_required', state: 'st' });
    // Without prompt=none the phone page asks who signs in.
    expect((await browser.open(implicit({ id_token_hint: other, prompt: 'consent' }))).status).toBe(200);
  });

  it('sends the refusal of a request object by the response_mode inside it when none is outside', async () => {
    const object = `${encode({ alg: 'none' })}.${encode({ response_mode: 'form_post', state: 'inside' })}.`;
    const res = await browser.open({ client_id: setup.clientId, redirect_uri: CALLBACK, response_type: 'code', scope: 'openid', request: object });
    expect(res.status).toBe(200);
    expect(res.text).toContain('name="error" value="request_not_supported"');
    expect(res.text).not.toContain('inside');
  });
});
