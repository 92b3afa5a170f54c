import { ErrorCodes as E, ErrorCodes, OAuthTokenRequestSchema, OAuthTokenResponseSchema, PASSWORDLESS_OTP_GRANT } from '@smsauth/contracts';
import { defineOperation, HttpError, mountOperations, type Operation } from '@smsauth/service-kit';
import { Router } from 'express';
import type { TokenGrantRegistry } from '../domain/oauth/token-grants';
import { EXAMPLE_CLIENT, EXAMPLE_CONNECTION, EXAMPLE_PHONE } from './management/examples';
import { COMMON_ERRORS, errorResponse as error } from './management/responses';
import { CLIENT_AUTHENTICATION, CLIENT_SECURITY, JSON_OR_FORM, NO_STORE, NO_STORE_HEADERS } from './oauth-common';

/** The documented flows (docs/identity.md) as request examples. */
const examples = (managementAudience: string) => ({
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
});

export interface OAuthTokenDependencies {
  grants: TokenGrantRegistry;
  /** The management API's audience, named in the client_credentials example. */
  managementAudience: string;
}

/**
 * `POST /oauth/token` (JSON or form): dispatches on grant_type to the registered grant, which
 * validates the body with its contracts schema (the branches of OAuthTokenRequestSchema).
 */
export function oauthTokenOperations(deps: OAuthTokenDependencies): Operation[] {
  return [
    defineOperation({
      method: 'post',
      path: '/oauth/token',
      operationId: 'token',
      tags: ['Authentication'],
      summary: 'Token endpoint: authorization_code (PKCE), passwordless OTP, client_credentials and refresh_token grants',
      description: `${CLIENT_AUTHENTICATION} JSON or form body. authorization_code: the code is single-use (a replay answers invalid_grant and revokes the refresh tokens and opaque access token of its first exchange; a JWT access token lives out its lifetime), lives AUTHORIZATION_CODE_LIFETIME_SECONDS (60 s), and must come with the client, redirect_uri and code_verifier (S256) of its request. Allowed web origins (clients' web_origins/allowed_origins) may call it from a browser (CORS).`,
      security: CLIENT_SECURITY,
      body: { schema: OAuthTokenRequestSchema, component: 'OAuthTokenRequest', mediaTypes: JSON_OR_FORM, examples: examples(deps.managementAudience) },
      validation: 'handler',
      responses: {
        '200': { description: 'Tokens.', headers: NO_STORE_HEADERS, schema: OAuthTokenResponseSchema, component: 'OAuthTokenResponse' },
        '400': error(
          'Malformed request or unknown grant; or (invalid_grant, RFC 6749 §5.2) a bad one-time code, authorization code (unknown, expired, reused, other client, redirect_uri or code_verifier mismatch) or refresh token (unknown, expired, revoked, other client).',
          [E.INVALID_REQUEST, E.UNSUPPORTED_GRANT_TYPE, E.INVALID_GRANT],
        ),
        '401': error('Client authentication failed (with `WWW-Authenticate: Basic` when Basic was used), or the user is blocked (`user is blocked`).', [
          E.INVALID_CLIENT,
          E.UNAUTHORIZED,
        ]),
        '403': error('Grant not allowed for the client, or no client grant for the API.', [E.UNAUTHORIZED_CLIENT, E.ACCESS_DENIED]),
        '429': error('Brute-force block.', [E.TOO_MANY_ATTEMPTS]),
        ...COMMON_ERRORS,
      },
      handle: ({ req, res }) => {
        res.set(NO_STORE);
        const body: unknown = req.body ?? {};
        if (typeof body !== 'object' || body === null || Array.isArray(body)) {
          throw new HttpError(400, ErrorCodes.INVALID_REQUEST, 'The request body must be a JSON object or a form');
        }
        const grantType = (body as Record<string, unknown>).grant_type;
        if (typeof grantType !== 'string' || grantType === '') {
          throw new HttpError(400, ErrorCodes.INVALID_REQUEST, 'Missing required parameter: grant_type');
        }
        const handler = deps.grants.handlerFor(grantType);
        if (!handler) throw new HttpError(400, ErrorCodes.UNSUPPORTED_GRANT_TYPE, `Unsupported grant type: ${grantType}`);
        return handler({ body: body as Record<string, unknown>, headers: req.headers, ip: req.ip ?? '' });
      },
    }),
  ];
}

export function oauthTokenRouter(deps: OAuthTokenDependencies, operations = oauthTokenOperations(deps)): Router {
  return mountOperations(Router(), operations);
}
