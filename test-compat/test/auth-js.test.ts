import { PasswordlessStartError, TokenByRefreshTokenError } from '@auth0/auth0-auth-js';
import { codeSentTo, compat, randomPhone, since, uniqueName } from '../src/fixtures';
import { authJsClient, managementClient } from '../src/sdk';

// @auth0/auth0-auth-js: discovery through openid-client, then /passwordless/start (with the
// client's secret in the body) and the OTP grant on realm "sms" (client_secret_post).

const auth = authJsClient();

async function signIn(phone: string) {
  const sentAfter = since();
  await auth.passwordless.sendSms({ phoneNumber: phone });
  const code = await codeSentTo(phone, sentAfter);
  return auth.getTokenByPasswordlessSms({ phoneNumber: phone, code, scope: 'openid profile phone offline_access', audience: compat.apiAudience });
}

describe('@auth0/auth0-auth-js AuthClient', () => {
  it('sends the SMS with client authentication and signs in with the code', async () => {
    const phone = randomPhone();
    const tokens = await signIn(phone);
    expect(tokens).toMatchObject({ accessToken: expect.any(String), idToken: expect.any(String), refreshToken: expect.any(String) });
    // The ID token was validated by openid-client (issuer, audience, signature); its claims:
    expect(tokens.claims).toMatchObject({ iss: compat.issuer, aud: compat.app.clientId, name: phone, nickname: phone, phone_number: phone, updated_at: expect.any(Number) });
  });

  it('reads the profile of the signed-in user from /userinfo', async () => {
    const phone = randomPhone();
    const tokens = await signIn(phone);
    const profile = await auth.getUserInfo({ accessToken: tokens.accessToken });
    expect(profile).toMatchObject({ sub: tokens.claims!.sub, name: phone, nickname: phone, phone_number: phone, phone_number_verified: true });
  });

  it('refreshes the tokens with the refresh token', async () => {
    const tokens = await signIn(randomPhone());
    const refreshed = await auth.getTokenByRefreshToken({ refreshToken: tokens.refreshToken! });
    expect(refreshed.accessToken).toEqual(expect.any(String));
    expect(refreshed.claims?.sub).toBe(tokens.claims!.sub);
  });

  it('revokes the refresh token, which then no longer refreshes', async () => {
    const tokens = await signIn(randomPhone());
    await auth.revokeToken({ token: tokens.refreshToken! });
    await expect(auth.getTokenByRefreshToken({ refreshToken: tokens.refreshToken! })).rejects.toBeInstanceOf(TokenByRefreshTokenError);
  });

  it("signs out through the logout URL it builds, back to one of the client's allowed logout URLs", async () => {
    const returnTo = 'https://app.example.com/signed-out';
    const app = await managementClient().clients.create({ name: uniqueName('compat-logout'), app_type: 'regular_web', allowed_logout_urls: [returnTo] });
    const logoutUrl = await authJsClient({ clientId: app.client_id!, clientSecret: app.client_secret! }).buildLogoutUrl({ returnTo });
    expect(logoutUrl.origin).toBe(`https://${compat.domain}`);
    // What the browser does with it:
    const res = await fetch(logoutUrl, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(returnTo);
  });

  it('refuses to start a login for a client with a wrong secret', async () => {
    const impostor = authJsClient({ clientId: compat.app.clientId, clientSecret: 'x'.repeat(48) });
    const err = await impostor.passwordless.sendSms({ phoneNumber: randomPhone() }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(PasswordlessStartError);
    expect(err).toMatchObject({ statusCode: 401 });
  });
});
