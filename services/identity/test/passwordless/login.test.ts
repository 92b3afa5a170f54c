import { IdTokenClaimsSchema, OAuthTokenResponseSchema, PASSWORDLESS_OTP_GRANT, RoTokenResponseSchema, UserInfoResponseSchema } from '@smsauth/contracts';
import jwt from 'jsonwebtoken';
import { ADMIN_CLIENT_ID, ADMIN_CLIENT_SECRET, clientCredentialsToken, MANAGEMENT_AUDIENCE } from '../helpers';
import { describeOnEachDatabase, FlowHarness, ISSUER, type LoginSetup } from './flow-harness';

const API = 'https://airport.flow.test';
const GATEWAY_SECRET = 'gateway-secret-that-must-never-be-logged';

describeOnEachDatabase('passwordless login: /oauth/ro, the OTP grant, refresh tokens and /userinfo', (database) => {
  let h: FlowHarness;
  let setup: LoginSetup;
  const iat = () => Math.floor(h.clock.now().getTime() / 1000);

  beforeAll(async () => {
    h = await FlowHarness.start({ TRUST_PROXY: 'true' }, { database });
    await h.createApi({ name: 'Airport API', identifier: API, token_lifetime: 7200, scopes: [{ value: 'read:airports' }] });
    setup = await h.loginSetup({
      gateway_authentication: { method: 'bearer', subject: 'identity', audience: 'sms-gateway', secret: GATEWAY_SECRET },
    });
  });
  afterAll(() => h.close());

  describe('POST /oauth/ro', () => {
    it('exchanges the code for an RS256 id_token (for `openid` alone: no profile or phone claims) and an opaque access token (spec 2.6)', async () => {
      const who = h.caller();
      const code = await h.sendCode(setup, who, { scope: 'openid', state: 's1', nonce: 'nonce-123' });
      const res = await h.ro(setup, who, code, { device: 'phone' });
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(Object.keys(res.body).sort()).toEqual(['access_token', 'id_token', 'token_type']);
      const body = RoTokenResponseSchema.parse(res.body);
      expect(body.token_type).toBe('bearer');
      expect(body.access_token.split('.')).toHaveLength(1);

      const { header, claims } = await h.verifyWithJwks(body.id_token!, setup.clientId);
      expect(header).toMatchObject({ alg: 'RS256', typ: 'JWT' });
      const user = await h.identity.store.users.findByPhone(setup.connectionId, who.phone);
      expect(IdTokenClaimsSchema.parse(claims)).toEqual({
        iss: ISSUER,
        sub: user!.user_id,
        aud: setup.clientId,
        iat: iat(),
        exp: iat() + 36_000,
        nonce: 'nonce-123',
      });
    });

    it('accepts a form-encoded body', async () => {
      const who = h.caller();
      const code = await h.sendCode(setup, who);
      const res = await h
        .http()
        .post('/oauth/ro')
        .set('X-Forwarded-For', who.ip)
        .type('form')
        .send({ client_id: setup.clientId, connection: setup.connection, grant_type: 'password', username: who.phone, password: code, scope: 'openid' });
      expect(res.status).toBe(200);
      expect(res.body.token_type).toBe('bearer');
    });

    it('leaves the id_token out when scope lacks openid', async () => {
      const who = h.caller();
      const res = await h.ro(setup, who, await h.sendCode(setup, who), { scope: 'phone' });
      expect(res.status).toBe(200);
      expect(res.body.id_token).toBeUndefined();
      expect(res.body.access_token).toEqual(expect.any(String));
    });

    it('adds a refresh_token for scope offline_access with a device', async () => {
      const who = h.caller();
      const res = await h.ro(setup, who, await h.sendCode(setup, who), { scope: 'openid offline_access', device: 'Pixel' });
      expect(res.status).toBe(200);
      expect(res.body.refresh_token).toEqual(expect.any(String));
      const { rows } = await h.identity.sql.query<{ device: string }>('SELECT device FROM refresh_tokens WHERE client_id = $1', [setup.clientId]);
      expect(rows.map((r) => r.device)).toContain('Pixel');
    });

    it('answers 400 invalid_request for offline_access without a device, leaving the code usable', async () => {
      const who = h.caller();
      const code = await h.sendCode(setup, who);
      const res = await h.ro(setup, who, code, { scope: 'openid offline_access' });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_request');
      expect((await h.ro(setup, who, code)).status).toBe(200);
    });

    it('answers 400 unsupported_grant_type for a grant_type other than password', async () => {
      const res = await h.ro(setup, h.caller(), '123456', { grant_type: 'client_credentials' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'unsupported_grant_type', error_description: 'Unsupported grant type: client_credentials' });
    });

    it.each(['client_id', 'connection', 'grant_type', 'username', 'password'])('answers 400 invalid_request without %s', async (field) => {
      const body: Record<string, unknown> = { client_id: setup.clientId, connection: setup.connection, grant_type: 'password', username: '+14155550000', password: '123456' };
      delete body[field];
      const res = await h.http().post('/oauth/ro').send(body);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_request');
      expect(res.body.error_description).toContain(field);
    });

    it('answers 400 invalid_request for a body that is not an object', async () => {
      const res = await h.http().post('/oauth/ro').send([1, 2]);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_request');
    });

    it('answers 403 unauthorized_client for an unknown client', async () => {
      const res = await h.ro({ ...setup, clientId: 'nobody' }, h.caller(), '123456');
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: 'unauthorized_client', error_description: 'Unknown client: nobody' });
    });

    it('answers 403 unauthorized_client for a client not enabled on the connection', async () => {
      const stranger = await h.createClient({ name: 'Stranger' });
      const res = await h.ro({ ...setup, clientId: stranger.client_id }, h.caller(), '123456');
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('unauthorized_client');
    });

    it('answers 403 unauthorized_client for an unknown connection', async () => {
      const res = await h.ro({ ...setup, connection: 'no-such-connection' }, h.caller(), '123456');
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('unauthorized_client');
    });

    it('answers 403 unauthorized_client when the client lacks the legacy ro grant', async () => {
      const otpOnly = await h.loginSetup({}, { grant_types: [PASSWORDLESS_OTP_GRANT] });
      const res = await h.ro(otpOnly, h.caller(), '123456');
      expect(res.status).toBe(403);
      expect(res.body.error_description).toBe("Grant type 'http://auth0.com/oauth/legacy/grant-type/ro' not allowed for the client.");
    });

    it('answers 401 invalid_user_password for a wrong code and for a number without a code', async () => {
      const who = h.caller();
      const code = await h.sendCode(setup, who);
      const wrong = await h.ro(setup, who, code === '111111' ? '222222' : '111111');
      const unknown = await h.ro(setup, h.caller(), '111111');
      for (const res of [wrong, unknown]) {
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ error: 'invalid_user_password', error_description: 'Wrong phone number or verification code.' });
      }
    });
  });

  describe('user records', () => {
    it('creates the user on the first successful exchange and counts later logins', async () => {
      const who = h.caller();
      const start = await h.start({ client_id: setup.clientId, connection: setup.connection, phone_number: who.phone }, who.ip);
      expect(start.body.phone_verified).toBe(false);
      const query = `/users?q=${encodeURIComponent(`phone_number:"${who.phone}"`)}`;
      expect((await h.management('get', query)).body).toEqual([]);

      expect((await h.ro(setup, who, h.codeSentTo(who.phone))).status).toBe(200);
      const firstLogin = h.clock.now().toISOString();
      const [user] = (await h.management('get', query)).body;
      expect(user).toEqual({
        user_id: expect.stringMatching(/^sms\|[0-9a-f]{24}$/),
        phone_number: who.phone,
        phone_verified: true,
        name: who.phone,
        nickname: who.phone,
        identities: [{ provider: 'sms', connection: setup.connection, user_id: user.user_id.slice(4), isSocial: false }],
        created_at: firstLogin,
        updated_at: firstLogin,
        last_login: firstLogin,
        logins_count: 1,
        blocked: false,
        user_metadata: {},
        app_metadata: {},
      });

      h.clock.advance(10);
      const again = await h.start({ client_id: setup.clientId, connection: setup.connection, phone_number: who.phone }, who.ip);
      expect(again.body.phone_verified).toBe(false); // start does not reveal users (test/security/enumeration.test.ts)
      const otp = await h.otp(setup, who, h.codeSentTo(who.phone));
      expect(otp.status).toBe(200);
      const [updated] = (await h.management('get', query)).body;
      expect(updated).toMatchObject({ user_id: user.user_id, created_at: firstLogin, last_login: h.clock.now().toISOString(), logins_count: 2 });
    });
  });

  describe('POST /oauth/token with the passwordless OTP grant', () => {
    it('returns a JWT access token for the audience, verifiable with the JWKS', async () => {
      const who = h.caller();
      const code = await h.sendCode(setup, who, { nonce: 'otp-nonce' });
      const res = await h.otp(setup, who, code, { audience: API, scope: 'openid read:airports unknown:scope' });
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      const body = OAuthTokenResponseSchema.parse(res.body);
      expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 7200, scope: 'openid read:airports' });
      expect(body.refresh_token).toBeUndefined();

      const user = await h.identity.store.users.findByPhone(setup.connectionId, who.phone);
      const access = await h.verifyWithJwks(body.access_token, API);
      expect(access.header).toMatchObject({ alg: 'RS256', typ: 'at+jwt' });
      expect(access.claims).toEqual({
        iss: ISSUER,
        sub: user!.user_id,
        aud: API,
        azp: setup.clientId,
        scope: 'openid read:airports',
        iat: iat(),
        exp: iat() + 7200,
      });
      const id = await h.verifyWithJwks(body.id_token!, setup.clientId);
      expect(id.claims).toMatchObject({ sub: user!.user_id, nonce: 'otp-nonce' });
      expect(id.claims).not.toHaveProperty('phone_number');
    });

    it("uses the client's default_audience when no audience is sent", async () => {
      const withDefault = await h.loginSetup({}, { default_audience: API });
      const who = h.caller();
      const res = await h.otp(withDefault, who, await h.sendCode(withDefault, who), { scope: 'openid' });
      expect(res.status).toBe(200);
      expect(jwt.decode(res.body.access_token)).toMatchObject({ aud: API });
    });

    it('returns an opaque access token for /userinfo without an audience, and an id_token by default', async () => {
      const who = h.caller();
      const res = await h.otp(setup, who, await h.sendCode(setup, who));
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ token_type: 'Bearer', expires_in: 86_400, id_token: expect.any(String) });
      expect(res.body.access_token.split('.')).toHaveLength(1);
    });

    it('answers 400 invalid_grant "Wrong phone number or verification code." for a wrong code', async () => {
      const who = h.caller();
      const code = await h.sendCode(setup, who);
      const res = await h.otp(setup, who, code === '111111' ? '222222' : '111111');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'invalid_grant', error_description: 'Wrong phone number or verification code.' });
    });

    it('says when the code has expired', async () => {
      const who = h.caller();
      const code = await h.sendCode(setup, who);
      h.clock.advance(300);
      const res = await h.otp(setup, who, code);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'invalid_grant', error_description: 'The verification code has expired. Please try to login again.' });
    });

    it('says when the maximum number of attempts was reached', async () => {
      const who = h.caller();
      const code = await h.sendCode(setup, who);
      const wrong = code === '111111' ? '222222' : '111111';
      for (let i = 0; i < 3; i += 1) expect((await h.otp(setup, who, wrong)).body.error_description).toBe('Wrong phone number or verification code.');
      const res = await h.otp(setup, who, code);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'invalid_grant', error_description: "You've reached the maximum number of attempts. Please try to login again." });
    });

    it.each(['client_id', 'username', 'otp', 'realm'])('answers 400 invalid_request without %s', async (field) => {
      const body: Record<string, unknown> = { grant_type: PASSWORDLESS_OTP_GRANT, client_id: setup.clientId, realm: setup.connection, username: '+14155550000', otp: '123456' };
      delete body[field];
      const res = await h.http().post('/oauth/token').send(body);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_request');
      expect(res.body.error_description).toContain(field);
    });

    it('answers 401 invalid_client for an unknown client', async () => {
      const res = await h.otp({ ...setup, clientId: 'nobody' }, h.caller(), '123456');
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('invalid_client');
    });

    it('requires the secret of a confidential client', async () => {
      const web = await h.loginSetup({}, { name: 'Web', app_type: 'regular_web' });
      const who = h.caller();
      const code = await h.sendCode(web, who);
      const without = await h.otp(web, who, code);
      expect(without.status).toBe(401);
      expect(without.body.error).toBe('invalid_client');
      const withSecret = await h.otp(web, who, code, { client_secret: web.clientSecret });
      expect(withSecret.status).toBe(200);
    });

    it('answers 403 unauthorized_client when the client lacks the OTP grant or the connection', async () => {
      const roOnly = await h.loginSetup({}, { grant_types: ['http://auth0.com/oauth/legacy/grant-type/ro'] });
      const noGrant = await h.otp(roOnly, h.caller(), '123456');
      expect(noGrant.status).toBe(403);
      expect(noGrant.body.error).toBe('unauthorized_client');
      const noConnection = await h.otp({ ...setup, connection: 'no-such-connection' }, h.caller(), '123456');
      expect(noConnection.status).toBe(403);
      expect(noConnection.body.error).toBe('unauthorized_client');
    });

    it('answers 403 access_denied for an unknown audience, leaving the code usable', async () => {
      const who = h.caller();
      const code = await h.sendCode(setup, who);
      const unknown = await h.otp(setup, who, code, { audience: 'https://nowhere.test' });
      expect(unknown.status).toBe(403);
      expect(unknown.body).toEqual({ error: 'access_denied', error_description: 'Service not found: https://nowhere.test' });
      expect((await h.otp(setup, who, code)).status).toBe(200);
    });

    it('gives a user without a role no management scope for the management API (RBAC, docs/rbac.md)', async () => {
      const who = h.caller();
      const management = await h.otp(setup, who, await h.sendCode(setup, who), { audience: MANAGEMENT_AUDIENCE, scope: 'openid create:connections' });
      expect(management.status).toBe(200);
      expect(management.body.scope).toBe('openid');
      const refused = await h.http().get('/api/v2/connections').set('authorization', `Bearer ${management.body.access_token}`);
      expect(refused.status).toBe(403);
    });
  });

  describe('refresh tokens', () => {
    async function loginWithRefresh(): Promise<{ refresh: string; who: { phone: string; ip: string } }> {
      const who = h.caller();
      const res = await h.otp(setup, who, await h.sendCode(setup, who), { audience: API, scope: 'openid offline_access' });
      expect(res.status).toBe(200);
      return { refresh: res.body.refresh_token, who };
    }
    const refresh = (token: string, clientId = setup.clientId) =>
      h.http().post('/oauth/token').send({ grant_type: 'refresh_token', client_id: clientId, refresh_token: token });

    it('rotates: each use returns new tokens and a new refresh token', async () => {
      const { refresh: first, who } = await loginWithRefresh();
      h.clock.advance(60);
      const res = await refresh(first);
      expect(res.status).toBe(200);
      const body = OAuthTokenResponseSchema.parse(res.body);
      expect(body.refresh_token).toEqual(expect.any(String));
      expect(body.refresh_token).not.toBe(first);
      expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 7200, scope: 'openid offline_access' });
      const access = await h.verifyWithJwks(body.access_token, API);
      expect(access.claims.iat).toBe(iat());
      const id = await h.verifyWithJwks(body.id_token!, setup.clientId);
      // `openid offline_access`: the same user, and no `phone` scope, so no phone claims.
      expect(id.claims.sub).toBe((await h.identity.store.users.findByPhone(setup.connectionId, who.phone))!.user_id);
      expect(id.claims).not.toHaveProperty('phone_number');
      expect((await refresh(body.refresh_token!)).status).toBe(200);
    });

    it('revokes the whole family when a rotated refresh token is used again', async () => {
      const { refresh: first } = await loginWithRefresh();
      const second = (await refresh(first)).body.refresh_token as string;
      const reuse = await refresh(first);
      expect(reuse.status).toBe(400);
      expect(reuse.body).toEqual({ error: 'invalid_grant', error_description: 'Unknown or invalid refresh token.' });
      const afterReuse = await refresh(second);
      expect(afterReuse.status).toBe(400);
      expect(afterReuse.body.error).toBe('invalid_grant');
    });

    it("refuses another client's refresh token without revoking it", async () => {
      const { refresh: token } = await loginWithRefresh();
      const other = await h.createClient({ name: 'Thief' });
      expect((await refresh(token, other.client_id)).status).toBe(400);
      expect((await refresh(token)).status).toBe(200);
    });

    it('refuses an unknown refresh token and a request without one', async () => {
      expect((await refresh('not-a-token')).status).toBe(400);
      const missing = await h.http().post('/oauth/token').send({ grant_type: 'refresh_token', client_id: setup.clientId });
      expect(missing.status).toBe(400);
      expect(missing.body.error).toBe('invalid_request');
    });

    it('issues no refresh token to a client without the refresh_token grant', async () => {
      const noRefresh = await h.loginSetup({}, { grant_types: [PASSWORDLESS_OTP_GRANT] });
      const who = h.caller();
      const res = await h.otp(noRefresh, who, await h.sendCode(noRefresh, who), { scope: 'openid offline_access' });
      expect(res.status).toBe(200);
      expect(res.body.refresh_token).toBeUndefined();
    });
  });

  describe('GET /userinfo', () => {
    const userinfo = (token?: string) => {
      const req = h.http().get('/userinfo');
      return token === undefined ? req : req.set('authorization', `Bearer ${token}`);
    };

    it('answers for an opaque access token from /oauth/ro with the claims of its `phone` scope', async () => {
      const who = h.caller();
      const login = await h.ro(setup, who, await h.sendCode(setup, who), { scope: 'openid phone' });
      const res = await userinfo(login.body.access_token);
      expect(res.status).toBe(200);
      const user = await h.identity.store.users.findByPhone(setup.connectionId, who.phone);
      expect(UserInfoResponseSchema.strict().parse(res.body)).toEqual({ sub: user!.user_id, phone_number: who.phone, phone_number_verified: true });
    });

    it('answers for a JWT access token issued for an API', async () => {
      const who = h.caller();
      const login = await h.otp(setup, who, await h.sendCode(setup, who), { audience: API, scope: 'openid phone' });
      const res = await userinfo(login.body.access_token);
      expect(res.status).toBe(200);
      expect(res.body.phone_number).toBe(who.phone);
    });

    it('answers for a token given as ?access_token= (RFC 6750 §2.3, as passport-auth0 sends it), and refuses an unknown one so', async () => {
      const who = h.caller();
      const login = await h.otp(setup, who, await h.sendCode(setup, who), { audience: API, scope: 'openid phone' });
      const res = await h.http().get('/userinfo').query({ access_token: login.body.access_token });
      expect(res.status).toBe(200);
      expect(res.body.phone_number).toBe(who.phone);
      const unknown = await h.http().get('/userinfo').query({ access_token: 'unknown-token' });
      expect(unknown.status).toBe(401);
      expect(unknown.headers['www-authenticate']).toBe('Bearer realm="userinfo", error="invalid_token"');
    });

    it('answers 401 with a bare WWW-Authenticate challenge without a token', async () => {
      const res = await userinfo();
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="userinfo"');
      expect(res.body.error).toBe('invalid_token');
    });

    it('answers 401 invalid_token for an unknown token, an id_token and an M2M token', async () => {
      const who = h.caller();
      const login = await h.ro(setup, who, await h.sendCode(setup, who));
      const m2m = await clientCredentialsToken(h.identity.app, { clientId: ADMIN_CLIENT_ID, clientSecret: ADMIN_CLIENT_SECRET });
      for (const token of ['unknown-token', login.body.id_token as string, m2m]) {
        const res = await userinfo(token);
        expect(res.status).toBe(401);
        expect(res.headers['www-authenticate']).toBe('Bearer realm="userinfo", error="invalid_token"');
      }
    });

    it('answers 401 once an opaque access token has expired', async () => {
      const who = h.caller();
      const login = await h.ro(setup, who, await h.sendCode(setup, who));
      h.clock.advance(86_399);
      expect((await userinfo(login.body.access_token)).status).toBe(200);
      h.clock.advance(1);
      expect((await userinfo(login.body.access_token)).status).toBe(401);
    });
  });

  it('advertises the passwordless and refresh grants in discovery', async () => {
    const res = await h.http().get('/.well-known/openid-configuration');
    expect(res.body.grant_types_supported).toEqual(expect.arrayContaining(['client_credentials', PASSWORDLESS_OTP_GRANT, 'refresh_token']));
  });

  it('keeps codes, tokens and the gateway secret out of the logs', async () => {
    const who = h.caller();
    const code = await h.sendCode(setup, who);
    const wrong = code === '111111' ? '222222' : '111111';
    await h.ro(setup, who, wrong);
    const ro = await h.ro(setup, who, code, { scope: 'openid offline_access', device: 'd' });
    const code2 = await h.sendCode(setup, who);
    const otp = await h.otp(setup, who, code2, { audience: API, scope: 'openid offline_access' });
    const refreshed = await h.http().post('/oauth/token').send({ grant_type: 'refresh_token', client_id: setup.clientId, refresh_token: otp.body.refresh_token });
    await h.http().get('/userinfo').set('authorization', `Bearer ${ro.body.access_token}`);
    const gatewayToken = (h.gateway.requests.at(-1)!.headers.authorization as string).slice('Bearer '.length);

    const logs = h.identity.logs();
    expect(logs).toContain('passwordless code sent');
    expect(logs).toContain('code exchange refused');
    const secrets = [
      code,
      wrong,
      code2,
      GATEWAY_SECRET,
      gatewayToken,
      ro.body.access_token,
      ro.body.id_token,
      ro.body.refresh_token,
      otp.body.access_token,
      otp.body.refresh_token,
      refreshed.body.access_token,
      refreshed.body.refresh_token,
    ];
    for (const secret of secrets) {
      expect(typeof secret).toBe('string');
      expect(logs).not.toContain(secret);
    }
    expect(logs).not.toContain(who.phone);
  });
});
