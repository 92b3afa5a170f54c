import { FlowHarness, ISSUER, type LoginSetup } from '../passwordless/flow-harness';

// What an OpenID certification run (Basic, Config, Form Post) checks beyond the flows the other
// suites drive: the UserInfo endpoint by POST, and what discovery promises about the
// authorization endpoint. The authorization responses' `iss`, at_hash, request objects,
// a missing response_type and invalid_grant's status are checked beside their flows in
// test/authorize and test/passwordless.
describe('OpenID Connect conformance details', () => {
  let h: FlowHarness;
  let setup: LoginSetup;
  let accessToken: string;
  let phone: string;

  beforeAll(async () => {
    h = await FlowHarness.start();
    setup = await h.loginSetup();
    const who = h.caller();
    phone = who.phone;
    accessToken = (await h.ro(setup, who, await h.sendCode(setup, who), { scope: 'openid phone' })).body.access_token;
  });
  afterAll(() => h.close());

  describe('POST /userinfo (OpenID Connect Core §5.3.1: GET and POST)', () => {
    it('answers for the token in the Authorization header', async () => {
      const res = await h.http().post('/userinfo').set('authorization', `Bearer ${accessToken}`);
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toMatchObject({ sub: expect.stringMatching(/^sms\|/), phone_number: phone });
    });

    it('answers for the token in a form body (RFC 6750 §2.2)', async () => {
      const res = await h.http().post('/userinfo').type('form').send({ access_token: accessToken });
      expect(res.status).toBe(200);
      expect(res.body.phone_number).toBe(phone);
    });

    it('answers 401 with the challenge for an unknown token, and without a token', async () => {
      const unknown = await h.http().post('/userinfo').type('form').send({ access_token: 'unknown-token' });
      expect(unknown.status).toBe(401);
      expect(unknown.headers['www-authenticate']).toBe('Bearer realm="userinfo", error="invalid_token"');
      const none = await h.http().post('/userinfo');
      expect(none.status).toBe(401);
      expect(none.headers['www-authenticate']).toBe('Bearer realm="userinfo"');
    });
  });

  describe('discovery', () => {
    it('promises iss in authorization responses and refuses request objects by value and by reference', async () => {
      const res = await h.http().get('/.well-known/openid-configuration');
      expect(res.body).toMatchObject({
        issuer: ISSUER,
        authorization_response_iss_parameter_supported: true,
        request_parameter_supported: false,
        request_uri_parameter_supported: false,
      });
    });
  });
});
