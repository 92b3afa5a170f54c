import { FlowHarness, type LoginSetup } from './flow-harness';

/** Auth0's `jwt_configuration` on a client: its `lifetime_in_seconds` is how long the client's ID tokens live. */
describe("a client's jwt_configuration", () => {
  let h: FlowHarness;
  let setup: LoginSetup;

  beforeAll(async () => {
    h = await FlowHarness.start();
    setup = await h.loginSetup();
  });
  afterAll(() => h.close());

  async function idTokenLifetime(): Promise<number> {
    const who = h.caller();
    const res = await h.otp(setup, who, await h.sendCode(setup, who), { scope: 'openid' });
    expect(res.status).toBe(200);
    const { claims } = await h.verifyWithJwks(res.body.id_token, setup.clientId);
    return claims.exp! - claims.iat!;
  }

  it('gives ID tokens 36000 seconds without one, and lifetime_in_seconds once set', async () => {
    expect(await idTokenLifetime()).toBe(36_000);
    const patched = await h.management('patch', `/clients/${setup.clientId}`, {
      jwt_configuration: { alg: 'RS256', lifetime_in_seconds: 600, secret_encoded: false },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.jwt_configuration).toEqual({ alg: 'RS256', lifetime_in_seconds: 600, secret_encoded: false });
    expect(await idTokenLifetime()).toBe(600);
  });

  it('refuses HS256 (identity signs with its RS256 keys only) and a lifetime over 30 days, naming the field', async () => {
    const hs256 = await h.management('patch', `/clients/${setup.clientId}`, { jwt_configuration: { alg: 'HS256' } });
    expect(hs256.status).toBe(400);
    expect(hs256.body.details).toEqual([expect.objectContaining({ path: 'jwt_configuration.alg', message: 'identity signs ID tokens with RS256 only' })]);
    const tooLong = await h.management('patch', `/clients/${setup.clientId}`, { jwt_configuration: { lifetime_in_seconds: 2_592_001 } });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.details).toEqual([expect.objectContaining({ path: 'jwt_configuration.lifetime_in_seconds' })]);
  });
});
