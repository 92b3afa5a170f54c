import type { IssuedUserTokens } from '../oauth/user-tokens';
import { includesAccessToken, includesIdToken, type ResponseType } from './request';

/** `redirect_uri#<params>`, form-encoded as OAuth 2.0 §4.2.2 prescribes. */
function withFragment(redirectUri: string, params: Record<string, string | undefined>): string {
  const fragment = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) fragment.set(name, value);
  return `${redirectUri}#${fragment.toString()}`;
}

/** Success: the tokens the response_type asked for, then `state` unchanged. */
export function tokenRedirect(
  redirectUri: string,
  responseType: ResponseType,
  tokens: IssuedUserTokens,
  state: string | undefined,
): string {
  const accessToken = includesAccessToken(responseType);
  return withFragment(redirectUri, {
    access_token: accessToken ? tokens.access_token : undefined,
    id_token: includesIdToken(responseType) ? tokens.id_token : undefined,
    scope: accessToken ? tokens.scope : undefined,
    expires_in: accessToken ? String(tokens.expires_in) : undefined,
    token_type: accessToken ? 'Bearer' : undefined,
    state,
  });
}

/** Failure after the redirect_uri was proven (OAuth 2.0 §4.2.2.1). */
export function errorRedirect(redirectUri: string, error: string, description: string, state: string | undefined): string {
  return withFragment(redirectUri, { error, error_description: description, state });
}
