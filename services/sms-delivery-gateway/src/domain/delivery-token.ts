import { createHmac, timingSafeEqual, type KeyObject } from 'node:crypto';
import { decodeJsonObjectSegment, isCanonicalBase64url, isNumericDate, type SegmentProblem } from '@smsauth/jose-rules';
import { bearerToken, epochSeconds, type Clock } from '@smsauth/service-kit';
import { DeliveryAuthError } from './errors';
import { isDeliveryTokenType } from './token-structure';

/** A delivery token's claims, after the structure check made every time claim a NumericDate. */
export interface DeliveryClaims {
  [claim: string]: unknown;
  iat?: number;
  nbf?: number;
  exp?: number;
  aud?: unknown;
  sub?: unknown;
}

/** `exp` (and `nbf`) tolerance for clock differences between identity and gateway. */
export const CLOCK_TOLERANCE_SECONDS = 60;
/** A delivery token is minted per delivery; one older than this is a replay. */
export const MAX_TOKEN_AGE_SECONDS = 10 * 60;
/** A delivery token is about 250 characters; far longer ones are refused before any parsing. */
export const MAX_DELIVERY_TOKEN_LENGTH = 8 * 1024;

export interface DeliveryTokenPolicy {
  /** The HMAC key (GATEWAY_AUTH_SECRET, decoded) as a secret KeyObject, never mistaken for a PEM key. */
  key: KeyObject;
  audience?: string;
  subject?: string;
  clock: Clock;
}

/**
 * Checks a delivery request's Authorization header: HS256 only (no `none`, no RS/HS
 * confusion, no other HMAC size), signature with the shared key, `aud`/`sub` when
 * configured, `exp` with 60 s leeway when present, and `iat` required and at most
 * 10 minutes old; first the structural rules of checkTokenStructure (typ, crit, duplicate
 * names, canonical base64url, NumericDates). Throws DeliveryAuthError; returns the claims.
 */
export function verifyDeliveryAuthorization(header: string | undefined, policy: DeliveryTokenPolicy): DeliveryClaims {
  if (header === undefined || header.trim() === '') {
    throw new DeliveryAuthError('missing', 'Authorization: Bearer <token> is required', false);
  }
  // RFC 6750 token68 (the kit's grammar); what it refuses is told apart below for the message.
  const token = bearerToken(header);
  if (token === undefined && /^Bearer[ \t]+\S/i.test(header)) {
    // "Bearer abc def" or "Bearer a!b": a token was sent, with whitespace or a non-token68 character in it.
    throw new DeliveryAuthError('malformed', 'The token is malformed', true);
  }
  if (token === undefined) {
    const description = /^Bearer\s*$/i.test(header.trim())
      ? 'The bearer token is empty'
      : 'The Authorization header must use the Bearer scheme';
    throw new DeliveryAuthError('missing', description, false);
  }

  const { signingInput, signature, payload } = checkTokenStructure(token);
  if (!signatureMatches(signingInput, signature, policy.key)) {
    throw new DeliveryAuthError('signature', 'The token signature is invalid', true);
  }
  const nowSeconds = epochSeconds(policy.clock);
  checkClaims(payload, policy, nowSeconds);
  checkTokenAge(payload, nowSeconds);
  return payload;
}

/**
 * HS256 over the token's first two segments, compared in constant time. The structure check
 * has already decoded and judged every segment, so this is all that is left of a JWS
 * verification; jsonwebtoken would decode and parse the token a second time, which cost more
 * than the HMAC itself on every delivery.
 */
function signatureMatches(signingInput: string, signature: Buffer, key: KeyObject): boolean {
  const expected = createHmac('sha256', key).update(signingInput).digest();
  return expected.length === signature.length && timingSafeEqual(expected, signature);
}

/**
 * The registered claims, in jsonwebtoken's order (nbf, exp, aud, sub) so that a token with
 * several problems reports the same first one: nbf and exp with CLOCK_TOLERANCE_SECONDS
 * (exp is optional here: iat bounds the age), `aud` equal to or containing the configured
 * audience, `sub` equal to the configured subject.
 */
function checkClaims(claims: DeliveryClaims, policy: DeliveryTokenPolicy, nowSeconds: number): void {
  if (claims.nbf !== undefined && claims.nbf > nowSeconds + CLOCK_TOLERANCE_SECONDS) {
    throw new DeliveryAuthError('not_before', 'The token is not valid yet (nbf)', true);
  }
  if (claims.exp !== undefined && nowSeconds >= claims.exp + CLOCK_TOLERANCE_SECONDS) {
    throw new DeliveryAuthError('expired', 'The token has expired (exp)', true);
  }
  if (policy.audience !== undefined) {
    const audiences: unknown[] = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (!audiences.includes(policy.audience)) throw new DeliveryAuthError('audience', 'The token audience (aud) is not allowed', true);
  }
  if (policy.subject !== undefined && claims.sub !== policy.subject) {
    throw new DeliveryAuthError('subject', 'The token subject (sub) is not allowed', true);
  }
}

const SEGMENT_PROBLEMS: Record<SegmentProblem, string> = {
  encoding: 'The token is malformed',
  json: 'The token is malformed',
  duplicate: 'The token repeats a JSON member name',
};

/**
 * What jsonwebtoken does not check, on the unauthenticated bytes: canonical base64url
 * segments, JSON objects without duplicate names, `alg` HS256, `typ` JWT or none, no `crit`
 * (RFC 7515 §4.1.11: we implement no extension, so any is one we do not understand), a
 * string `kid` if any (it selects nothing: there is one key), time claims as NumericDates.
 */
function checkTokenStructure(token: string): { signingInput: string; signature: Buffer; payload: DeliveryClaims } {
  const malformed = (description: string) => new DeliveryAuthError('malformed', description, true);
  if (token.length > MAX_DELIVERY_TOKEN_LENGTH) throw malformed(`The token is longer than ${MAX_DELIVERY_TOKEN_LENGTH} characters`);
  const segments = token.split('.');
  if (segments.length !== 3 || !isCanonicalBase64url(segments[2] ?? '')) throw malformed('The token is malformed');
  const header = decodeJsonObjectSegment(segments[0] ?? '');
  if (!header.ok) throw malformed(SEGMENT_PROBLEMS[header.problem]);
  const payload = decodeJsonObjectSegment(segments[1] ?? '');
  if (!payload.ok) throw malformed(SEGMENT_PROBLEMS[payload.problem]);
  if (header.value.alg !== 'HS256') throw new DeliveryAuthError('algorithm', 'The token must be signed with HS256', true);
  if (segments[2] === '') throw new DeliveryAuthError('signature', 'The token signature is missing', true);
  if (!isDeliveryTokenType(header.value.typ)) throw new DeliveryAuthError('typ', 'The token type (typ) must be JWT', true);
  if (Object.hasOwn(header.value, 'crit')) {
    throw new DeliveryAuthError('crit', 'The token header lists critical extensions (crit) this gateway does not support', true);
  }
  if (header.value.kid !== undefined && typeof header.value.kid !== 'string') throw malformed('The token header kid must be a string');
  for (const claim of ['exp', 'nbf', 'iat']) {
    const value = payload.value[claim];
    if (value !== undefined && !isNumericDate(value)) throw malformed(`The token claim ${claim} is not a valid NumericDate`);
  }
  const [headerSegment, payloadSegment, signatureSegment] = segments as [string, string, string];
  return {
    signingInput: `${headerSegment}.${payloadSegment}`,
    signature: Buffer.from(signatureSegment, 'base64url'),
    payload: payload.value as DeliveryClaims,
  };
}

function checkTokenAge(claims: DeliveryClaims, nowSeconds: number): void {
  // Without iat (and with exp optional) a leaked token would be valid forever.
  if (typeof claims.iat !== 'number') throw new DeliveryAuthError('iat', 'The token has no iat claim', true);
  if (claims.iat > nowSeconds + CLOCK_TOLERANCE_SECONDS) {
    throw new DeliveryAuthError('iat', 'The token was issued in the future (iat)', true);
  }
  if (nowSeconds - claims.iat > MAX_TOKEN_AGE_SECONDS) {
    throw new DeliveryAuthError('too_old', `The token is older than ${MAX_TOKEN_AGE_SECONDS / 60} minutes (iat)`, true);
  }
}
