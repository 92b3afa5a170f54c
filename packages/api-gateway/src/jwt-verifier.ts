import { JwtRejectionReasons } from '@smsauth/contracts';
import { decodeJsonObjectSegment, hasCriticalExtensions, isCanonicalBase64url, isNumericDate } from '@smsauth/jose-rules';
import { epochMillis, type Clock } from '@smsauth/service-kit';
import type { Algorithm } from 'jsonwebtoken';
import { isAcceptableAlgorithm } from './algorithms';
import type { JwtScheme } from './document';
import type { AuthOutcome, GatewayMetrics } from './gateway-metrics';
import type { JwksKeyStore, VerificationKey } from './jwks-key-store';
import { isAccessTokenType } from './jose-structure';
import { verifyJwsSignature } from './jws-signature';
import { VerifiedTokenCache, type VerifiedToken } from './token-cache';
import type { JwtClaims } from './types';

export type Verification =
  | VerifiedToken
  | { ok: false; reason: string; outcome: AuthOutcome };

/** Longer tokens are refused unparsed (Node's default header limit is 16 KB anyway). */
export const MAX_TOKEN_LENGTH = 16 * 1024;
const TIME_CLAIMS = ['exp', 'nbf', 'iat'] as const;

function reject(reason: string, outcome: AuthOutcome): Verification {
  return { ok: false, reason, outcome };
}

function audiencesOf(aud: unknown): string[] | undefined {
  if (typeof aud === 'string') return [aud];
  if (Array.isArray(aud) && aud.every((item) => typeof item === 'string')) return aud as string[];
  return undefined;
}

/** Attacker-chosen text echoed in a rejection: printable ASCII only, bounded. */
function printable(text: string): string {
  const cleaned = text.replace(/[^\x20-\x7e]/g, '?');
  return cleaned.length > 128 ? `${cleaned.slice(0, 128)}...` : cleaned;
}

interface DecodedToken {
  alg: Algorithm;
  kid: string | undefined;
  payload: Record<string, unknown>;
  payloadSegment: string;
  /** `header.payload`, the bytes the signature covers. */
  signingInput: string;
  signatureSegment: string;
}

interface AcceptedHeader {
  alg: Algorithm;
  kid: string | undefined;
}

/** An issuer signs every token with one of a few identical headers: each is decoded once. */
const ACCEPTED_HEADERS_LIMIT = 64;
const acceptedHeaders = new Map<string, AcceptedHeader>();

/**
 * The header's structure rules: a canonical JSON object without duplicate member names, an
 * asymmetric `alg`, a string `kid`, an access-token `typ`, no `crit`. They depend on the
 * segment's text alone, so an accepted segment is remembered (bounded: cleared when full, so
 * made-up headers cost a decode each and never grow memory); a refused one is not.
 */
function acceptHeader(headerSegment: string): AcceptedHeader | undefined {
  const known = acceptedHeaders.get(headerSegment);
  if (known) return known;
  const decoded = decodeJsonObjectSegment(headerSegment);
  if (!decoded.ok) return undefined;
  const header = decoded.value;
  // `none` and HMAC are refused here, before any key is looked up (RFC 8725 §3.1, §3.2).
  // `jku`, `x5u`, `jwk` and `x5c` are never read: keys come only from the configured JWKS.
  if (!isAcceptableAlgorithm(header.alg)) return undefined;
  if (header.kid !== undefined && typeof header.kid !== 'string') return undefined;
  if (!isAccessTokenType(header.typ) || hasCriticalExtensions(header)) return undefined;
  const accepted: AcceptedHeader = { alg: header.alg, kid: header.kid };
  if (acceptedHeaders.size >= ACCEPTED_HEADERS_LIMIT) acceptedHeaders.clear();
  acceptedHeaders.set(headerSegment, accepted);
  return accepted;
}

/**
 * Structure only: three canonical base64url segments, header and claims JSON objects without
 * duplicate member names, an asymmetric `alg`, a string `kid`, an access-token `typ`, no
 * `crit`, and every time claim present a NumericDate a Date can hold.
 */
function decodeToken(token: string): DecodedToken | undefined {
  if (token.length > MAX_TOKEN_LENGTH) return undefined;
  const segments = token.split('.');
  if (segments.length !== 3) return undefined;
  const [headerSegment, payloadSegment, signatureSegment] = segments as [string, string, string];
  if (!isCanonicalBase64url(signatureSegment)) return undefined;
  const header = acceptHeader(headerSegment);
  if (!header) return undefined;
  const decodedPayload = decodeJsonObjectSegment(payloadSegment);
  if (!decodedPayload.ok) return undefined;
  const payload = decodedPayload.value;
  if (TIME_CLAIMS.some((claim) => payload[claim] !== undefined && !isNumericDate(payload[claim]))) return undefined;
  const signingInput = token.slice(0, headerSegment.length + 1 + payloadSegment.length);
  return { alg: header.alg, kid: header.kid, payload, payloadSegment, signingInput, signatureSegment };
}

export interface JwtVerifierOptions {
  keyStores: ReadonlyMap<string, JwksKeyStore>;
  cache: VerifiedTokenCache;
  clock: Clock;
  metrics: GatewayMetrics;
  /** Leeway for `exp` and `nbf`, in seconds. */
  clockToleranceSec: number;
}

/** Checks a token against one JWT scheme; the answer names the precise, non-secret reason. */
export class JwtVerifier {
  // Bound once: a lookup counts without building a label object.
  private readonly cacheHits: { inc(value?: number): void };
  private readonly cacheMisses: { inc(value?: number): void };

  constructor(private readonly options: JwtVerifierOptions) {
    this.cacheHits = options.metrics.tokenCache.labels('hit');
    this.cacheMisses = options.metrics.tokenCache.labels('miss');
  }

  /**
   * A plain value for a cache hit and for a token refused before its signature (malformed, wrong
   * issuer, no `exp`); a promise while its signature is checked on the thread pool or its keys are
   * fetched: a repeated token, the hot path, adds no promise layer.
   */
  verify(token: string, scheme: JwtScheme): Verification | Promise<Verification> {
    const cacheKey = VerifiedTokenCache.keyOf(scheme.name, token);
    const cached = this.options.cache.get(cacheKey);
    if (cached) {
      this.cacheHits.inc();
      return cached;
    }
    this.cacheMisses.inc();

    const result = this.verifyUncached(token, scheme);
    return result instanceof Promise ? result.then((settled) => this.remember(cacheKey, settled)) : this.remember(cacheKey, result);
  }

  private remember(cacheKey: string, result: Verification): Verification {
    // The success object is the cache entry: a hit returns it as is, no copy.
    if (result.ok) this.options.cache.set(cacheKey, result);
    return result;
  }

  private verifyUncached(token: string, scheme: JwtScheme): Verification | Promise<Verification> {
    const decoded = decodeToken(token);
    if (!decoded) return reject(JwtRejectionReasons.BAD_FORMAT, 'bad_format');
    const { payload } = decoded;
    // The issuer is compared exactly: `https://id.example.com` is not `https://id.example.com/`.
    if (payload.iss !== scheme.issuer) return reject(JwtRejectionReasons.ISSUER_NOT_ALLOWED, 'issuer_not_allowed');
    if (!isNumericDate(payload.exp)) return reject(JwtRejectionReasons.TIME_CONSTRAINT_FAILURE, 'time_constraint_failure');

    const store = this.options.keyStores.get(scheme.jwksUri);
    if (!store) return reject(JwtRejectionReasons.UNABLE_TO_FETCH_KEY, 'key_unavailable');
    const keys = store.cachedKeys(decoded.kid);
    if (keys) return this.verifyWithKeys(decoded, scheme, keys);
    return store.lookup(decoded.kid).then((lookup) => {
      if (lookup.found) return this.verifyWithKeys(decoded, scheme, lookup.keys);
      return lookup.cause === 'unavailable' || decoded.kid === undefined
        ? reject(JwtRejectionReasons.UNABLE_TO_FETCH_KEY, 'key_unavailable')
        : reject(JwtRejectionReasons.keyNotFound(printable(decoded.kid)), 'key_not_found');
    });
  }

  private async verifyWithKeys(decoded: DecodedToken, scheme: JwtScheme, keys: readonly VerificationKey[]): Promise<Verification> {
    const signed = await this.checkSignatureAndTime(decoded, keys);
    if (signed) return signed;

    const { payload } = decoded;
    const audiences = audiencesOf(payload.aud);
    if (!audiences || !audiences.some((audience) => scheme.audiences.includes(audience))) {
      return reject(JwtRejectionReasons.AUDIENCE_NOT_ALLOWED, 'audience_not_allowed');
    }
    return {
      ok: true,
      claims: payload as JwtClaims,
      payloadSegment: decoded.payloadSegment,
      validUntilMs: ((payload.exp as number) + this.options.clockToleranceSec) * 1000,
    };
  }

  /**
   * Undefined when a configured key verifies the signature and exp/nbf hold; else the rejection.
   * What jsonwebtoken's `verify` did here, on the token this verifier already decoded (so the
   * segments are not split, decoded and parsed a second time): only a key whose type allows the
   * header's `alg` is tried (`algorithms`, derived from the key), the signature is checked
   * before any time, and the times are jsonwebtoken's: expired when `now >= exp + leeway`, not
   * yet valid when `nbf > now + leeway`, `now` in whole seconds. The signature is checked on
   * libuv's thread pool.
   */
  private async checkSignatureAndTime(decoded: DecodedToken, keys: readonly VerificationKey[]): Promise<Verification | undefined> {
    const { metrics } = this.options;
    const signature = Buffer.from(decoded.signatureSegment, 'base64url');
    for (const candidate of keys) {
      if (!candidate.algorithms.includes(decoded.alg)) continue;
      metrics.signatureVerifications.inc();
      if (await verifyJwsSignature(decoded.alg, candidate.key, decoded.signingInput, signature)) return this.checkTimes(decoded.payload);
    }
    return reject(JwtRejectionReasons.SIGNATURE_FAILED, 'signature_failed');
  }

  /** exp and nbf as jsonwebtoken judges them (decodeToken has made sure each is a NumericDate), and `iat`, which it ignores. */
  private checkTimes(payload: Record<string, unknown>): Verification | undefined {
    const { clock, clockToleranceSec } = this.options;
    const nowMs = epochMillis(clock);
    const nowSec = Math.floor(nowMs / 1000);
    const { exp, nbf, iat } = payload as { exp: number; nbf?: number; iat?: number };
    if (nbf !== undefined && nbf > nowSec + clockToleranceSec) return reject(JwtRejectionReasons.TIME_CONSTRAINT_FAILURE, 'time_constraint_failure');
    if (nowSec >= exp + clockToleranceSec) return reject(JwtRejectionReasons.TIME_CONSTRAINT_FAILURE, 'time_constraint_failure');
    // An `iat` further ahead than the leeway was not issued by a sane clock.
    if (iat !== undefined && iat > nowMs / 1000 + clockToleranceSec) return reject(JwtRejectionReasons.TIME_CONSTRAINT_FAILURE, 'time_constraint_failure');
    return undefined;
  }
}
