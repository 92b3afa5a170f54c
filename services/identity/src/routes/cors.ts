import cors from 'cors';
import type { RequestHandler } from 'express';
import { CORS_ALLOWED_HEADERS, CORS_MAX_AGE_SECONDS, isAllowedWebOrigin } from '../domain/oauth/web-origins';
import type { IdentityStore } from '../store';

/** The endpoints a browser application calls from script (navigation endpoints such as /authorize and logout are not among them). */
export const CORS_PATHS = ['/oauth/token', '/oauth/revoke', '/userinfo', '/.well-known/openid-configuration', '/.well-known/jwks.json'];

/**
 * CORS for CORS_PATHS: an allowed web origin gets its origin echoed (`Vary: Origin`), a
 * preflight answered with 204 and the headers and methods the SDKs use; any other origin gets
 * no CORS header, so its browser keeps the answer from the page. No credentials: these
 * endpoints take no cookies.
 */
export function corsForWebOrigins(store: IdentityStore): RequestHandler {
  return cors({
    origin: (origin, callback) => {
      isAllowedWebOrigin(store, origin).then(
        (allowed) => callback(null, allowed),
        (err: unknown) => callback(err as Error),
      );
    },
    methods: ['GET', 'POST'],
    allowedHeaders: CORS_ALLOWED_HEADERS,
    maxAge: CORS_MAX_AGE_SECONDS,
    optionsSuccessStatus: 204,
  });
}
