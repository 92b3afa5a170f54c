import { createHash, randomUUID, type KeyObject } from 'node:crypto';
import { detachedKeyPair } from '@smsauth/test-support';
import jwt from 'jsonwebtoken';
import { JWT_BEARER_ASSERTION_TYPE, PASSWORDLESS_OTP_GRANT } from '@smsauth/contracts';
import { AUTH_URL, describeWithPostgres, dropSchema, uniqueSchema } from './helpers';
import { describeOnEachDatabase, FlowHarness, ISSUER, type LoginSetup } from './passwordless/flow-harness';

type Alg = 'RS256' | 'PS256' | 'ES256';

/** A real key pair for private_key_jwt. */
function keyPair(alg: Alg): { privateKey: KeyObject; publicPem: string } {
  const { privateKey, publicKey } =
    alg === 'ES256' ? detachedKeyPair('ec', { namedCurve: 'prime256v1' }) : detachedKeyPair('rsa', { modulusLength: 2048 });
  return { privateKey, publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
}

interface KeyClient extends LoginSetup {
  privateKey: KeyObject;
  alg: Alg;
  credentialId: string;
}

/** What a request sends to authenticate: body fields and headers. */
interface Credentials {
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

const INVALID_CLIENT = { error: 'invalid_client', error_description: 'Client authentication failed' };

describeOnEachDatabase('client authentication', (database) => {
  let h: FlowHarness;
  beforeAll(async () => {
    h = await FlowHarness.start({}, { database });
  });
  afterAll(() => h.close());

  const now = () => Math.floor(h.clock.now().getTime() / 1000);

  function assertion(client: { clientId: string; privateKey: KeyObject; alg: Alg }, claims: Record<string, unknown> = {}): string {
    const payload = { iss: client.clientId, sub: client.clientId, aud: ISSUER, iat: now(), exp: now() + 120, jti: randomUUID(), ...claims };
    // A claim set to undefined is one the test leaves out.
    const present = Object.fromEntries(Object.entries(payload).filter(([, value]) => value !== undefined));
    return jwt.sign(present, client.privateKey, { algorithm: client.alg });
  }

  const post = (setup: LoginSetup): Credentials => ({ body: { client_secret: setup.clientSecret }, headers: {} });
  const basic = (setup: LoginSetup, secret = setup.clientSecret): Credentials => ({
    body: {},
    headers: { authorization: `Basic ${Buffer.from(`${setup.clientId}:${secret}`).toString('base64')}` },
  });
  const signed = (client: KeyClient, claims: Record<string, unknown> = {}): Credentials => ({
    body: { client_assertion: assertion(client, claims), client_assertion_type: JWT_BEARER_ASSERTION_TYPE },
    headers: {},
  });

  async function secretClient(method: 'client_secret_post' | 'client_secret_basic'): Promise<LoginSetup> {
    return h.loginSetup({}, { name: `Web ${method}`, app_type: 'regular_web', token_endpoint_auth_method: method });
  }

  async function keyClient(alg: Alg = 'RS256'): Promise<KeyClient> {
    const setup = await h.loginSetup({}, { name: `Keyed ${alg}`, app_type: 'regular_web', token_endpoint_auth_method: 'private_key_jwt' });
    const { privateKey, publicPem } = keyPair(alg);
    const res = await h.management('post', `/clients/${setup.clientId}/credentials`, { credential_type: 'public_key', name: 'key 1', pem: publicPem, alg });
    expect(res.status).toBe(201);
    return { ...setup, privateKey, alg, credentialId: res.body.id };
  }

  function start(setup: LoginSetup, who: { phone: string; ip: string }, credentials: Credentials) {
    return h
      .http()
      .post('/passwordless/start')
      .set({ 'X-Forwarded-For': who.ip, ...credentials.headers })
      .send({ client_id: setup.clientId, connection: setup.connection, phone_number: who.phone, send: 'code', ...credentials.body });
  }

  function otp(setup: LoginSetup, who: { phone: string; ip: string }, code: string, credentials: Credentials) {
    return h
      .http()
      .post('/oauth/token')
      .set({ 'X-Forwarded-For': who.ip, ...credentials.headers })
      .send({
        grant_type: PASSWORDLESS_OTP_GRANT,
        client_id: setup.clientId,
        realm: setup.connection,
        username: who.phone,
        otp: code,
        scope: 'openid offline_access',
        ...credentials.body,
      });
  }

  function ro(setup: LoginSetup, who: { phone: string; ip: string }, code: string, credentials: Credentials) {
    return h
      .http()
      .post('/oauth/ro')
      .set({ 'X-Forwarded-For': who.ip, ...credentials.headers })
      .send({ client_id: setup.clientId, connection: setup.connection, grant_type: 'password', username: who.phone, password: code, scope: 'openid', ...credentials.body });
  }

  function refresh(setup: LoginSetup, refreshToken: string, credentials: Credentials) {
    return h
      .http()
      .post('/oauth/token')
      .type('form')
      .set(credentials.headers)
      .send({ grant_type: 'refresh_token', client_id: setup.clientId, refresh_token: refreshToken, ...credentials.body });
  }

  function revoke(setup: LoginSetup, token: string, credentials: Credentials) {
    return h.http().post('/oauth/revoke').set(credentials.headers).send({ client_id: setup.clientId, token, ...credentials.body });
  }

  /** start -> OTP grant -> refresh -> /oauth/ro with a second code -> revoke -> refresh refused. */
  async function signInEverywhere(setup: LoginSetup, credentials: () => Credentials): Promise<void> {
    const who = h.caller();
    expect((await start(setup, who, credentials())).status).toBe(200);
    const tokens = await otp(setup, who, h.codeSentTo(who.phone), credentials());
    expect(tokens.status).toBe(200);
    expect(tokens.body.refresh_token).toEqual(expect.any(String));

    const refreshed = await refresh(setup, tokens.body.refresh_token, credentials());
    expect(refreshed.status).toBe(200);

    expect((await start(setup, who, credentials())).status).toBe(200);
    const legacy = await ro(setup, who, h.codeSentTo(who.phone), credentials());
    expect(legacy.status).toBe(200);
    expect(legacy.body.id_token).toEqual(expect.any(String));

    const revoked = await revoke(setup, refreshed.body.refresh_token, credentials());
    expect(revoked.status).toBe(200);
    expect(revoked.text).toBe('');
    const after = await refresh(setup, refreshed.body.refresh_token, credentials());
    expect(after.status).toBe(400);
    expect(after.body.error).toBe('invalid_grant');
  }

  describe('each endpoint takes each method', () => {
    it('client_secret_post: the secret in the body at start, the OTP grant, refresh, /oauth/ro and revoke', async () => {
      const setup = await secretClient('client_secret_post');
      await signInEverywhere(setup, () => post(setup));
    });

    it('client_secret_basic: the secret by HTTP Basic at every endpoint', async () => {
      const setup = await secretClient('client_secret_basic');
      await signInEverywhere(setup, () => basic(setup));
    });

    it('private_key_jwt: a fresh RS256 assertion at every endpoint', async () => {
      const client = await keyClient('RS256');
      await signInEverywhere(client, () => signed(client));
    });

    it.each<Alg>(['PS256', 'ES256'])('private_key_jwt signed with %s authenticates', async (alg) => {
      const client = await keyClient(alg);
      const res = await revoke(client, 'no-such-token', signed(client));
      expect(res.status).toBe(200);
    });

    it('takes the token endpoint URL and AUTH_URL as the assertion audience, and client_id from the assertion alone', async () => {
      const client = await keyClient();
      for (const aud of [`${AUTH_URL}/oauth/token`, AUTH_URL]) {
        expect((await revoke(client, 'x', signed(client, { aud }))).status).toBe(200);
      }
      const res = await h
        .http()
        .post('/oauth/revoke')
        .type('form')
        .send({ token: 'x', client_assertion: assertion(client), client_assertion_type: JWT_BEARER_ASSERTION_TYPE });
      expect(res.status).toBe(200);
    });

    it('lets a public client (none) start and sign in with its client_id alone', async () => {
      const setup = await h.loginSetup({}, { name: 'Native', app_type: 'native' });
      const who = h.caller();
      expect((await start(setup, who, { body: {}, headers: {} })).status).toBe(200);
      expect((await otp(setup, who, h.codeSentTo(who.phone), { body: {}, headers: {} })).status).toBe(200);
    });
  });

  describe('refusals are one 401 invalid_client, whatever was wrong', () => {
    let web: LoginSetup;
    let keyed: KeyClient;
    let native: LoginSetup;
    const stranger = () => ({ ...keyPair('RS256'), alg: 'RS256' as Alg });

    beforeAll(async () => {
      web = await secretClient('client_secret_post');
      keyed = await keyClient('RS256');
      native = await h.loginSetup({}, { name: 'Native', app_type: 'native' });
    });

    /** Each wrong credential, paired with the client it is presented for. */
    function wrongCredentials(): Array<[string, LoginSetup, Credentials]> {
      const replayed = signed(keyed);
      return [
        ['a wrong secret', web, post({ ...web, clientSecret: 'not-the-secret-but-long-enough-to-look-real' })],
        ['a wrong secret by Basic', web, basic(web, 'not-the-secret')],
        ['no secret', web, { body: {}, headers: {} }],
        ['a secret where a key is registered', keyed, { body: { client_secret: 'anything' }, headers: {} }],
        ['an assertion signed with an unregistered key', keyed, signed({ ...keyed, ...stranger() })],
        ['an expired assertion', keyed, signed(keyed, { iat: now() - 600, exp: now() - 300 })],
        ['an assertion without exp', keyed, signed(keyed, { exp: undefined })],
        ['an assertion living too long', keyed, signed(keyed, { exp: now() + 3600 })],
        ['an assertion for another audience', keyed, signed(keyed, { aud: 'https://elsewhere.example/' })],
        ['an assertion of another issuer', keyed, signed(keyed, { iss: 'someone-else' })],
        ['an assertion without jti', keyed, signed(keyed, { jti: undefined })],
        ['a replayed assertion (first use)', keyed, replayed],
        ['no credential where a key is registered', keyed, { body: {}, headers: {} }],
        ['a secret sent by a public client', native, { body: { client_secret: 'a-secret-it-does-not-have' }, headers: {} }],
      ];
    }

    it('answers the same body at /oauth/revoke for every wrong credential, and a replayed jti only once', async () => {
      const results: Array<[string, number, unknown]> = [];
      for (const [what, client, credentials] of wrongCredentials()) {
        const res = await revoke(client, 'x', credentials);
        results.push([what, res.status, res.body]);
        if (what === 'a replayed assertion (first use)') {
          const again = await revoke(client, 'x', credentials);
          results.push(['a replayed assertion (second use)', again.status, again.body]);
        }
      }
      const expected = results.map(([what]) =>
        what === 'a replayed assertion (first use)' ? [what, 200, ''] : [what, 401, INVALID_CLIENT],
      );
      expect(results.map(([what, status, body]) => [what, status, body === '' || Object.keys(body as object).length === 0 ? '' : body])).toEqual(expected);
    });

    it('refuses them the same way at start, the OTP grant, refresh and /oauth/ro', async () => {
      const who = h.caller();
      for (const [what, client, credentials] of wrongCredentials().filter(([what]) => !what.startsWith('a replayed'))) {
        const answers = [
          await start(client, who, credentials),
          await otp(client, who, '000000', credentials),
          await refresh(client, 'some-refresh-token', credentials),
          await ro(client, who, '000000', credentials),
        ];
        expect([what, answers.map((r) => [r.status, r.body])]).toEqual([what, answers.map(() => [401, INVALID_CLIENT])]);
      }
      expect(h.gateway.requests.filter((r) => JSON.parse(r.body).recipient === who.phone)).toHaveLength(0);
    });

    it('refuses an assertion whose jti was used at another endpoint', async () => {
      const credentials = signed(keyed);
      expect((await revoke(keyed, 'x', credentials)).status).toBe(200);
      const who = h.caller();
      const res = await start(keyed, who, credentials);
      expect([res.status, res.body]).toEqual([401, INVALID_CLIENT]);
    });

    it('answers 400 invalid_request for two methods at once or an unknown assertion type', async () => {
      const both = await revoke(web, 'x', { body: { client_secret: web.clientSecret }, headers: basic(web).headers });
      expect([both.status, both.body.error]).toEqual([400, 'invalid_request']);
      const wrongType = await revoke(keyed, 'x', { body: { client_assertion: assertion(keyed), client_assertion_type: 'urn:other' }, headers: {} });
      expect([wrongType.status, wrongType.body.error]).toEqual([400, 'invalid_request']);
      expect(wrongType.body.error_description).toContain(JWT_BEARER_ASSERTION_TYPE);
    });

    it('stops accepting a key once its credential has expired (PATCH expires_at), and again when the expiry is removed', async () => {
      const client = await keyClient();
      const path = `/clients/${client.clientId}/credentials/${client.credentialId}`;
      const expired = await h.management('patch', path, { expires_at: new Date(h.clock.now().getTime() - 1000).toISOString() });
      expect(expired.status).toBe(200);
      expect(expired.body.expires_at).toEqual(expect.any(String));
      expect((await revoke(client, 'x', signed(client))).status).toBe(401);
      const cleared = await h.management('patch', path, { expires_at: null });
      expect(cleared.body.expires_at).toBeUndefined();
      expect((await revoke(client, 'x', signed(client))).status).toBe(200);
      const bad = await h.management('patch', path, { expires_at: 'tomorrow' });
      expect([bad.status, bad.body.details?.[0]?.path]).toEqual([400, 'expires_at']);
    });

    it('stops accepting a key once its credential is deleted', async () => {
      const client = await keyClient();
      expect((await revoke(client, 'x', signed(client))).status).toBe(200);
      expect((await h.management('delete', `/clients/${client.clientId}/credentials/${client.credentialId}`)).status).toBe(204);
      const res = await revoke(client, 'x', signed(client));
      expect([res.status, res.body]).toEqual([401, INVALID_CLIENT]);
    });
  });

  describe('client records and credentials in Auth0\'s shapes', () => {
    it('defaults token_endpoint_auth_method by app_type and lets create and PATCH set it', async () => {
      const native = await h.management('post', '/clients', { name: 'N', app_type: 'native' });
      expect(native.body).toMatchObject({ token_endpoint_auth_method: 'none', allowed_logout_urls: [] });
      const web = await h.management('post', '/clients', { name: 'W', app_type: 'regular_web' });
      expect(web.body.token_endpoint_auth_method).toBe('client_secret_post');
      const patched = await h.management('patch', `/clients/${web.body.client_id}`, { token_endpoint_auth_method: 'client_secret_basic' });
      expect(patched.status).toBe(200);
      expect(patched.body.token_endpoint_auth_method).toBe('client_secret_basic');
      expect((await h.management('get', `/clients/${web.body.client_id}`)).body.token_endpoint_auth_method).toBe('client_secret_basic');
    });

    it('refuses a secret method for a public client, naming the field', async () => {
      const res = await h.management('post', '/clients', { name: 'N', app_type: 'spa', token_endpoint_auth_method: 'client_secret_post' });
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual([{ path: 'token_endpoint_auth_method', message: expect.stringContaining('spa') }]);
    });

    it('registers the keys of Auth0\'s client_authentication_methods on create, and their ids on PATCH', async () => {
      const { privateKey, publicPem } = keyPair('RS256');
      const created = await h.management('post', '/clients', {
        name: 'Keyed by Auth0 shape',
        app_type: 'non_interactive',
        token_endpoint_auth_method: null,
        client_authentication_methods: { private_key_jwt: { credentials: [{ credential_type: 'public_key', name: 'k', pem: publicPem }] } },
      });
      expect(created.status).toBe(201);
      const clientId = created.body.client_id as string;
      const listed = await h.management('get', `/clients/${clientId}/credentials`);
      expect(listed.body).toHaveLength(1);
      // Auth0's answer for such a client: no token_endpoint_auth_method, the credential ids instead.
      expect(created.body.token_endpoint_auth_method).toBeNull();
      expect(created.body.client_authentication_methods).toEqual({ private_key_jwt: { credentials: [{ id: listed.body[0].id }] } });
      const client = { clientId, privateKey, alg: 'RS256' as Alg };
      const res = await h
        .http()
        .post('/oauth/revoke')
        .send({ client_id: clientId, token: 'x', client_assertion: assertion(client), client_assertion_type: JWT_BEARER_ASSERTION_TYPE });
      expect(res.status).toBe(200);

      const web = await h.management('post', '/clients', { name: 'Later keyed', app_type: 'regular_web' });
      const key = await h.management('post', `/clients/${web.body.client_id}/credentials`, { credential_type: 'public_key', pem: keyPair('RS256').publicPem });
      const enabled = await h.management('patch', `/clients/${web.body.client_id}`, {
        token_endpoint_auth_method: null,
        client_authentication_methods: { private_key_jwt: { credentials: [{ id: key.body.id }] } },
      });
      expect(enabled.body).toMatchObject({ token_endpoint_auth_method: null, client_authentication_methods: { private_key_jwt: { credentials: [{ id: key.body.id }] } } });
      const unknown = await h.management('patch', `/clients/${web.body.client_id}`, {
        client_authentication_methods: { private_key_jwt: { credentials: [{ id: 'cred_nope' }] } },
      });
      expect(unknown.status).toBe(400);
      expect(unknown.body.details[0].path).toBe('client_authentication_methods.private_key_jwt.credentials.0.id');
    });

    it('creates, lists, gets and deletes credentials with a thumbprint kid and never the PEM', async () => {
      const web = await h.management('post', '/clients', { name: 'CRUD', app_type: 'regular_web' });
      const id = web.body.client_id as string;
      const { publicPem } = keyPair('ES256');
      const created = await h.management('post', `/clients/${id}/credentials`, { credential_type: 'public_key', name: 'ec', pem: publicPem, alg: 'ES256' });
      expect(created.status).toBe(201);
      const jwk = (await import('node:crypto')).createPublicKey(publicPem).export({ format: 'jwk' });
      const thumbprint = createHash('sha256').update(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y })).digest('base64url');
      expect(created.body).toEqual({
        id: expect.stringMatching(/^cred_/),
        credential_type: 'public_key',
        name: 'ec',
        kid: thumbprint,
        alg: 'ES256',
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      expect((await h.management('get', `/clients/${id}/credentials`)).body).toEqual([created.body]);
      expect((await h.management('get', `/clients/${id}/credentials/${created.body.id}`)).body).toEqual(created.body);
      expect((await h.management('delete', `/clients/${id}/credentials/${created.body.id}`)).status).toBe(204);
      expect((await h.management('get', `/clients/${id}/credentials/${created.body.id}`)).status).toBe(404);
      expect((await h.management('get', '/clients/nobody/credentials')).status).toBe(404);
    });

    it('refuses a private key, a key that does not fit alg, and another credential_type, naming the field', async () => {
      const web = await h.management('post', '/clients', { name: 'Bad keys', app_type: 'regular_web' });
      const path = `/clients/${web.body.client_id}/credentials`;
      const { privateKey } = keyPair('RS256');
      const privatePem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ credential_type: 'public_key', pem: privatePem }, 'pem'],
        [{ credential_type: 'public_key', pem: keyPair('ES256').publicPem, alg: 'RS256' }, 'pem'],
        [{ credential_type: 'public_key', pem: 'not a key' }, 'pem'],
        [{ credential_type: 'x509_cert', pem: keyPair('RS256').publicPem }, 'credential_type'],
      ];
      for (const [body, field] of cases) {
        const res = await h.management('post', path, body);
        expect([res.status, res.body.details?.[0]?.path]).toEqual([400, field]);
      }
      expect((await h.management('get', path)).body).toEqual([]);
    });
  });
});

describeWithPostgres('a client assertion replayed at another replica', (databaseUrl) => {
  const schema = uniqueSchema('assertion_replay');
  const database = { name: 'PostgreSQL', env: { DATABASE_URL: databaseUrl }, schema };
  let first: FlowHarness;
  let second: FlowHarness;
  beforeAll(async () => {
    first = await FlowHarness.start({}, { database });
    second = await FlowHarness.start({}, { database });
  });
  afterAll(async () => {
    await first.close();
    await second.close();
    await dropSchema(databaseUrl, schema);
  });

  it('is refused there: the jti is recorded in the shared database', async () => {
    const created = await first.management('post', '/clients', { name: 'Keyed', app_type: 'regular_web', token_endpoint_auth_method: 'private_key_jwt' });
    const { privateKey, publicPem } = keyPair('RS256');
    expect((await first.management('post', `/clients/${created.body.client_id}/credentials`, { credential_type: 'public_key', pem: publicPem })).status).toBe(201);
    const now = Math.floor(first.clock.now().getTime() / 1000);
    const clientAssertion = jwt.sign(
      { iss: created.body.client_id, sub: created.body.client_id, aud: ISSUER, iat: now, exp: now + 60, jti: randomUUID() },
      privateKey,
      { algorithm: 'RS256', keyid: 'an-sdk-chosen-kid' },
    );
    const body = { client_id: created.body.client_id, token: 'x', client_assertion: clientAssertion, client_assertion_type: JWT_BEARER_ASSERTION_TYPE };
    expect((await first.http().post('/oauth/revoke').send(body)).status).toBe(200);
    const replay = await second.http().post('/oauth/revoke').send(body);
    expect([replay.status, replay.body]).toEqual([401, INVALID_CLIENT]);
  });
});
