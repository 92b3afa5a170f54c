import { ErrorCodes } from '@smsauth/contracts';
import { bearerToken, HttpError } from '@smsauth/service-kit';
import type { RequestHandler } from 'express';
import { InvalidTokenError, type TokenVerifier } from '../../domain/tokens/verifier';

export interface ManagementCaller {
  clientId: string;
  scopes: Set<string>;
}

function unauthorized(description: string, tokenPresent: boolean): HttpError {
  // RFC 6750 3.1: no error code when the request carried no token at all.
  const challenge = tokenPresent ? 'Bearer realm="api/v2", error="invalid_token"' : 'Bearer realm="api/v2"';
  return new HttpError(401, ErrorCodes.INVALID_TOKEN, description, { headers: { 'WWW-Authenticate': challenge } });
}

/** Every /api/v2 route: a client_credentials token of this service for the management audience. */
export function authenticateManagementCaller(verifier: TokenVerifier, audience: string): RequestHandler {
  return async (req, res, next) => {
    const token = bearerToken(req.headers.authorization);
    if (!token) throw unauthorized('Missing bearer token', Boolean(req.headers.authorization));
    try {
      const claims = await verifier.verify(token, audience);
      const scopes = new Set(typeof claims.scope === 'string' ? claims.scope.split(' ').filter(Boolean) : []);
      res.locals.managementCaller = { clientId: String(claims.azp ?? claims.sub), scopes } satisfies ManagementCaller;
    } catch (err) {
      if (err instanceof InvalidTokenError) throw unauthorized(`Invalid token: ${err.message}`, true);
      throw err;
    }
    next();
  };
}

/** A requireScope handler, carrying the scope it demands so the router's routes can be listed with their scopes. */
export type ScopeCheck = RequestHandler & { readonly requiredScope: string };

/** The scope a route handler demands, when it is a requireScope check. */
export function requiredScopeOf(handler: unknown): string | undefined {
  const scope = (handler as Partial<ScopeCheck> | null)?.requiredScope;
  return typeof scope === 'string' ? scope : undefined;
}

/** 403 insufficient_scope unless the token carries `scope`. */
export function requireScope(scope: string): ScopeCheck {
  const check: RequestHandler = (_req, res, next) => {
    const caller = res.locals.managementCaller as ManagementCaller | undefined;
    if (!caller?.scopes.has(scope)) {
      throw new HttpError(403, ErrorCodes.INSUFFICIENT_SCOPE, `Insufficient scope, expected: ${scope}`, {
        headers: { 'WWW-Authenticate': `Bearer realm="api/v2", error="insufficient_scope", scope="${scope}"` },
      });
    }
    next();
  };
  return Object.assign(check, { requiredScope: scope });
}
