import cors from 'cors';
import type { RequestHandler } from 'express';
import { CORS_ALLOWED_HEADERS, CORS_MAX_AGE_SECONDS, isAllowedWebOrigin } from '../domain/oauth/web-origins';
import type { IdentityStore } from '../store';

/** The endpoints a browser application calls from script (navigation endpoints such as /authorize and logout are not among them). */
export const CORS_PATHS = ['/oauth/token', '/oauth/revoke', '/userinfo', '/.well-known/openid-configuration', '/.well-known/jwks.json', '/passwordless/start'];

/**
 * Cross-origin authentication (embedded login): auth0-js posts with credentials, so the answer
 * may set the login ticket's verifier cookie. The origin must also be the client's own and the
 * client must have cross_origin_authentication on: the handler checks both (the preflight has no body).
 */
export const CORS_CREDENTIALED_PATHS = ['/co/authenticate'];

/**
 * The management API (`/api/v2`) from script, for the operator console hosted on another
 * origin (its tokens come from an operator's login, so the bearer token, not the origin, is what
 * authorises a call); the same registered web origins, every method the API has.
 */
export const MANAGEMENT_CORS_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * CORS for CORS_PATHS (and, with MANAGEMENT_CORS_METHODS, /api/v2): an allowed web origin gets its origin echoed (`Vary: Origin`), a
 * preflight answered with 204 and the headers and methods the SDKs use; any other origin gets
 * no CORS header, so its browser keeps the answer from the page. No credentials (these
 * endpoints take no cookies) except on CORS_CREDENTIALED_PATHS.
 */
export function corsForWebOrigins(store: IdentityStore, methods: readonly string[] = ['GET', 'POST'], options: { credentials?: boolean } = {}): RequestHandler {
  return cors({
    origin: (origin, callback) => {
      isAllowedWebOrigin(store, origin).then(
        (allowed) => callback(null, allowed),
        (err: unknown) => callback(err as Error),
      );
    },
    methods: [...methods],
    allowedHeaders: CORS_ALLOWED_HEADERS,
    maxAge: CORS_MAX_AGE_SECONDS,
    optionsSuccessStatus: 204,
    credentials: options.credentials ?? false,
  });
}
