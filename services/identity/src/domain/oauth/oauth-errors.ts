import { ErrorCodes } from '@smsauth/contracts';
import { HttpError } from '@smsauth/service-kit';
import type { z } from 'zod';
import type { StoredClient } from '../../store';

/* OAuth error answers shared by the token endpoints. */

/** 400 invalid_request naming every missing or malformed parameter. */
export function invalidRequest(issues: readonly z.core.$ZodIssue[]): HttpError {
  const fields = [...new Set(issues.map((i) => String(i.path[0] ?? 'body')))];
  return new HttpError(400, ErrorCodes.INVALID_REQUEST, `Missing or invalid parameter: ${fields.join(', ')}`);
}

export function requireObjectBody(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new HttpError(400, ErrorCodes.INVALID_REQUEST, 'The request body must be a JSON object or a form');
  }
  return body as Record<string, unknown>;
}

/**
 * 400 invalid_grant (RFC 6749 §5.2): a code, refresh token or one-time code that is wrong,
 * used, expired or another client's. Auth0 answers 403 here; clients read `error`, and the
 * OpenID certification suite (oidcc-codereuse, oidcc-refresh-token) requires 400.
 */
export function invalidGrant(description: string): HttpError {
  return new HttpError(400, ErrorCodes.INVALID_GRANT, description);
}

export function unauthorizedClient(description: string): HttpError {
  return new HttpError(403, ErrorCodes.UNAUTHORIZED_CLIENT, description);
}

export function grantNotAllowed(grantType: string): HttpError {
  return unauthorizedClient(`Grant type '${grantType}' not allowed for the client.`);
}

export function requireGrantType(client: StoredClient, grantType: string): void {
  if (!client.grant_types.includes(grantType)) throw grantNotAllowed(grantType);
}
