import { ErrorCodes } from '@smsauth/contracts';
import { HttpError } from '@smsauth/service-kit';

/*
 * Pure decisions for the passwordless limits. The store keeps the counters and changes
 * them with single atomic statements (increment ... RETURNING); these functions decide
 * what the returned values mean, so every replica decides the same way.
 */

// ---------------------------------------------------------------------------------------
// Start rate limits (per IP and per phone number, fixed one-hour windows)
// ---------------------------------------------------------------------------------------

export const RATE_LIMIT_WINDOW_SECONDS = 3600;

/**
 * The fixed window `now` falls in: counters are keyed by `windowStart` and reset at
 * `resetAt`. Fixed windows let a caller spend up to twice the limit around a boundary;
 * the trade for one counter row per key and window.
 */
export function rateLimitWindow(now: Date, windowSeconds = RATE_LIMIT_WINDOW_SECONDS): { windowStart: Date; resetAt: Date } {
  const windowMs = windowSeconds * 1000;
  const start = Math.floor(now.getTime() / windowMs) * windowMs;
  return { windowStart: new Date(start), resetAt: new Date(start + windowMs) };
}

export interface RateLimitCounter {
  /** For logs: `ip` or `phone`. */
  scope: string;
  limit: number;
  /** The counter after counting this request. */
  count: number;
  resetAt: Date;
}

export interface RateLimitHeaders {
  'X-RateLimit-Limit': string;
  'X-RateLimit-Remaining': string;
  /** UTC epoch seconds when the window resets (GitHub and Auth0 convention). */
  'X-RateLimit-Reset': string;
  /** Only on a refusal: whole seconds until the reset (RFC 9110 §10.2.3). */
  'Retry-After'?: string;
}

export interface RateLimitDecision {
  allowed: boolean;
  /** Set on a refusal: the counter that refused. */
  exceeded?: RateLimitCounter;
  /** Set on every answer, success or 429. */
  headers: RateLimitHeaders;
}

/**
 * A request is allowed when every counter is within its limit (count <= limit). The
 * headers describe the counter that binds: on a refusal the exceeded one (the latest reset
 * when several are), otherwise the one with the fewest requests left.
 */
export function decideRateLimit(counters: readonly RateLimitCounter[], now: Date): RateLimitDecision {
  if (counters.length === 0) throw new RangeError('decideRateLimit needs at least one counter');
  const remaining = (c: RateLimitCounter) => Math.max(0, c.limit - c.count);
  const exceeded = counters.filter((c) => c.count > c.limit);
  const binding = exceeded.length
    ? exceeded.reduce((a, b) => (b.resetAt > a.resetAt ? b : a))
    : counters.reduce((a, b) => (remaining(b) < remaining(a) ? b : a));
  const headers: RateLimitHeaders = {
    'X-RateLimit-Limit': String(binding.limit),
    'X-RateLimit-Remaining': String(remaining(binding)),
    'X-RateLimit-Reset': String(Math.ceil(binding.resetAt.getTime() / 1000)),
  };
  if (exceeded.length === 0) return { allowed: true, headers };
  const retryAfter = Math.max(1, Math.ceil((binding.resetAt.getTime() - now.getTime()) / 1000));
  return { allowed: false, exceeded: binding, headers: { ...headers, 'Retry-After': String(retryAfter) } };
}

/** The 429 for a refused start, carrying the rate-limit headers. */
export function rateLimitedError(decision: RateLimitDecision): HttpError {
  return new HttpError(429, ErrorCodes.TOO_MANY_REQUESTS, 'Too many requests. Please try again later.', {
    headers: { ...decision.headers },
  });
}

// ---------------------------------------------------------------------------------------
// Brute-force protection on code exchanges
// ---------------------------------------------------------------------------------------

/** NIST SP 800-63B §5.2.2: at most 100 consecutive failed attempts on one account. */
export const CONSECUTIVE_FAILURES_LOCK = 100;

export interface BruteForceSettings {
  /** BRUTE_FORCE_THRESHOLD: failures for one phone number from one IP before that IP is blocked. */
  threshold: number;
  /** BRUTE_FORCE_BLOCK_SECONDS. */
  blockSeconds: number;
}

/** Counters the store keeps for (phone, ip) and (phone), across connections (store/repos/login-failures). */
export interface BruteForceState {
  /** Failures for this phone number from this IP since the last success or unblock. */
  ipFailures: number;
  /** When the latest of those failures happened; null when there is none. */
  ipLastFailureAt: Date | null;
  /** Consecutive failures for this phone number from any IP since the last success or unblock. */
  phoneConsecutiveFailures: number;
}

export type LoginBlock =
  | { blocked: false }
  | { blocked: true; reason: 'ip_blocked'; until: Date }
  | { blocked: true; reason: 'phone_locked'; until: null };

/**
 * Checked before the code is looked at, so a blocked caller gets 429 even with the right code.
 * - IP block (only with `options.brute_force_protection`): `threshold` failures for the
 *   number from this IP; lasts `blockSeconds` from the failure that reached the threshold
 *   (failures are refused unchecked while blocked, so that is the latest one).
 * - Number lock: 100 consecutive failures from any IPs. Applied even when the connection
 *   turns brute-force protection off: NIST makes it a floor, not an option. Lifted only by
 *   a success (impossible while locked) or an admin unblock, i.e. by resetting the counter.
 */
export function loginBlockStatus(
  state: BruteForceState,
  now: Date,
  settings: BruteForceSettings,
  bruteForceProtection: boolean,
): LoginBlock {
  if (state.phoneConsecutiveFailures >= CONSECUTIVE_FAILURES_LOCK) {
    return { blocked: true, reason: 'phone_locked', until: null };
  }
  if (bruteForceProtection && state.ipFailures >= settings.threshold && state.ipLastFailureAt) {
    const until = new Date(state.ipLastFailureAt.getTime() + settings.blockSeconds * 1000);
    if (now < until) return { blocked: true, reason: 'ip_blocked', until };
  }
  return { blocked: false };
}

/**
 * The per-IP failure count after one more failure. Failures older than `blockSeconds`
 * (including those that caused an expired block) no longer count, so an expired block is
 * not re-imposed by the next single typo. The store mirrors this in its atomic UPDATE:
 * `failures = CASE WHEN last_failure_at <= now - block THEN 1 ELSE failures + 1 END`.
 */
export function ipFailuresAfterFailure(state: Pick<BruteForceState, 'ipFailures' | 'ipLastFailureAt'>, now: Date, settings: BruteForceSettings): number {
  const stale =
    state.ipLastFailureAt === null || now.getTime() - state.ipLastFailureAt.getTime() >= settings.blockSeconds * 1000;
  return stale ? 1 : state.ipFailures + 1;
}

/** The 429 for a blocked caller. The text does not say whether the IP or the number is blocked. */
export function tooManyAttemptsError(): HttpError {
  return new HttpError(
    429,
    ErrorCodes.TOO_MANY_ATTEMPTS,
    'Your account has been blocked after multiple consecutive login attempts.',
  );
}

// ---------------------------------------------------------------------------------------
// One-time code usability
// ---------------------------------------------------------------------------------------

/** Wrong attempts a code survives; the third wrong one kills it. */
export const MAX_CODE_ATTEMPTS = 3;

/** A code is valid for `time_step` seconds: [issued_at, issued_at + time_step). */
export function codeExpiresAt(issuedAt: Date, timeStepSeconds: number): Date {
  return new Date(issuedAt.getTime() + timeStepSeconds * 1000);
}

export interface StoredCodeState {
  expiresAt: Date;
  /** Wrong attempts so far. */
  attempts: number;
  used: boolean;
}

export type CodeState = 'usable' | 'used' | 'expired' | 'exhausted';

/**
 * Whether a stored code may still be checked. The store enforces the same conditions in
 * the WHERE clause of its atomic consume/increment statements
 * (`NOT used AND attempts < 3 AND expires_at > now`), so parallel requests cannot exceed
 * them; this function is for choosing the error to report.
 */
export function codeState(code: StoredCodeState, now: Date): CodeState {
  if (code.used) return 'used';
  if (code.attempts >= MAX_CODE_ATTEMPTS) return 'exhausted';
  if (now >= code.expiresAt) return 'expired';
  return 'usable';
}

/**
 * `error_description`s of `/oauth/token` (passwordless OTP grant, `invalid_grant`), worded
 * as the reference product does. `/oauth/ro` answers every case with the wrong-code text.
 */
export const OTP_GRANT_DESCRIPTIONS = {
  wrong: 'Wrong phone number or verification code.',
  expired: 'The verification code has expired. Please try to login again.',
  exhausted: "You've reached the maximum number of attempts. Please try to login again.",
} as const;

/** The OTP grant's description for a rejected code ('used' reads as wrong: no replay oracle). */
export function otpGrantRejectionDescription(state: Exclude<CodeState, 'usable'> | 'wrong' | 'unknown'): string {
  if (state === 'expired') return OTP_GRANT_DESCRIPTIONS.expired;
  if (state === 'exhausted') return OTP_GRANT_DESCRIPTIONS.exhausted;
  return OTP_GRANT_DESCRIPTIONS.wrong;
}
