import { ErrorCodes, PASSWORDLESS_OTP_GRANT } from '@smsauth/contracts';
import { PAGE_ERRORS, type PageErrorText } from './page-message';
import { HttpError } from '@smsauth/service-kit';
import type { IdentityStore, StoredClient, StoredConnection, StoredResourceServer } from '../../store';
import { splitScope, userAudience } from '../oauth/user-tokens';
import { parseClaimsParameter, requestedAcr, type RequestedClaims } from './requested-claims';
import { RESPONSE_MODES, webMessageOrigin, type ResponseMode, type ResponseTarget } from './response';

/**
 * The response types: the authorization code flow (OAuth 2.0 §4.1, with PKCE) and the
 * implicit flow (OAuth 2.0 §4.2, OIDC Core §3.2), normalised.
 */
export const RESPONSE_TYPES = ['code', 'token', 'id_token', 'token id_token'] as const;
export type ResponseType = (typeof RESPONSE_TYPES)[number];

/** The only PKCE method accepted (RFC 7636 `plain` offers nothing against a stolen code). */
export const CODE_CHALLENGE_METHODS = ['S256'] as const;
/** A S256 challenge: base64url of a SHA-256, 43 characters. */
export const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** Longest value accepted for any /authorize parameter (state and nonce are opaque to us). */
export const MAX_PARAMETER_LENGTH = 2048;

/**
 * A problem that must be shown on the page and never sent to a redirect_uri: the client or
 * the redirect_uri is unknown or unproven, or the browser's transaction is unusable.
 */
export class AuthorizePageError extends Error {
  /** The page's title and description by code, rendered in the page's language. */
  readonly text: PageErrorText;

  constructor(
    readonly status: number,
    readonly title: string,
    readonly description: string,
    text?: PageErrorText,
  ) {
    super(description);
    this.name = 'AuthorizePageError';
    this.text = text ?? PAGE_ERRORS.serverError();
  }
}

/**
 * A page of a transaction that already signed its user in (Back after the login): the browser
 * goes to the application's login route when `redirect`, else sees a page linking to `returnTo`.
 */
export class SignInCompletedError extends Error {
  constructor(
    readonly appName: string,
    /** The application's login route (`redirect`) or web origin; none for a native app. */
    readonly returnTo: string | undefined,
    readonly redirect: boolean,
  ) {
    super('This sign-in is complete');
    this.name = 'SignInCompletedError';
  }
}

/** A problem reported back to a validated redirect_uri, by the request's response mode, with its `state`. */
export class AuthorizeRedirectError extends Error {
  constructor(
    readonly target: ResponseTarget,
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
  response_mode?: string;
  code_challenge?: string;
  code_challenge_method?: string;
  max_age?: string;
  login_hint?: string;
  ui_locales?: string;
  claims_locales?: string;
  display?: string;
  id_token_hint?: string;
  claims?: string;
  acr_values?: string;
  request?: string;
  request_uri?: string;
}

/** A request that passed every check: what the login will be for. */
export interface AuthorizeRequest {
  client: StoredClient;
  connection: StoredConnection;
  /** The API the access token is for (`audience`, else the client's default_audience). */
  api?: StoredResourceServer;
  redirectUri: string;
  responseType: ResponseType;
  /** Where the response goes: redirectUri and the response mode. */
  target: ResponseTarget;
  state?: string;
  nonce?: string;
  /** Requested scope, space-separated ("openid" when none was given). */
  scope: string;
  /** PKCE S256 challenge (code flow). */
  codeChallenge?: string;
  /** `none`: answer without showing anything; `login`: ask for the SMS even with a session. */
  prompt?: 'none' | 'login';
  /** Seconds: a session older than this must sign in again. */
  maxAge?: number;
  /** Prefills the number on the phone page. */
  loginHint?: string;
  /** An ID token naming the user the client expects (checked against the session). */
  idTokenHint?: string;
  /** What the claims parameter asked for. */
  claims?: RequestedClaims;
  /** The acr the ID token carries (requestedAcr), when the client asked for one this service asserts. */
  acr?: string;
}

/** The /authorize query parameters acted on (the OpenAPI document lists them from here); others are ignored. */
export const AUTHORIZE_PARAMETER_NAMES = [
  'client_id',
  'redirect_uri',
  'response_type',
  'response_mode',
  'state',
  'nonce',
  'scope',
  'audience',
  'connection',
  'prompt',
  'max_age',
  'code_challenge',
  'code_challenge_method',
  'login_hint',
  'ui_locales',
  'claims_locales',
  'display',
  'id_token_hint',
  'claims',
  'acr_values',
  'request',
  'request_uri',
] as const;

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

export function isCodeFlow(responseType: ResponseType): boolean {
  return responseType === 'code';
}

/**
 * fragment when the response type returns a token (OAuth 2.0 Multiple Response Types §5), else
 * query: the code flow's, and the one left when response_type is missing (RFC 6749 §4.1.2.1).
 */
export function defaultResponseMode(responseType: string | undefined): ResponseMode {
  const parts = (responseType ?? '').split(' ');
  return parts.includes('token') || parts.includes('id_token') ? 'fragment' : 'query';
}

/** The mode named, or undefined when it is not one of RESPONSE_MODES. */
export function readResponseMode(value: string | undefined): ResponseMode | undefined {
  return (RESPONSE_MODES as readonly string[]).includes(value ?? '') ? (value as ResponseMode) : undefined;
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
    if (repeated.includes(name)) throw new AuthorizePageError(400, 'Invalid request', `The parameter ${name} was given more than once.`, PAGE_ERRORS.repeatedParameter(name));
    if (!params[name]) throw new AuthorizePageError(400, 'Invalid request', `The parameter ${name} is missing.`, PAGE_ERRORS.missingParameter(name));
  }
  const client = await store.clients.findById(params.client_id!);
  if (!client) throw new AuthorizePageError(400, 'Unknown application', 'No application is registered with this client_id.', PAGE_ERRORS.unknownClient());
  const redirectUri = params.redirect_uri!;
  if (params.response_mode === 'web_message') {
    // The response is posted to the redirect_uri's origin, not navigated to: that origin must be a registered web origin.
    const origin = webMessageOrigin(redirectUri);
    if (!origin || !client.web_origins.includes(origin)) {
      throw new AuthorizePageError(
        400,
        'Origin not allowed',
        `The origin of the redirect_uri is not one of the web origins registered for ${client.name}. Add it to the application's web_origins.`,
        PAGE_ERRORS.originNotAllowed(client.name),
      );
    }
    if (client.web_origins.includes(redirectUri.replace(/\/$/, '')) || client.callbacks.includes(redirectUri)) return { client, redirectUri };
  }
  // Exact string comparison: no normalisation, no prefix or wildcard matching.
  if (!client.callbacks.includes(redirectUri)) {
    throw new AuthorizePageError(
      400,
      'Callback URL mismatch',
      `The redirect_uri is not one of the callback URLs registered for ${client.name}. Add it to the application's callbacks.`,
      PAGE_ERRORS.callbackMismatch(client.name),
    );
  }
  if (redirectUri.includes('#')) {
    throw new AuthorizePageError(400, 'Invalid request', 'The redirect_uri must not contain a fragment (RFC 6749 §3.1.2).', PAGE_ERRORS.redirectUriFragment());
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
  const responseType = params.response_type ? normaliseResponseType(params.response_type) : undefined;
  // An unknown or unusable mode: the error goes back by the response type's default mode. A
  // request object is refused, but the mode it names says how the client waits for the answer.
  const namedMode = readResponseMode(params.response_mode ?? (params.request ? requestObjectResponseMode(params.request) : undefined));
  const mode = namedMode && !(namedMode === 'query' && responseType && !isCodeFlow(responseType)) ? namedMode : defaultResponseMode(params.response_type);
  const target: ResponseTarget = { redirectUri, mode };
  const fail = (error: string, description: string) => new AuthorizeRedirectError(target, state, error, description);

  if (repeated.length > 0) throw fail(ErrorCodes.INVALID_REQUEST, `Parameters given more than once: ${repeated.join(', ')}.`);
  // Request objects (OpenID Connect Core §6) are not supported; discovery says so. Refused rather
  // than ignored: the state and nonce a client put only in the object would silently be lost.
  if (params.request !== undefined) throw fail('request_not_supported', 'Request objects (the request parameter) are not supported: send the parameters in the query.');
  if (params.request_uri !== undefined) throw fail('request_uri_not_supported', 'The request_uri parameter is not supported: send the parameters in the query.');
  const tooLong = AUTHORIZE_PARAMETER_NAMES.filter((name) => (params[name]?.length ?? 0) > MAX_PARAMETER_LENGTH);
  if (tooLong.length > 0) throw fail(ErrorCodes.INVALID_REQUEST, `Parameters longer than ${MAX_PARAMETER_LENGTH} characters: ${tooLong.join(', ')}.`);
  if (!params.response_type) throw fail(ErrorCodes.INVALID_REQUEST, 'The parameter response_type is missing.');
  if (!responseType) {
    throw fail('unsupported_response_type', `Unsupported response_type: ${params.response_type}. Use code, token, id_token or token id_token.`);
  }
  if (params.response_mode !== undefined && !namedMode) {
    throw fail(ErrorCodes.INVALID_REQUEST, `Unsupported response_mode: ${params.response_mode}. Use query, fragment, form_post or web_message.`);
  }
  if (namedMode === 'query' && !isCodeFlow(responseType)) {
    throw fail(ErrorCodes.INVALID_REQUEST, 'response_mode=query cannot carry tokens: use fragment, form_post or web_message.');
  }
  const codeFlow = isCodeFlow(responseType);
  const grantAllowed = codeFlow
    ? client.grant_types.includes('authorization_code')
    : client.grant_types.includes('implicit') || client.grant_types.includes(PASSWORDLESS_OTP_GRANT);
  if (client.app_type === 'non_interactive' || !grantAllowed) {
    throw fail(ErrorCodes.UNAUTHORIZED_CLIENT, codeFlow
      ? "Grant type 'authorization_code' not allowed for the client."
      : "Grant type 'implicit' not allowed for the client.");
  }
  const scope = params.scope ?? 'openid';
  if (includesIdToken(responseType)) {
    if (!params.nonce) throw fail(ErrorCodes.INVALID_REQUEST, 'The parameter nonce is required when response_type includes id_token.');
    if (!splitScope(scope).includes('openid')) {
      throw fail('invalid_scope', 'The scope must include openid when response_type includes id_token.');
    }
  }
  // PKCE: only S256; a public client must use it. The implicit flow ignores a challenge.
  let codeChallenge: string | undefined;
  if (codeFlow) {
    if (params.code_challenge_method !== undefined && params.code_challenge_method !== 'S256') {
      throw fail(ErrorCodes.INVALID_REQUEST, `Unsupported code_challenge_method: ${params.code_challenge_method}. Use S256.`);
    }
    if (params.code_challenge !== undefined) {
      if (params.code_challenge_method === undefined) throw fail(ErrorCodes.INVALID_REQUEST, 'The parameter code_challenge_method is required: use S256.');
      if (!S256_CHALLENGE.test(params.code_challenge)) throw fail(ErrorCodes.INVALID_REQUEST, 'The code_challenge must be the base64url SHA-256 of the code_verifier (43 characters).');
      codeChallenge = params.code_challenge;
    } else if (client.token_endpoint_auth_method === 'none') {
      throw fail(ErrorCodes.INVALID_REQUEST, 'The parameter code_challenge is required: a public client must use PKCE (S256).');
    }
  }
  const prompts = splitScope(params.prompt);
  if (prompts.includes('none') && prompts.length > 1) throw fail(ErrorCodes.INVALID_REQUEST, 'prompt=none cannot be combined with other prompt values.');
  const prompt = prompts.includes('none') ? 'none' : prompts.includes('login') ? 'login' : undefined;
  let maxAge: number | undefined;
  if (params.max_age !== undefined) {
    if (!/^\d{1,10}$/.test(params.max_age)) throw fail(ErrorCodes.INVALID_REQUEST, 'The parameter max_age must be a whole number of seconds.');
    maxAge = Number(params.max_age);
  }

  let claims: RequestedClaims | undefined;
  if (params.claims !== undefined) {
    const parsed = parseClaimsParameter(params.claims);
    if (typeof parsed === 'string') throw fail(ErrorCodes.INVALID_REQUEST, parsed);
    claims = parsed;
  }
  const acr = requestedAcr(params.acr_values, claims);

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
  return {
    client,
    connection,
    api,
    redirectUri,
    responseType,
    target,
    state,
    nonce: params.nonce,
    scope,
    codeChallenge,
    prompt,
    maxAge,
    loginHint: params.login_hint,
    idTokenHint: params.id_token_hint,
    claims,
    acr,
  };
}

/**
 * The response_mode inside a request object (read, never trusted: the object is refused, and
 * the error goes to the redirect_uri proven outside it either way), or undefined.
 */
function requestObjectResponseMode(request: string): string | undefined {
  try {
    const payload: unknown = JSON.parse(Buffer.from(request.split('.')[1] ?? '', 'base64url').toString('utf8'));
    const mode = typeof payload === 'object' && payload !== null ? (payload as { response_mode?: unknown }).response_mode : undefined;
    // Not web_message: its origin check (the client's web_origins) was made for the outer parameters only.
    return typeof mode === 'string' && mode !== 'web_message' ? mode : undefined;
  } catch {
    return undefined;
  }
}
