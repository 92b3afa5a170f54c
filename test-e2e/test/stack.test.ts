import {
  GatewayRejectionSchema,
  OAuthErrorBodySchema,
  OAuthTokenResponseSchema,
  RoTokenResponseSchema,
  StartResponseSchema,
} from '@smsauth/contracts';
import { requestJson } from '@smsauth/stack';
import {
  admin,
  callAirport,
  createLoginSetup,
  exchangeAtRo,
  exchangeOtpGrant,
  m2mToken,
  randomPhone,
  sendCode,
  startLogin,
  targets,
  uniqueName,
  verifyAgainstJwks,
} from '../src/fixtures';

const REJECTION_DETAILS = [{ '@type': 'type.googleapis.com/google.rpc.DebugInfo', stackEntries: [], detail: 'auth' }];

async function expectRejection(res: Response, reason: string): Promise<void> {
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
  const body = GatewayRejectionSchema.parse(await res.json());
  expect(body).toEqual({ code: 16, message: `JWT validation failed: ${reason}`, details: REJECTION_DETAILS });
}

describe('the spec flow (section 3) against the composed stack', () => {
  it('delivers a code through the gateway and exchanges it for tokens that verify against the JWKS', async () => {
    const setup = await createLoginSetup();
    const phone = randomPhone();

    const started = await startLogin(setup, phone);
    expect(started.status).toBe(200);
    const startBody = StartResponseSchema.parse(started.body);
    expect(startBody).toMatchObject({ phone_number: phone, request_language: null, phone_verified: false });

    const code = await sendCode(setup, phone); // the newest code wins; use the fresh one
    const tokens = await exchangeAtRo(setup, phone, code);
    expect(tokens.status).toBe(200);
    const body = RoTokenResponseSchema.parse(tokens.body);
    expect(body.token_type).toBe('bearer');
    const idToken = await verifyAgainstJwks(body.id_token!, setup.clientId);
    expect(idToken).toMatchObject({ iss: `${targets.authUrl}/`, aud: setup.clientId, phone_number: phone, phone_number_verified: true });
  });

  it('issues an API token with the OTP grant that the airport API accepts', async () => {
    const setup = await createLoginSetup();
    const phone = randomPhone();
    const code = await sendCode(setup, phone);
    const res = await exchangeOtpGrant(setup, phone, code);
    expect(res.status).toBe(200);
    const { access_token } = OAuthTokenResponseSchema.parse(res.body);
    const claims = await verifyAgainstJwks(access_token, targets.apiAudience);
    expect(claims.aud).toEqual(targets.apiAudience);

    const airport = await callAirport('SFO', access_token);
    expect(airport.status).toBe(200);
    expect(await airport.text()).toBe('San Francisco International Airport');
  });

  it('rejects a code that was already used', async () => {
    const setup = await createLoginSetup();
    const phone = randomPhone();
    const code = await sendCode(setup, phone);
    expect((await exchangeAtRo(setup, phone, code)).status).toBe(200);
    const replay = await exchangeAtRo(setup, phone, code);
    expect(replay.status).toBe(401);
    expect(OAuthErrorBodySchema.parse(replay.body)).toEqual({
      error: 'invalid_user_password',
      error_description: 'Wrong phone number or verification code.',
    });
  });

  it('does not reveal on the next start that a login completed (no user enumeration)', async () => {
    const setup = await createLoginSetup();
    const phone = randomPhone();
    expect((await exchangeAtRo(setup, phone, await sendCode(setup, phone))).status).toBe(200);
    const again = await startLogin(setup, phone);
    expect(StartResponseSchema.parse(again.body).phone_verified).toBe(false);
  });
});

describe('errors of spec section 7', () => {
  it('answers sms_provider_error when the gateway provider fails', async () => {
    if (!targets.failingGatewayDeliveryUrl) {
      console.warn('FAILING_GATEWAY_DELIVERY_URL is not set: the provider-failure case cannot run against this deployment');
      return;
    }
    const setup = await createLoginSetup({ gatewayUrl: targets.failingGatewayDeliveryUrl, auth: 'none' });
    const res = await startLogin(setup, randomPhone());
    expect(res.status).toBe(400);
    expect(OAuthErrorBodySchema.parse(res.body)).toEqual({
      error: 'sms_provider_error',
      error_description: 'Unexpected response while calling the SMS gateway: 500',
    });
  });

  it('answers sms_provider_error when the gateway refuses the wrong secret', async () => {
    if (!targets.gatewayAuthSecret) {
      console.warn('GATEWAY_AUTH_SECRET is not set: the gateway authentication case cannot run against this deployment');
      return;
    }
    const setup = await createLoginSetup({ auth: 'wrong-secret' });
    const res = await startLogin(setup, randomPhone());
    expect(res.status).toBe(400);
    expect(OAuthErrorBodySchema.parse(res.body)).toEqual({
      error: 'sms_provider_error',
      error_description: 'Authentication failed while calling the SMS gateway: 401',
    });
  });

  it.each([
    ['a missing IATA code', undefined, 'No IATA code provided.'],
    ['an IATA code that is not three letters', 'SFOO', 'Invalid IATA code: SFOO'],
    ['an unknown IATA code', 'QQX', 'IATA code not found : QQX'],
  ])('answers 400 for %s', async (_case, iataCode, message) => {
    const res = await callAirport(iataCode, await m2mToken());
    expect(res.status).toBe(400);
    expect(await res.text()).toContain(message);
  });

  it('rejects a call without a token with the exact 2.8 body', async () => {
    await expectRejection(await callAirport('SFO'), 'Missing or invalid credentials');
  });

  it('rejects a token issued for another API', async () => {
    const otherAudience = `https://${uniqueName('other-api')}.example.com/`;
    await admin.createResourceServer({ name: uniqueName('Other API'), identifier: otherAudience });
    await expectRejection(await callAirport('SFO', await m2mToken(otherAudience)), 'Audience not allowed');
  });

  it('keeps the start error shape for an unknown connection', async () => {
    const setup = await createLoginSetup();
    const res = await requestJson(`${targets.authUrl}/passwordless/start`, {
      method: 'POST',
      json: { client_id: setup.clientId, connection: 'no-such-connection', phone_number: randomPhone(), send: 'code' },
    });
    expect(res.status).toBe(400);
    expect(OAuthErrorBodySchema.parse(res.body).error).toBe('bad.connection');
  });
});

describe('keys and restarts', () => {
  it('picks up a signing key rotation at the airport API, and keeps accepting older tokens', async () => {
    const before = await m2mToken();
    expect((await callAirport('BOS', before)).status).toBe(200);
    await admin.rotateSigningKey();
    const after = await m2mToken();
    expect(JSON.parse(Buffer.from(after.split('.')[0]!, 'base64url').toString()).kid).not.toBe(
      JSON.parse(Buffer.from(before.split('.')[0]!, 'base64url').toString()).kid,
    );
    const res = await callAirport('BOS', after);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('Logan International Airport');
    expect((await callAirport('BOS', before)).status).toBe(200);
  });

  it('keeps tokens valid, users stored and issued codes usable across a restart of the identity service', async () => {
    if (!targets.controlUrl) {
      console.warn('the suite did not launch this stack: the restart case only runs against a stack it launched');
      return;
    }
    const setup = await createLoginSetup();
    const phone = randomPhone();
    const login = await exchangeOtpGrant(setup, phone, await sendCode(setup, phone));
    const { access_token, id_token } = OAuthTokenResponseSchema.parse(login.body);
    // Sent before the restart, typed after it: the code lives in the database, not in memory.
    const waitingPhone = randomPhone();
    const codeBeforeRestart = await sendCode(setup, waitingPhone);

    const restarted = await fetch(`${targets.controlUrl}/restart/identity`, { method: 'POST' });
    expect(restarted.status).toBe(204);

    await verifyAgainstJwks(access_token, targets.apiAudience);
    await verifyAgainstJwks(id_token!, setup.clientId);
    expect((await callAirport('SFO', access_token)).status).toBe(200);
    const users = await admin.listUsers(phone);
    expect(users.map((u) => u.phone_number)).toEqual([phone]);
    const lateLogin = await exchangeAtRo(setup, waitingPhone, codeBeforeRestart);
    expect(lateLogin.status).toBe(200);
    await verifyAgainstJwks(RoTokenResponseSchema.parse(lateLogin.body).id_token!, setup.clientId);
    const nextCode = await sendCode(setup, phone);
    expect((await exchangeAtRo(setup, phone, nextCode)).status).toBe(200);
  });
});
