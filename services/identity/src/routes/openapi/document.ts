import {
  ClientCredentialsRequestSchema,
  ErrorCodes,
  JwksSchema,
  OAuthErrorBodySchema,
  OAuthTokenRequestSchema,
  OAuthTokenResponseSchema,
  OpenIdConfigurationSchema,
  OtpGrantRequestSchema,
  PASSWORDLESS_OTP_GRANT,
  RefreshTokenRequestSchema,
  RevokeRequestSchema,
  RoTokenRequestSchema,
  RoTokenResponseSchema,
  StartRequestSchema,
  StartResponseSchema,
  UserInfoResponseSchema,
} from '@smsauth/contracts';
import { jsonSchemaOf, openApiPathsOf, SchemaComponents, withInputGuardRefusals, type Operation } from '@smsauth/service-kit';
import type { z } from 'zod';
import { AUTHORIZE_PARAMETER_NAMES } from '../../domain/authorize/request';
import type { ManagementRoute } from '../management';
import { COMMON_ERRORS, errorBodySchema, errorResponse, NO_BODY_ERRORS } from '../management/responses';
import { EXAMPLE_CLIENT, EXAMPLE_CONNECTION, EXAMPLE_PHONE } from '../management/examples';
import { passkeyHostedLoginPaths } from './passkey-paths';

// The identity service's OpenAPI 3.1 document. The management API is declared once per
// operation with the service kit (routes/management/<group>.ts) and publishes itself: the
// schemas shown are the ones that validate. The authentication, discovery, hosted login and
// kit routes are still described here, each with the zod schema of @smsauth/contracts its
// route validates with (or answers with), so changing a schema changes the document.

export interface IdentityOpenApiOptions {
  version: string;
  /** The management router's routes and scopes (paths relative to /api/v2). */
  managementRoutes: readonly ManagementRoute[];
  /** The management operations declared with the service kit: they describe themselves. */
  managementOperations?: readonly Operation[];
  /** The management API's audience, named in the client-credentials flow. */
  managementAudience?: string;
}

type Json = Record<string, unknown>;

/** A component schema: the contracts JSON Schema without its `$schema` marker. */
const component = jsonSchemaOf;

/** What callers send (input form: defaulted fields optional, unknown fields as each schema says). */
const REQUEST_SCHEMAS = {
  StartRequest: StartRequestSchema,
  RoTokenRequest: RoTokenRequestSchema,
  OAuthTokenRequest: OAuthTokenRequestSchema,
  OtpGrantRequest: OtpGrantRequestSchema,
  ClientCredentialsRequest: ClientCredentialsRequestSchema,
  RefreshTokenRequest: RefreshTokenRequestSchema,
  RevokeRequest: RevokeRequestSchema,
} satisfies Record<string, z.ZodType>;

/** What the service answers (output form: closed objects, so an undocumented field is an error). */
const RESPONSE_SCHEMAS = {
  ErrorBody: OAuthErrorBodySchema,
  StartResponse: StartResponseSchema,
  RoTokenResponse: RoTokenResponseSchema,
  OAuthTokenResponse: OAuthTokenResponseSchema,
  UserInfoResponse: UserInfoResponseSchema,
  Jwks: JwksSchema,
  OpenIdConfiguration: OpenIdConfigurationSchema,
} satisfies Record<string, z.ZodType>;
type SchemaName = keyof typeof REQUEST_SCHEMAS | keyof typeof RESPONSE_SCHEMAS;

const ref = (name: SchemaName) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Json, extra: Json = {}) => ({ content: { 'application/json': { schema, ...extra } } });

const E = ErrorCodes;
const error = errorResponse;

/** JSON and form bodies with one schema (the token endpoints and start accept both). */
function body(name: SchemaName, examples?: Json): Json {
  const media = { schema: ref(name), ...(examples ? { examples } : {}) };
  return { required: true, content: { 'application/json': media, 'application/x-www-form-urlencoded': { schema: ref(name) } } };
}

// --- Examples, from the README's flows -------------------------------------------------------

const EXAMPLES = {
  start: {
    sendCode: {
      summary: 'Send a code by SMS',
      value: { client_id: EXAMPLE_CLIENT, connection: EXAMPLE_CONNECTION, phone_number: EXAMPLE_PHONE, send: 'code', authParams: { scope: 'openid', state: 'xyz' } },
    },
  },
  ro: {
    exchangeCode: {
      summary: 'Exchange the code for tokens',
      value: { client_id: EXAMPLE_CLIENT, connection: EXAMPLE_CONNECTION, grant_type: 'password', username: EXAMPLE_PHONE, password: '123456', scope: 'openid' },
    },
  },
  token: (managementAudience: string) => ({
    otp: {
      summary: 'Passwordless OTP grant (an API access token)',
      value: {
        grant_type: PASSWORDLESS_OTP_GRANT,
        client_id: EXAMPLE_CLIENT,
        username: EXAMPLE_PHONE,
        otp: '123456',
        realm: EXAMPLE_CONNECTION,
        audience: 'https://airport-api.example.com/',
        scope: 'openid',
      },
    },
    clientCredentials: {
      summary: 'client_credentials: a management API token',
      value: { grant_type: 'client_credentials', client_id: '$ADMIN_CLIENT_ID', client_secret: '$ADMIN_CLIENT_SECRET', audience: managementAudience },
    },
    refresh: { summary: 'Refresh', value: { grant_type: 'refresh_token', client_id: EXAMPLE_CLIENT, refresh_token: 'v1.Mr5...' } },
    authorizationCode: {
      summary: 'Authorization code with PKCE (a public client; a confidential one adds its secret or assertion)',
      value: {
        grant_type: 'authorization_code',
        client_id: EXAMPLE_CLIENT,
        code: 'Qc5mV1Rk...',
        redirect_uri: 'https://app.example.com/callback',
        code_verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
      },
    },
  }),
};

// --- Authentication and discovery -------------------------------------------------------------

/** Client authentication, as each client's token_endpoint_auth_method demands. */
const CLIENT_AUTHENTICATION =
  'Clients authenticate as their `token_endpoint_auth_method` says: `client_secret` in the body or HTTP Basic (`client_secret_post` / `client_secret_basic`), ' +
  'or `client_assertion` + `client_assertion_type=urn:ietf:params:oauth:client-assertion-type:jwt-bearer` (`private_key_jwt`: RS256, RS384, PS256 or ES256, ' +
  '`iss` = `sub` = client_id, `aud` = the issuer or the token URL, `exp` at most 5 minutes ahead, a `jti` used once); `none` clients send only `client_id` ' +
  'and are refused if they send a credential. Any failure is the same 401 `invalid_client`.';
// No scheme for client_secret_post or private_key_jwt: OpenAPI has none for a body field, and an
// apiKey stand-in would have generated clients put the secret in the URL. The body schemas have them.
const CLIENT_SECURITY = [{}, { clientSecretBasic: [] }];

function authenticationPaths(managementAudience: string): Json {
  const noStore = { 'Cache-Control': { description: '`no-store`', schema: { type: 'string' } } };
  const rateLimitHeaders = Object.fromEntries(
    ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'].map((name) => [name, { schema: { type: 'integer' } }]),
  );
  return {
    '/passwordless/start': {
      post: {
        tags: ['Authentication'],
        operationId: 'passwordlessStart',
        summary: 'Send a one-time code by SMS (spec 2.3)',
        description: CLIENT_AUTHENTICATION,
        security: CLIENT_SECURITY,
        parameters: [
          {
            name: 'Idempotency-Key',
            in: 'header',
            required: false,
            schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$' },
            description:
              'Optional, 1-255 visible ASCII characters, unique per start of a client. A retry with the same key while the first start\'s code is valid gets the first answer (`Idempotent-Replayed: true`) and sends nothing more; if the first start\'s delivery never settled (a replica died, the gateway answered 503), the same code is delivered again under the same gateway Idempotency-Key, so the SMS goes out at most once. Without it, every start sends.',
          },
        ],
        requestBody: body('StartRequest', EXAMPLES.start),
        responses: {
          '200': {
            description: 'The code was sent (or, for a retry with its Idempotency-Key, the first answer: `Idempotent-Replayed: true`).',
            headers: { ...rateLimitHeaders, 'Idempotent-Replayed': { schema: { type: 'string', enum: ['true'] }, description: 'Present on the answer to a retry with the same Idempotency-Key.' } },
            ...json(ref('StartResponse')),
          },
          '409': error('A start with this Idempotency-Key is in progress; retry with the same key.', [E.INVALID_REQUEST]),
          '422': error('The Idempotency-Key was already used for a different start (another number, connection, send or authParams).', [E.INVALID_REQUEST]),
          '400': error('The first problem of the request (by START_REQUEST_VALIDATION_ORDER), the connection\'s SMS policy refused the number (`bad.phone_number`: country or number type not enabled, test numbers disabled), or the gateway failed.', [
            E.BAD_CLIENT_ID,
            E.BAD_CONNECTION,
            E.BAD_PHONE_NUMBER,
            E.BAD_AUTH_PARAMS,
            E.BAD_REQUEST,
            E.SMS_PROVIDER_ERROR,
            E.INVALID_REQUEST,
          ]),
          '401': error('Client authentication failed, or the number\'s user is blocked (`user is blocked`; no code is sent).', [
            E.INVALID_CLIENT,
            E.UNAUTHORIZED,
          ]),
          '429': error('Start rate limit per IP or per phone number, a velocity limit of the connection per country or number prefix, or a prefix the SMS fraud guard blocked (with `Retry-After`).', [E.TOO_MANY_REQUESTS]),
          ...COMMON_ERRORS,
          '503': error('The database is unreachable (with `Retry-After: 5`), or the SMS gateway (or the balancer before it) answered 409, 502, 503 or 504 (with its `Retry-After`, else 5): retry, with the same Idempotency-Key to be sent at most once.', [E.SERVICE_UNAVAILABLE]),
        },
      },
    },
    '/oauth/ro': {
      post: {
        tags: ['Authentication'],
        operationId: 'resourceOwnerLogin',
        summary: 'Legacy resource-owner exchange of a code for tokens (spec 2.5)',
        description: CLIENT_AUTHENTICATION,
        security: CLIENT_SECURITY,
        requestBody: body('RoTokenRequest', EXAMPLES.ro),
        responses: {
          '200': { description: 'Tokens.', headers: noStore, ...json(ref('RoTokenResponse')) },
          '400': error('Malformed request.', [E.INVALID_REQUEST, E.UNSUPPORTED_GRANT_TYPE]),
          '401': error('Wrong phone number or code (one text for both), client authentication failed, or the user is blocked (`user is blocked`).', [
            E.INVALID_USER_PASSWORD,
            E.INVALID_CLIENT,
            E.UNAUTHORIZED,
          ]),
          '403': error('The client may not use this grant or audience.', [E.UNAUTHORIZED_CLIENT, E.ACCESS_DENIED]),
          '429': error('Brute-force block.', [E.TOO_MANY_ATTEMPTS]),
          ...COMMON_ERRORS,
        },
      },
    },
    '/oauth/token': {
      post: {
        tags: ['Authentication'],
        operationId: 'token',
        summary: 'Token endpoint: authorization_code (PKCE), passwordless OTP, client_credentials and refresh_token grants',
        description: `${CLIENT_AUTHENTICATION} JSON or form body. authorization_code: the code is single-use (a replay answers invalid_grant and revokes the refresh tokens and opaque access token of its first exchange; a JWT access token lives out its lifetime), lives AUTHORIZATION_CODE_LIFETIME_SECONDS (60 s), and must come with the client, redirect_uri and code_verifier (S256) of its request. Allowed web origins (clients' web_origins/allowed_origins) may call it from a browser (CORS).`,
        security: CLIENT_SECURITY,
        requestBody: body('OAuthTokenRequest', EXAMPLES.token(managementAudience)),
        responses: {
          '200': { description: 'Tokens.', headers: noStore, ...json(ref('OAuthTokenResponse')) },
          '400': error('Malformed request or unknown grant.', [E.INVALID_REQUEST, E.UNSUPPORTED_GRANT_TYPE]),
          '401': error('Client authentication failed (with `WWW-Authenticate: Basic` when Basic was used), or the user is blocked (`user is blocked`).', [
            E.INVALID_CLIENT,
            E.UNAUTHORIZED,
          ]),
          '403': error('Grant not allowed for the client, no client grant for the API, or a bad one-time code, authorization code (unknown, expired, reused, other client, redirect_uri or code_verifier mismatch) or refresh token.', [
            E.UNAUTHORIZED_CLIENT,
            E.ACCESS_DENIED,
            E.INVALID_GRANT,
          ]),
          '429': error('Brute-force block.', [E.TOO_MANY_ATTEMPTS]),
          ...COMMON_ERRORS,
        },
      },
    },
    '/oauth/revoke': {
      post: {
        tags: ['Authentication'],
        operationId: 'revoke',
        summary: 'Revoke a refresh token (RFC 7009): it and its rotation family stop refreshing',
        description: `${CLIENT_AUTHENTICATION} An unknown, already revoked or another client's token also answers 200 and changes nothing.`,
        security: CLIENT_SECURITY,
        requestBody: body('RevokeRequest'),
        responses: {
          '200': { description: 'Revoked (or nothing to revoke); empty body.', headers: noStore },
          '400': error('Malformed request.', [E.INVALID_REQUEST]),
          '401': error('Client authentication failed.', [E.INVALID_CLIENT]),
          ...COMMON_ERRORS,
        },
      },
    },
    '/v2/logout': {
      get: {
        tags: ['Authentication'],
        operationId: 'logout',
        summary: 'Log out: back to returnTo if it is one of the client\'s allowed_logout_urls',
        parameters: [
          { name: 'client_id', in: 'query', required: false, schema: { type: 'string' } },
          { name: 'returnTo', in: 'query', required: false, schema: { type: 'string' }, description: 'Compared exactly with the client\'s allowed_logout_urls.' },
          { name: 'federated', in: 'query', required: false, schema: { type: 'string' }, description: 'Accepted and ignored (no upstream identity provider).' },
        ],
        responses: {
          '200': { description: 'No returnTo and no allowed logout URL: a "signed out" page.', content: { 'text/html': { schema: { type: 'string' } } } },
          '302': { description: 'To returnTo, or without it to the client\'s first allowed logout URL.', headers: { Location: { schema: { type: 'string' } } } },
          '400': { description: 'returnTo is not an allowed logout URL of the client (or the client is unknown): an error page.', content: { 'text/html': { schema: { type: 'string' } } } },
          ...NO_BODY_ERRORS,
        },
      },
    },
    '/oidc/logout': {
      get: {
        tags: ['Authentication'],
        operationId: 'oidcLogout',
        summary: 'OpenID Connect RP-initiated logout (the end_session_endpoint): ends the login session',
        description:
          'The client is client_id or the audience of id_token_hint (an ID token issued here, expired or not; both given, they must agree). post_logout_redirect_uri must be one of its allowed_logout_urls (exact match) and gets `state` added to its query.',
        parameters: [
          { name: 'id_token_hint', in: 'query', required: false, schema: { type: 'string' } },
          { name: 'client_id', in: 'query', required: false, schema: { type: 'string' } },
          { name: 'post_logout_redirect_uri', in: 'query', required: false, schema: { type: 'string' } },
          { name: 'state', in: 'query', required: false, schema: { type: 'string' } },
          { name: 'logout_hint', in: 'query', required: false, schema: { type: 'string' }, description: 'Accepted and ignored.' },
          { name: 'ui_locales', in: 'query', required: false, schema: { type: 'string' }, description: 'Accepted and ignored.' },
        ],
        responses: {
          '200': { description: 'No post_logout_redirect_uri: a "signed out" page (the session cookie is cleared).', content: { 'text/html': { schema: { type: 'string' } } } },
          '302': { description: 'To post_logout_redirect_uri with state (the session cookie is cleared).', headers: { Location: { schema: { type: 'string' } } } },
          '400': {
            description: 'Not an allowed logout URL, an unknown client, a client_id that is not the hint\'s audience, or a hint not issued here: an error page; the session stays.',
            content: { 'text/html': { schema: { type: 'string' } } },
          },
          ...NO_BODY_ERRORS,
        },
      },
    },
    '/userinfo': {
      get: {
        tags: ['Authentication'],
        operationId: 'userinfo',
        summary: 'The user an access token issued here was issued for',
        security: [{ userAccessToken: [] }],
        parameters: [
          {
            name: 'access_token',
            in: 'query',
            required: false,
            description: 'The access token, when not in the `Authorization` header (RFC 6750 §2.3; passport-auth0 sends it so).',
            schema: { type: 'string' },
          },
        ],
        responses: {
          '200': { description: 'The user.', ...json(ref('UserInfoResponse')) },
          '401': error('Missing, unknown or expired token (with `WWW-Authenticate`).', [E.INVALID_TOKEN]),
          ...NO_BODY_ERRORS,
        },
      },
    },
  };
}

function discoveryPaths(): Json {
  const cached = { 'Cache-Control': { description: '`public, max-age=300`', schema: { type: 'string' } } };
  return {
    '/.well-known/jwks.json': {
      get: {
        tags: ['Discovery'],
        operationId: 'jwks',
        summary: 'The public signing keys: current, next (published before it signs) and previous, each with `x5c` and `x5t`',
        responses: { '200': { description: 'Key set.', headers: cached, ...json(ref('Jwks')) }, ...NO_BODY_ERRORS },
      },
    },
    '/.well-known/openid-configuration': {
      get: {
        tags: ['Discovery'],
        operationId: 'openidConfiguration',
        summary: 'OpenID Connect discovery document',
        responses: { '200': { description: 'Discovery document.', headers: cached, ...json(ref('OpenIdConfiguration')) } },
      },
    },
    '/openapi.json': {
      get: {
        tags: ['Discovery'],
        operationId: 'openApiDocument',
        summary: 'This document',
        responses: { '200': { description: 'OpenAPI 3.1 document.', ...json({ type: 'object' }) } },
      },
    },
  };
}

// --- Hosted login (HTML pages and form posts) ----------------------------------------------------

function hostedLoginPaths(): Json {
  const html = (description: string) => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });
  const seeOther = (description: string) => ({ description, headers: { Location: { schema: { type: 'string' } } } });
  const toRedirectUri = {
    description:
      'response_mode query (code flow default) or fragment (implicit default): to the redirect_uri with `code`/`state`, the tokens, or `error`/`error_description`/`state` (`unauthorized`/`user is blocked` for a blocked user, `login_required` for prompt=none without a session).',
    headers: { Location: { schema: { type: 'string' } } },
  };
  const responsePage = html(
    'response_mode form_post: a page that posts the response to the redirect_uri (its one script allowed by hash); web_message: a page that posts `{type: "authorization_response", response}` to the opener or parent at the redirect_uri\'s origin, a registered web origin (framable by that origin only).',
  );
  const pageErrors = {
    '400': html('Error page (bad request, unknown client or callback, unknown or expired transaction), or the form again with the problem.'),
    '403': html('Sign-up disabled, or the transaction cookie or CSRF token does not match.'),
    '429': html('Rate limit, resend cool-down or brute-force block.'),
    '500': html('Generic error page.'),
    '502': html('The SMS gateway failed.'),
    '503': html('Database unreachable (with `Retry-After: 5`).'),
  };
  /**
   * Every page and post of a transaction: besides its own answers, Back after the sign-in
   * completed (within the hour the transaction is kept) goes to the client's initiate_login_uri
   * (303) or shows "You are signed in" (200).
   */
  const COMPLETED = 'Or, for a transaction that already signed its user in:';
  const transactionResponses = (responses: Record<string, { description: string }>) => ({
    ...responses,
    '200': responses['200']
      ? { ...responses['200'], description: `${responses['200'].description} ${COMPLETED} the "You are signed in" page linking to the application.` }
      : html(`${COMPLETED} the "You are signed in" page linking to the application.`),
    '303': responses['303']
      ? { ...responses['303'], description: `${responses['303'].description} ${COMPLETED} to the client's initiate_login_uri.` }
      : seeOther(`${COMPLETED} to the client's initiate_login_uri.`),
    ...pageErrors,
  });
  const transactionQuery = [{ name: 'transaction', in: 'query', required: true, schema: { type: 'string' } }];
  const form = (fields: Record<string, string>) => ({
    required: true,
    content: {
      'application/x-www-form-urlencoded': {
        schema: {
          type: 'object',
          required: Object.keys(fields),
          properties: Object.fromEntries(Object.entries(fields).map(([name, description]) => [name, { type: 'string', description }])),
        },
      },
    },
  });
  const transactionFields = { transaction: 'The transaction id of the page.', csrf_token: 'The CSRF token of the page.' };
  /** A form body with one more, optional, field. */
  const withOptionalField = (body: ReturnType<typeof form>, name: string, schema: Json) => {
    const media = body.content['application/x-www-form-urlencoded'];
    return { ...body, content: { 'application/x-www-form-urlencoded': { schema: { ...media.schema, properties: { ...media.schema.properties, [name]: schema } } } } };
  };
  const op = (operationId: string, summary: string, extra: Json) => ({ tags: ['Hosted login'], operationId, summary, ...extra });
  return {
    '/authorize': {
      get: op('authorize', 'Start a sign-in (code flow with PKCE, or implicit): answered from the login session, or the phone-number page', {
        description:
          'response_type code (PKCE S256 required for public clients; plain refused), token, id_token or token id_token. response_mode query, fragment, form_post or web_message. prompt=none answers without a page (login_required without a usable session); prompt=login always asks for the SMS; max_age forbids an older session. login_hint prefills the number; ui_locales and unknown parameters (auth0Client, ...) are ignored. A live login session of the connection signs in to any client without an SMS.',
        parameters: AUTHORIZE_PARAMETER_NAMES.map((name) => ({
          name,
          in: 'query',
          required: name === 'client_id' || name === 'redirect_uri',
          schema: { type: 'string', maxLength: 2048 },
        })),
        responses: { '200': html('The phone-number page (sets the transaction cookie), or a form_post / web_message response page.'), '302': toRedirectUri, ...pageErrors },
      }),
    },
    '/authorize/login.css': {
      get: op('authorizeStyles', 'The login pages\' style sheet', {
        responses: { '200': { description: 'CSS.', content: { 'text/css': { schema: { type: 'string' } } } } },
      }),
    },
    '/authorize/phone': {
      get: op('authorizePhonePage', 'The phone-number page of a transaction', {
        parameters: transactionQuery,
        responses: transactionResponses({ '200': html('The page.') }),
      }),
      post: op('authorizePhone', 'Send the code to the number typed', {
        requestBody: form({
          ...transactionFields,
          country: 'ISO 3166-1 alpha-2 code the number is read for (national format); empty: the number starts with + and its country code.',
          phone_number: 'The number as typed; it must be a valid number (libphonenumber) and is kept in E.164.',
        }),
        responses: transactionResponses({ '303': seeOther('To the code page.'), '302': toRedirectUri }),
      }),
    },
    '/authorize/code': {
      get: op('authorizeCodePage', 'The code page of a transaction', {
        parameters: [...transactionQuery, { name: 'sent', in: 'query', required: false, schema: { const: '1' } }],
        responses: transactionResponses({ '200': html('The page.'), '303': seeOther('To the phone page when no code was sent yet.') }),
      }),
      post: op('authorizeCode', 'Check the code, start the login session (cookie `smsauth_session`) and answer the client', {
        requestBody: form({ ...transactionFields, code: 'The one-time code.' }),
        responses: transactionResponses({ '200': responsePage, '302': toRedirectUri }),
      }),
    },
    '/authorize/resend': {
      post: op('authorizeResend', 'Send a new code: again by the same channel, or by the one chosen ("Call me instead", "Send via WhatsApp")', {
        requestBody: withOptionalField(form(transactionFields), 'channel', {
          type: 'string',
          enum: ['sms', 'whatsapp', 'voice'],
          description: "The channel to send by, one the connection's `options.channels` allows for the number (else the page says it is not available); absent: the connection's order.",
        }),
        responses: transactionResponses({ '303': seeOther('To the code page.'), '302': toRedirectUri }),
      }),
    },
    '/authorize/cancel': {
      post: op('authorizeCancel', 'Cancel: redirect with `error=access_denied`', {
        requestBody: form(transactionFields),
        responses: transactionResponses({ '302': toRedirectUri }),
      }),
    },
  };
}

// --- Operations (the service kit's routes) -------------------------------------------------------

function operationsPaths(): Json {
  const status = (values: string[]) => ({
    type: 'object',
    required: ['status'],
    additionalProperties: false,
    properties: { status: { enum: values }, checks: { type: 'object', additionalProperties: { type: 'string' } } },
  });
  const op = (operationId: string, summary: string, responses: Json) => ({ get: { tags: ['Operations'], operationId, summary, responses } });
  return {
    '/healthz': op('healthz', 'Liveness', { '200': { description: 'Alive.', ...json(status(['ok'])) } }),
    '/readyz': op('readyz', 'Readiness (the database check)', {
      '200': { description: 'Ready.', ...json(status(['ready'])) },
      '503': { description: 'Not ready or shutting down.', ...json(status(['not_ready', 'shutting_down'])) },
    }),
    '/metrics': op('metrics', 'Prometheus metrics', {
      '200': { description: 'Prometheus text format.', content: { 'text/plain': { schema: { type: 'string' } } } },
    }),
  };
}

// --- Management API ------------------------------------------------------------------------------

/**
 * The management API's paths, from its declared operations. Start-up check: the router serves
 * exactly the declared operations, each behind its scope (a route added without a declaration,
 * or a declaration the router does not serve, stops the service from starting).
 */
function managementPaths(routes: readonly ManagementRoute[], declared: readonly Operation[], components: SchemaComponents): Json {
  const declaredKeys = new Set(declared.map((operation) => `${operation.method.toUpperCase()} ${operation.path}`));
  for (const route of routes) {
    const key = `${route.method.toUpperCase()} ${route.path}`;
    if (!declaredKeys.has(key)) throw new Error(`The OpenAPI document does not describe the management route ${key}`);
    if (!route.scope) throw new Error(`The management route ${key} names no scope`);
  }
  const served = new Set(routes.map((r) => `${r.method.toUpperCase()} ${r.path}`));
  const stale = [...declaredKeys].filter((key) => !served.has(key));
  if (stale.length) throw new Error(`The OpenAPI document describes management routes that do not exist: ${stale.join(', ')}`);
  return openApiPathsOf(declared, { prefix: '/api/v2', securityScheme: 'managementApi', components, defaultParamDescription: 'Record id.' });
}

// --- The document --------------------------------------------------------------------------------

/** The identity service's OpenAPI 3.1 document (`GET /openapi.json`). */
export function buildIdentityOpenApiDocument(options: IdentityOpenApiOptions): Json {
  const managementAudience = options.managementAudience ?? 'http://localhost:4000/api/v2/';
  const scopes = [...new Set(options.managementRoutes.map((r) => r.scope).filter((s): s is string => s !== undefined))].sort();
  const components = new SchemaComponents();
  const management = managementPaths(options.managementRoutes, options.managementOperations ?? [], components);
  return {
    // No jsonSchemaDialect: OpenAPI 3.1's default dialect is JSON Schema 2020-12 with OpenAPI's
    // vocabulary, what the schemas are; naming plain 2020-12 made Swagger UI warn on every page.
    openapi: '3.1.0',
    info: {
      title: 'smsauth identity',
      version: options.version,
      description:
        'Passwordless SMS login (Auth0-compatible): the management API, the passwordless and token endpoints, userinfo, discovery and the hosted login. Every error body is `{error, error_description, details?}`.',
    },
    tags: [
      { name: 'Management', description: 'The `/api/v2` management API; each route needs one scope.' },
      { name: 'Authentication', description: 'Passwordless start, code exchange, tokens, userinfo.' },
      { name: 'Discovery', description: 'Keys and metadata for relying parties.' },
      { name: 'Hosted login', description: 'The browser login pages (HTML).' },
      { name: 'Operations', description: 'Health, readiness and metrics.' },
    ],
    paths: withInputGuardRefusals(
      {
        ...management,
        ...authenticationPaths(managementAudience),
        ...discoveryPaths(),
        ...hostedLoginPaths(),
        ...passkeyHostedLoginPaths(),
        ...operationsPaths(),
      },
      errorBodySchema([E.INVALID_REQUEST]),
    ),
    components: {
      schemas: {
        ...Object.fromEntries(Object.entries(REQUEST_SCHEMAS).map(([name, schema]) => [name, component(schema, 'input')])),
        ...Object.fromEntries(Object.entries(RESPONSE_SCHEMAS).map(([name, schema]) => [name, component(schema, 'output')])),
        ...components.toJson(),
      },
      securitySchemes: {
        managementApi: {
          type: 'oauth2',
          description: `An RS256 access token for the management API audience (${managementAudience}), from the client_credentials grant.`,
          flows: {
            clientCredentials: {
              tokenUrl: '/oauth/token',
              scopes: Object.fromEntries(scopes.map((scope) => [scope, scope.replace(':', ' ').replace(/_/g, ' ')])),
            },
          },
        },
        clientSecretBasic: { type: 'http', scheme: 'basic', description: 'client_id and client_secret (client_secret_basic).' },
        userAccessToken: { type: 'http', scheme: 'bearer', description: 'An access token issued by this service (opaque or JWT).' },
      },
    },
  };
}
