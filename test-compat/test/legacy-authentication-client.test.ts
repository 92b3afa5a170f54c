import { AuthApiError } from 'auth0/legacy';
import { decodeJwt } from 'jose';
import { codeSentTo, compat, randomPhone, since } from '../src/fixtures';
import { legacyAuthenticationClient, managementClient } from '../src/sdk';

// `auth0/legacy`: the 4.x AuthenticationClient that auth0@7 still ships. Every call adds the
// client's secret (client_secret in the body) because the client is configured with one.

const auth = legacyAuthenticationClient();

async function signIn(phone: string) {
  const sentAfter = since();
  await auth.passwordless.sendSMS({ phone_number: phone });
  const code = await codeSentTo(phone, sentAfter);
  const { data } = await auth.passwordless.loginWithSMS({ phone_number: phone, code, scope: 'openid offline_access', audience: compat.apiAudience });
  return data;
}

/** The AuthApiError a call rejects with. */
async function authError(call: Promise<unknown>): Promise<AuthApiError> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AuthApiError);
  return err as AuthApiError;
}

describe('auth0/legacy AuthenticationClient', () => {
  it('sends the SMS with client authentication and signs in with the code', async () => {
    const tokens = await signIn(randomPhone());
    // loginWithSMS has already checked the ID token (issuer, audience, RS256 signature from the JWKS).
    expect(tokens).toMatchObject({ token_type: 'Bearer', access_token: expect.any(String), id_token: expect.any(String), refresh_token: expect.any(String) });
  });

  it('refreshes the tokens with the refresh token', async () => {
    const tokens = await signIn(randomPhone());
    const { data: refreshed } = await auth.oauth.refreshTokenGrant({ refresh_token: tokens.refresh_token! });
    // refreshTokenGrant has checked the new ID token as loginWithSMS did.
    expect(refreshed).toMatchObject({ access_token: expect.any(String), id_token: expect.any(String) });
  });

  it('revokes the refresh token, which then no longer refreshes', async () => {
    const tokens = await signIn(randomPhone());
    await auth.oauth.revokeRefreshToken({ token: tokens.refresh_token! });
    const err = await authError(auth.oauth.refreshTokenGrant({ refresh_token: tokens.refresh_token! }));
    expect(err).toMatchObject({ statusCode: 400, error: 'invalid_grant' });
  });

  it('refuses a wrong client secret with invalid_client', async () => {
    const impostor = legacyAuthenticationClient({ clientId: compat.app.clientId, clientSecret: 'x'.repeat(48) });
    const err = await authError(impostor.passwordless.sendSMS({ phone_number: randomPhone() }));
    expect(err).toMatchObject({ statusCode: 401, error: 'invalid_client' });
  });

  it("refuses to send a code to a user blocked through the management API, with Auth0's error", async () => {
    const phone = randomPhone();
    await managementClient().users.create({ connection: 'sms', phone_number: phone, blocked: true });
    const err = await authError(auth.passwordless.sendSMS({ phone_number: phone }));
    expect(err).toMatchObject({ statusCode: 401, error: 'unauthorized', error_description: 'user is blocked' });
  });

  it('stops refreshing the tokens of a user once the management API blocks them', async () => {
    const tokens = await signIn(randomPhone());
    const userId = decodeJwt(tokens.id_token!).sub!;
    await managementClient().users.update(userId, { blocked: true });
    const err = await authError(auth.oauth.refreshTokenGrant({ refresh_token: tokens.refresh_token! }));
    expect(err).toMatchObject({ statusCode: 401, error: 'unauthorized', error_description: 'user is blocked' });
  });

  it('locks a number after too many wrong codes, and the management userBlocks list and clear that lock', async () => {
    const management = managementClient();
    const phone = randomPhone();
    const sentAfter = since();
    await auth.passwordless.sendSMS({ phone_number: phone });
    const code = await codeSentTo(phone, sentAfter);
    const wrong = code === '000000' ? '111111' : '000000';
    // BRUTE_FORCE_THRESHOLD (10) failures from one IP for one number lock it.
    for (let attempt = 0; attempt < 10; attempt += 1) {
      await authError(auth.passwordless.loginWithSMS({ phone_number: phone, code: wrong }));
    }
    const blocks = await management.userBlocks.listByIdentifier({ identifier: phone });
    expect(blocks.blocked_for).toEqual([expect.objectContaining({ identifier: phone })]);

    await management.userBlocks.deleteByIdentifier({ identifier: phone });
    expect((await management.userBlocks.listByIdentifier({ identifier: phone })).blocked_for).toEqual([]);
    // The code those attempts burnt stays spent; a new one signs in.
    const resentAfter = since();
    await auth.passwordless.sendSMS({ phone_number: phone });
    const { data } = await auth.passwordless.loginWithSMS({ phone_number: phone, code: await codeSentTo(phone, resentAfter), scope: 'openid' });
    expect(data.id_token).toEqual(expect.any(String));
  });
});
