import type { IssuedUserTokens } from '../oauth/user-tokens';

/** How the authorization response reaches the client (OAuth 2.0 Multiple Response Types, Form Post, Auth0's web_message). */
export const RESPONSE_MODES = ['query', 'fragment', 'form_post', 'web_message'] as const;
export type ResponseMode = (typeof RESPONSE_MODES)[number];

/** Where a response goes: the proven redirect_uri, by the mode the request asked for (or its default). */
export interface ResponseTarget {
  redirectUri: string;
  mode: ResponseMode;
}

/**
 * An authorization response, success or error: its parameters (undefined ones are left out)
 * for the target. The route delivers it: a 302 with a query or fragment, an auto-submitting
 * form (form_post) or a page posting it to the opener or parent frame (web_message).
 */
export interface AuthorizationResponse extends ResponseTarget {
  params: Record<string, string>;
}

function defined(params: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined));
}

export function authorizationResponse(target: ResponseTarget, params: Record<string, string | undefined>): AuthorizationResponse {
  return { ...target, params: defined(params) };
}

/** Implicit success: the tokens the response_type asked for, then `state` unchanged. */
export function tokenParameters(
  tokens: IssuedUserTokens,
  wants: { accessToken: boolean; idToken: boolean },
  state: string | undefined,
): Record<string, string | undefined> {
  return {
    access_token: wants.accessToken ? tokens.access_token : undefined,
    id_token: wants.idToken ? tokens.id_token : undefined,
    scope: wants.accessToken ? tokens.scope : undefined,
    expires_in: wants.accessToken ? String(tokens.expires_in) : undefined,
    token_type: wants.accessToken ? 'Bearer' : undefined,
    state,
  };
}

/** Failure after the redirect_uri was proven (RFC 6749 §4.1.2.1, §4.2.2.1). */
export function errorResponse(target: ResponseTarget, error: string, description: string, state: string | undefined): AuthorizationResponse {
  return authorizationResponse(target, { error, error_description: description, state });
}

/**
 * The URL a query or fragment response redirects to, the parameters form-encoded. A query is
 * appended to any the redirect_uri already has (RFC 6749 §3.1.2).
 */
export function responseLocation(response: AuthorizationResponse): string {
  const encoded = new URLSearchParams(response.params).toString();
  if (response.mode === 'fragment') return `${response.redirectUri}#${encoded}`;
  const separator = response.redirectUri.includes('?') ? '&' : '?';
  return encoded ? `${response.redirectUri}${separator}${encoded}` : response.redirectUri;
}

/** The origin a web_message response is posted to: the redirect_uri's. */
export function webMessageOrigin(redirectUri: string): string | undefined {
  try {
    const { origin } = new URL(redirectUri);
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}
