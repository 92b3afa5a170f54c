import { ErrorCodes, PASSWORDLESS_OTP_GRANT } from '@smsauth/contracts';
import { HttpError } from '@smsauth/service-kit';
import type { IdentityStore, StoredClient, StoredConnection, StoredResourceServer } from '../../store';
import { splitScope, userAudience } from '../oauth/user-tokens';

/** The response types of the implicit flow (OAuth 2.0 §4.2, OIDC Core §3.2), normalised. */
export const RESPONSE_TYPES = ['token', 'id_token', 'token id_token'] as const;
export type ResponseType = (typeof RESPONSE_TYPES)[number];

/** Longest value accepted for any /authorize parameter (state and nonce are opaque to us). */
export const MAX_PARAMETER_LENGTH = 2048;

/**
 * A problem that must be shown on the page and never sent to a redirect_uri: the client or
 * the redirect_uri is unknown or unproven, or the browser's transaction is unusable.
 */
export class AuthorizePageError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly description: string,
  ) {
    super(description);
    this.name = 'AuthorizePageError';
  }
}

/** A problem reported back to a validated redirect_uri as `#error=...&error_description=...&state=...`. */
export class AuthorizeRedirectError extends Error {
  constructor(
    readonly redirectUri: string,
    readonly state: string | undefined,
    readonly error: string,
    readonly description: string,
  ) {
    super(`${error}: ${description}`);
    this.name = 'AuthorizeRedirectError';
  }
}

/** The /authorize parameters, as strings (a repeated parameter is refused before this). */
export interface AuthorizeParameters {
  client_id?: string;
  redirect_uri?: string;
  response_type?: string;
  state?: string;
  nonce?: string;
  scope?: string;
  audience?: string;
  connection?: string;
  prompt?: string;
}

/** A request that passed every check: what the login will be for. */
export interface AuthorizeRequest {
  client: StoredClient;
  connection: StoredConnection;
  /** The API the access token is for (`audience`, else the client's default_audience). */
  api?: StoredResourceServer;
  redirectUri: string;
  responseType: ResponseType;
  state?: string;
  nonce?: string;
  /** Requested scope, space-separated ("openid" when none was given). */
  scope: string;
}

/** The /authorize query parameters acted on (the OpenAPI document lists them from here). */
export const AUTHORIZE_PARAMETER_NAMES = ['client_id', 'redirect_uri', 'response_type', 'state', 'nonce', 'scope', 'audience', 'connection', 'prompt'] as const;

/**
 * Reads the parameters we act on from a parsed query string. RFC 6749 §3.1: a parameter
 * must not appear twice; empty values count as absent.
 */
export function readAuthorizeParameters(query: Record<string, unknown>): { params: AuthorizeParameters; repeated: string[] } {
  const params: AuthorizeParameters = {};
  const repeated: string[] = [];
  for (const name of AUTHORIZE_PARAMETER_NAMES) {
    const value = query[name];
    if (Array.isArray(value)) repeated.push(name);
    else if (typeof value === 'string' && value !== '') params[name] = value;
  }
  return { params, repeated };
}

/** `token id_token` in any order -> the normalised form; anything else -> undefined. */
export function normaliseResponseType(value: string): ResponseType | undefined {
  const parts = [...new Set(value.split(' ').filter(Boolean))].sort((a, b) => (a === 'token' ? -1 : b === 'token' ? 1 : 0));
  const joined = parts.join(' ');
  return (RESPONSE_TYPES as readonly string[]).includes(joined) ? (joined as ResponseType) : undefined;
}

export function includesIdToken(responseType: ResponseType): boolean {
  return responseType.includes('id_token');
}

export function includesAccessToken(responseType: ResponseType): boolean {
  return responseType.split(' ').includes('token');
}

/**
 * The client and the redirect_uri, checked before anything else: until both are proven,
 * nothing may be sent to the redirect_uri (RFC 6749 §4.2.2.1), so every problem is a page.
 */
export async function resolveClientAndRedirect(
  store: IdentityStore,
  params: AuthorizeParameters,
  repeated: readonly string[],
): Promise<{ client: StoredClient; redirectUri: string }> {
  for (const name of ['client_id', 'redirect_uri'] as const) {
    if (repeated.includes(name)) throw new AuthorizePageError(400, 'Invalid request', `The parameter ${name} was given more than once.`);
    if (!params[name]) throw new AuthorizePageError(400, 'Invalid request', `The parameter ${name} is missing.`);
  }
  const client = await store.clients.findById(params.client_id!);
  if (!client) throw new AuthorizePageError(400, 'Unknown application', 'No application is registered with this client_id.');
  const redirectUri = params.redirect_uri!;
  // Exact string comparison: no normalisation, no prefix or wildcard matching.
  if (!client.callbacks.includes(redirectUri)) {
    throw new AuthorizePageError(
      400,
      'Callback URL mismatch',
      `The redirect_uri is not one of the callback URLs registered for ${client.name}. Add it to the application's callbacks.`,
    );
  }
  if (redirectUri.includes('#')) {
    throw new AuthorizePageError(400, 'Invalid request', 'The redirect_uri must not contain a fragment (RFC 6749 §3.1.2).');
  }
  return { client, redirectUri };
}

/** The connection a login uses: the one named, or the client's only SMS connection. */
async function loginConnection(store: IdentityStore, client: StoredClient, name: string | undefined): Promise<StoredConnection | string> {
  if (name) {
    const connection = await store.connections.findByName(name);
    // One answer for "no such connection" and "not enabled", so clients cannot probe for names.
    if (!connection || connection.strategy !== 'sms' || !connection.enabled_clients.includes(client.client_id)) {
      return `The connection ${name} is not an SMS connection enabled for this client.`;
    }
    return connection;
  }
  const enabled = (await store.connections.list()).filter((c) => c.strategy === 'sms' && c.enabled_clients.includes(client.client_id));
  if (enabled.length === 1) return enabled[0]!;
  return enabled.length === 0
    ? 'No SMS connection is enabled for this client.'
    : 'The parameter connection is required: several SMS connections are enabled for this client.';
}

/**
 * Every check of `GET /authorize` after the redirect_uri is proven; each failure goes back to
 * it. The same function re-checks a stored transaction before tokens are issued, so a client
 * or connection changed in between is noticed.
 */
export async function resolveAuthorizeRequest(
  store: IdentityStore,
  params: AuthorizeParameters,
  repeated: readonly string[] = [],
): Promise<AuthorizeRequest> {
  const { client, redirectUri } = await resolveClientAndRedirect(store, params, repeated);
  const state = repeated.includes('state') ? undefined : params.state;
  const fail = (error: string, description: string) => new AuthorizeRedirectError(redirectUri, state, error, description);

  if (repeated.length > 0) throw fail(ErrorCodes.INVALID_REQUEST, `Parameters given more than once: ${repeated.join(', ')}.`);
  const tooLong = AUTHORIZE_PARAMETER_NAMES.filter((name) => (params[name]?.length ?? 0) > MAX_PARAMETER_LENGTH);
  if (tooLong.length > 0) throw fail(ErrorCodes.INVALID_REQUEST, `Parameters longer than ${MAX_PARAMETER_LENGTH} characters: ${tooLong.join(', ')}.`);
  if (!params.response_type) throw fail(ErrorCodes.INVALID_REQUEST, 'The parameter response_type is missing.');
  const responseType = normaliseResponseType(params.response_type);
  if (!responseType) {
    throw fail('unsupported_response_type', `Unsupported response_type: ${params.response_type}. Use token, id_token or token id_token.`);
  }
  if (client.app_type === 'non_interactive' || !client.grant_types.includes(PASSWORDLESS_OTP_GRANT)) {
    throw fail(ErrorCodes.UNAUTHORIZED_CLIENT, 'The client is not allowed to sign users in with a one-time code.');
  }
  const scope = params.scope ?? 'openid';
  if (includesIdToken(responseType)) {
    if (!params.nonce) throw fail(ErrorCodes.INVALID_REQUEST, 'The parameter nonce is required when response_type includes id_token.');
    if (!splitScope(scope).includes('openid')) {
      throw fail('invalid_scope', 'The scope must include openid when response_type includes id_token.');
    }
  }
  // No sessions are kept, so a login can never happen without showing the page (OIDC Core §3.1.2.6).
  if (params.prompt === 'none') throw fail('login_required', 'The user must sign in.');

  const connection = await loginConnection(store, client, params.connection);
  if (typeof connection === 'string') throw fail(ErrorCodes.INVALID_REQUEST, connection);

  const audience = params.audience ?? client.default_audience ?? undefined;
  let api: StoredResourceServer | undefined;
  if (audience) {
    try {
      api = await userAudience(store, client, audience);
    } catch (err) {
      if (err instanceof HttpError) throw fail(err.error, err.errorDescription);
      throw err;
    }
  }
  return { client, connection, api, redirectUri, responseType, state, nonce: params.nonce, scope };
}
