import { ErrorCodes } from '@smsauth/contracts';
import { bearerToken, HttpError } from '@smsauth/service-kit';
import type { RequestHandler } from 'express';
import { InvalidTokenError, type TokenVerifier } from '../../domain/tokens/verifier';
import type { IdentityStore } from '../../store';

export interface ManagementCaller {
  /** The application the token was issued to (`azp`). */
  clientId: string;
  /** An operator's token (a user login through RBAC): who acts; absent for a client_credentials token. */
  userId?: string;
  scopes: Set<string>;
}

function unauthorized(description: string, tokenPresent: boolean): HttpError {
  // RFC 6750 3.1: no error code when the request carried no token at all.
  const challenge = tokenPresent ? 'Bearer realm="api/v2", error="invalid_token"' : 'Bearer realm="api/v2"';
  return new HttpError(401, ErrorCodes.INVALID_TOKEN, description, { headers: { 'WWW-Authenticate': challenge } });
}

/**
 * Every /api/v2 route: a token of this service for the management audience, either a
 * client_credentials token (`gty: client-credentials`) or an operator's user login, whose scopes
 * its roles gave (RBAC). An operator deleted or blocked since the token was issued is refused at
 * once rather than when the token expires.
 */
export function authenticateManagementCaller(verifier: TokenVerifier, audience: string, store: IdentityStore): RequestHandler {
  return async (req, res, next) => {
    const token = bearerToken(req.headers.authorization);
    if (!token) throw unauthorized('Missing bearer token', Boolean(req.headers.authorization));
    let caller: ManagementCaller;
    try {
      const claims = await verifier.verify(token, audience);
      const scopes = new Set(typeof claims.scope === 'string' ? claims.scope.split(' ').filter(Boolean) : []);
      const userId = claims.gty === 'client-credentials' || typeof claims.sub !== 'string' ? undefined : claims.sub;
      caller = { clientId: String(claims.azp ?? claims.sub), ...(userId ? { userId } : {}), scopes };
    } catch (err) {
      if (err instanceof InvalidTokenError) throw unauthorized(`Invalid token: ${err.message}`, true);
      throw err;
    }
    if (caller.userId !== undefined) {
      const user = await store.users.findById(caller.userId);
      if (!user) throw unauthorized('Invalid token: the user no longer exists', true);
      if (user.blocked) throw unauthorized('Invalid token: the user is blocked', true);
    }
    res.locals.managementCaller = caller;
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
