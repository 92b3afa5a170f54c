import type { KeyObject } from 'node:crypto';
import { HttpError } from '@smsauth/service-kit';
import jwt from 'jsonwebtoken';

/** `exp` (and `nbf`) tolerance for clock differences between identity and gateway. */
export const CLOCK_TOLERANCE_SECONDS = 60;
/** A delivery token is minted per delivery; one older than this is a replay. */
export const MAX_TOKEN_AGE_SECONDS = 10 * 60;

export interface DeliveryTokenPolicy {
  /** The HMAC key (GATEWAY_AUTH_SECRET, decoded) as a secret KeyObject, never mistaken for a PEM key. */
  key: KeyObject;
  audience?: string;
  subject?: string;
  /** Milliseconds since the epoch. */
  clock: () => number;
}

/** Why a delivery was refused; `tokenPresented` picks the WWW-Authenticate form (RFC 6750 §3). */
export class DeliveryAuthError extends HttpError {
  constructor(
    public readonly reason: string,
    description: string,
    tokenPresented: boolean,
  ) {
    super(401, 'invalid_token', description, {
      headers: { 'WWW-Authenticate': tokenPresented ? 'Bearer error="invalid_token"' : 'Bearer' },
    });
    this.name = 'DeliveryAuthError';
  }
}

/** The token of an `Authorization: Bearer <token>` header; undefined when there is none. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return match?.[1];
}

/**
 * Checks a delivery request's Authorization header: HS256 only (no `none`, no RS/HS
 * confusion, no other HMAC size), signature with the shared key, `aud`/`sub` when
 * configured, `exp` with 60 s leeway when present, and `iat` required and at most
 * 10 minutes old. Throws DeliveryAuthError; returns the verified claims.
 */
export function verifyDeliveryAuthorization(header: string | undefined, policy: DeliveryTokenPolicy): jwt.JwtPayload {
  if (header === undefined || header.trim() === '') {
    throw new DeliveryAuthError('missing', 'Authorization: Bearer <token> is required', false);
  }
  const token = bearerToken(header);
  if (token === undefined) {
    const description = /^Bearer\s*$/i.test(header.trim())
      ? 'The bearer token is empty'
      : 'The Authorization header must use the Bearer scheme';
    throw new DeliveryAuthError('missing', description, false);
  }

  const nowSeconds = Math.floor(policy.clock() / 1000);
  let claims: jwt.JwtPayload;
  try {
    const verified = jwt.verify(token, policy.key, {
      algorithms: ['HS256'],
      clockTimestamp: nowSeconds,
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      ...(policy.audience !== undefined ? { audience: policy.audience } : {}),
      ...(policy.subject !== undefined ? { subject: policy.subject } : {}),
    });
    if (typeof verified === 'string') throw new DeliveryAuthError('malformed', 'The token payload is not a JSON object', true);
    claims = verified;
  } catch (err) {
    throw toDeliveryAuthError(err);
  }

  checkTokenAge(claims, nowSeconds);
  return claims;
}

function checkTokenAge(claims: jwt.JwtPayload, nowSeconds: number): void {
  // Without iat (and with exp optional) a leaked token would be valid forever.
  if (typeof claims.iat !== 'number') throw new DeliveryAuthError('iat', 'The token has no iat claim', true);
  if (claims.iat > nowSeconds + CLOCK_TOLERANCE_SECONDS) {
    throw new DeliveryAuthError('iat', 'The token was issued in the future (iat)', true);
  }
  if (nowSeconds - claims.iat > MAX_TOKEN_AGE_SECONDS) {
    throw new DeliveryAuthError('too_old', `The token is older than ${MAX_TOKEN_AGE_SECONDS / 60} minutes (iat)`, true);
  }
}

/** jsonwebtoken's errors -> a stable reason and a description that holds no token material. */
function toDeliveryAuthError(err: unknown): DeliveryAuthError {
  if (err instanceof DeliveryAuthError) return err;
  if (err instanceof jwt.TokenExpiredError) return new DeliveryAuthError('expired', 'The token has expired (exp)', true);
  if (err instanceof jwt.NotBeforeError) return new DeliveryAuthError('not_before', 'The token is not valid yet (nbf)', true);
  const message = err instanceof Error ? err.message : '';
  if (message === 'invalid algorithm' || message.startsWith('jwt signature is required')) {
    return new DeliveryAuthError('algorithm', 'The token must be signed with HS256', true);
  }
  if (message === 'invalid signature') return new DeliveryAuthError('signature', 'The token signature is invalid', true);
  if (message.startsWith('jwt audience invalid')) return new DeliveryAuthError('audience', 'The token audience (aud) is not allowed', true);
  if (message.startsWith('jwt subject invalid')) return new DeliveryAuthError('subject', 'The token subject (sub) is not allowed', true);
  return new DeliveryAuthError('malformed', 'The token is malformed', true);
}
