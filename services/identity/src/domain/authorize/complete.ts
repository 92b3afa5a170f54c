import { createHash, randomBytes } from 'node:crypto';
import type { StoredUser } from '../../store';
import { grantedScopes, issueUserTokens, splitScope, userGrant, type PreparedOpaqueToken, type UserTokenDependencies } from '../oauth/user-tokens';
import { includesAccessToken, includesIdToken, isCodeFlow, type AuthorizeRequest } from './request';
import { serialiseRequestedClaims } from './requested-claims';
import { authorizationResponse, tokenParameters, type AuthorizationResponse } from './response';
import type { WebLoginMetrics } from './web-login-metrics';

export interface CompletionDependencies extends UserTokenDependencies {
  /** AUTHORIZATION_CODE_LIFETIME_SECONDS. */
  codeLifetimeSeconds: number;
  metrics: WebLoginMetrics;
}

/** The login session the response comes from (`sid`, `auth_time`). */
export interface SessionReference {
  id: string;
  authenticatedAt: Date;
}

/** Codes are stored (and looked up) by their SHA-256 only. */
export function hashAuthorizationCode(code: string): string {
  return createHash('sha256').update(code).digest('hex');
}

/**
 * The scopes a browser-delivered (implicit) token may carry: never offline_access, as no
 * refresh token is sent through the browser (OAuth 2.0 §4.2.2).
 */
export function implicitScopes(request: AuthorizeRequest): string[] {
  return grantedScopes(splitScope(request.scope), request.api).filter((s) => s !== 'offline_access');
}

/**
 * The success response of a signed-in request. Code flow: a single-use code, stored hashed
 * with everything its exchange must check (client, redirect_uri, PKCE challenge) and issue
 * (user, scope, audience, nonce, session). Implicit: the tokens themselves.
 */
export async function completeAuthorization(
  deps: CompletionDependencies,
  request: AuthorizeRequest,
  user: StoredUser,
  session: SessionReference,
  storedAccessToken?: PreparedOpaqueToken,
): Promise<AuthorizationResponse> {
  const now = deps.clock.now();
  if (isCodeFlow(request.responseType)) {
    const code = randomBytes(32).toString('base64url');
    await deps.store.authorizationCodes.insert({
      code_hash: hashAuthorizationCode(code),
      client_id: request.client.client_id,
      user_id: user.user_id,
      redirect_uri: request.redirectUri,
      scope: request.scope,
      audience: request.api?.identifier ?? null,
      nonce: request.nonce ?? null,
      code_challenge: request.codeChallenge ?? null,
      session_id: session.id,
      auth_time: session.authenticatedAt,
      claims: serialiseRequestedClaims(request.claims),
      acr: request.acr ?? null,
      created_at: now,
      expires_at: new Date(now.getTime() + deps.codeLifetimeSeconds * 1000),
    });
    return authorizationResponse(request.target, { code, state: request.state });
  }
  const grant = await userGrant(deps.store, user.user_id, implicitScopes(request), request.api);
  const wants = { accessToken: includesAccessToken(request.responseType), idToken: includesIdToken(request.responseType) };
  const tokens = await issueUserTokens(deps, {
    client: request.client,
    user,
    scopes: grant.scopes,
    api: request.api,
    permissions: grant.permissions,
    nonce: request.nonce,
    storedAccessToken,
    session,
    accessTokenHash: wants.accessToken && wants.idToken,
    claims: request.claims,
    acr: request.acr,
  });
  return authorizationResponse(request.target, tokenParameters(tokens, wants, request.state));
}
