import type { IncomingHttpHeaders } from 'node:http';
import {
  ErrorCodes,
  LEGACY_RO_GRANT,
  RoTokenRequestSchema,
  WRONG_CODE_DESCRIPTION,
  type RoTokenResponse,
} from '@smsauth/contracts';
import { HttpError } from '@smsauth/service-kit';
import { exchangeCode } from '../passwordless/code-exchange';
import { tooManyAttemptsError } from '../passwordless/brute-force';
import { invalidRequest, requireGrantType, requireObjectBody, unauthorizedClient } from './oauth-errors';
import { canonicalUsername, passwordlessExchangeContext, type PasswordlessExchangeDependencies } from './passwordless-exchange';
import { grantedScopes, issueUserTokens, prepareOpaqueAccessToken, splitScope } from './user-tokens';

/**
 * `POST /oauth/ro` (spec 2.5/2.6), the legacy resource-owner endpoint: phone number as
 * `username`, the code as `password`. Everything is checked before the code is touched, so
 * a malformed request never spends one of its attempts. A client whose method is not `none`
 * authenticates (401 invalid_client otherwise); an unknown client stays 403 as in the reference.
 */
export async function resourceOwnerLogin(
  deps: PasswordlessExchangeDependencies,
  call: { body: unknown; headers: IncomingHttpHeaders; ip: string },
): Promise<RoTokenResponse> {
  const body = requireObjectBody(call.body);
  if (body.grant_type !== undefined && body.grant_type !== '' && body.grant_type !== 'password') {
    throw new HttpError(400, ErrorCodes.UNSUPPORTED_GRANT_TYPE, `Unsupported grant type: ${String(body.grant_type)}`);
  }
  const parsed = RoTokenRequestSchema.safeParse(body);
  if (!parsed.success) throw invalidRequest(parsed.error.issues);
  const request = parsed.data;
  const phoneNumber = canonicalUsername(request.username);

  const { client, connection, user, failures, code } = await passwordlessExchangeContext(
    deps.store,
    { clientId: request.client_id, connection: request.connection, phoneNumber, ip: call.ip },
    async (found) => {
      if (!found) throw unauthorizedClient(`Unknown client: ${request.client_id}`);
      const client = await deps.clientAuthenticator.authenticate(found, { body, headers: call.headers });
      requireGrantType(client, LEGACY_RO_GRANT);
      return client;
    },
  );

  const scopes = grantedScopes(splitScope(request.scope));
  const wantsRefresh = scopes.includes('offline_access');
  if (wantsRefresh && !request.device) {
    throw new HttpError(400, ErrorCodes.INVALID_REQUEST, 'Missing required parameter: device (needed with scope offline_access)');
  }

  // /oauth/ro has no audience: its access token is always opaque, stored with the login.
  const accessToken = prepareOpaqueAccessToken(deps.clock, client.client_id, scopes);
  const result = await exchangeCode(deps, {
    connection,
    clientId: client.client_id,
    phoneNumber,
    candidate: request.password,
    ip: call.ip,
    user,
    failures,
    code,
    log: { via: 'oauth/ro', clientName: client.name, userAgent: call.headers['user-agent'] },
    accessToken: accessToken.row,
  });
  if (!result.ok) {
    if (result.reason === 'blocked') throw tooManyAttemptsError();
    throw new HttpError(401, ErrorCodes.INVALID_USER_PASSWORD, WRONG_CODE_DESCRIPTION);
  }

  const nonce = result.code.auth_params.nonce;
  const tokens = await issueUserTokens(deps, {
    client,
    user: result.user,
    scopes,
    nonce: typeof nonce === 'string' ? nonce : undefined,
    refresh: wantsRefresh && client.grant_types.includes('refresh_token') ? { device: request.device ?? null } : undefined,
    storedAccessToken: accessToken,
  });
  return {
    ...(tokens.id_token ? { id_token: tokens.id_token } : {}),
    access_token: tokens.access_token,
    token_type: 'bearer',
    ...(tokens.refresh_token ? { refresh_token: tokens.refresh_token } : {}),
  };
}
