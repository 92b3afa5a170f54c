import { jwtRejection, methodNotFound, permissionDenied } from '@smsauth/contracts';
import { HttpError } from '@smsauth/service-kit';

/** 401 with the spec 2.8 body; the challenge adds `error="invalid_token"` when a token was sent. */
export function unauthenticated(reason: string, tokenSent: boolean): HttpError {
  return new HttpError(401, 'invalid_token', reason, {
    headers: { 'WWW-Authenticate': tokenSent ? 'Bearer, error="invalid_token"' : 'Bearer' },
    body: jwtRejection(reason),
  });
}

/** 403 code 7: a valid token without every scope the operation lists. */
export function insufficientScope(requiredScopes: readonly string[]): HttpError {
  const message = `Insufficient scope: the operation requires ${requiredScopes.join(' ')}`;
  return new HttpError(403, 'insufficient_scope', message, {
    headers: { 'WWW-Authenticate': `Bearer, error="insufficient_scope", scope="${requiredScopes.join(' ')}"` },
    body: permissionDenied(message),
  });
}

/** 404 code 5 for a path or method the document does not define. */
export function operationNotFound(): HttpError {
  return new HttpError(404, 'not_found', 'Method does not exist.', { body: methodNotFound() });
}
