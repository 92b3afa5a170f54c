import { OtpGrantRequestSchema, PASSWORDLESS_OTP_GRANT, type OAuthTokenResponse } from '@smsauth/contracts';
import { HttpError } from '@smsauth/service-kit';
import { exchangeCode, type CodeRejection } from '../passwordless/code-exchange';
import { tooManyAttemptsError } from '../passwordless/brute-force';
import { otpGrantRejectionDescription } from '../passwordless/code-state';
import { presentedCredentials } from './client-auth';
import { invalidGrant, invalidRequest, requireGrantType } from './oauth-errors';
import { canonicalUsername, passwordlessExchangeContext, type PasswordlessExchangeDependencies } from './passwordless-exchange';
import type { TokenGrantHandler } from './token-grants';
import { grantedScopes, issueUserTokens, prepareOpaqueAccessToken, splitScope, userAudience, userGrant } from './user-tokens';

/** OAuth 2.0 form of a refused code (reference wording); a block is 429 too_many_attempts. */
export function otpGrantRejection(reason: CodeRejection): HttpError {
  if (reason === 'blocked') return tooManyAttemptsError();
  const state = reason === 'expired' || reason === 'exhausted' ? reason : 'wrong';
  return invalidGrant(otpGrantRejectionDescription(state));
}

/**
 * `grant_type=http://auth0.com/oauth/grant-type/passwordless/otp`: `username` + `otp` on
 * connection `realm`. With `audience` (or the client's default_audience) the access token
 * is a JWT for that API, otherwise opaque. The same code rules and counters as /oauth/ro.
 */
export function passwordlessOtpGrant(deps: PasswordlessExchangeDependencies): TokenGrantHandler {
  return async (call): Promise<OAuthTokenResponse> => {
    const parsed = OtpGrantRequestSchema.safeParse({ ...call.body, client_id: presentedCredentials(call).clientId });
    if (!parsed.success) throw invalidRequest(parsed.error.issues);
    const request = parsed.data;
    const phoneNumber = canonicalUsername(request.username);

    const { client, connection, user, failures, code } = await passwordlessExchangeContext(
      deps.store,
      { clientId: request.client_id, connection: request.realm, phoneNumber, ip: call.ip },
      async (found) => {
        const client = await deps.clientAuthenticator.authenticate(found, call);
        requireGrantType(client, PASSWORDLESS_OTP_GRANT);
        return client;
      },
    );
    const audience = request.audience || client.default_audience || undefined;
    const api = audience ? await userAudience(deps.store, client, audience) : undefined;
    const scopes = grantedScopes(splitScope(request.scope ?? 'openid'), api);

    // Without an API the access token is opaque: made now and stored with the login.
    const accessToken = api ? undefined : prepareOpaqueAccessToken(deps.clock, client.client_id, scopes);
    const result = await exchangeCode(deps, {
      connection,
      clientId: client.client_id,
      phoneNumber,
      candidate: request.otp,
      ip: call.ip,
      user,
      failures,
      code,
      log: { via: 'otp', clientName: client.name, userAgent: call.headers['user-agent'] },
      accessToken: accessToken?.row,
    });
    if (!result.ok) throw otpGrantRejection(result.reason);

    const nonce = result.code.auth_params.nonce;
    const grant = await userGrant(deps.store, result.user.user_id, scopes, api);
    const wantsRefresh = grant.scopes.includes('offline_access') && client.grant_types.includes('refresh_token');
    const tokens = await issueUserTokens(deps, {
      client,
      user: result.user,
      scopes: grant.scopes,
      api,
      permissions: grant.permissions,
      nonce: typeof nonce === 'string' ? nonce : undefined,
      refresh: wantsRefresh ? { device: typeof call.body.device === 'string' ? call.body.device : null } : undefined,
      storedAccessToken: accessToken,
    });
    return { ...tokens, token_type: 'Bearer' };
  };
}
