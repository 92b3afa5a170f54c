import { ErrorCodes } from '@smsauth/contracts';
import { HttpError } from '@smsauth/service-kit';

/*
 * Start rate limits: per IP and per phone number, fixed one-hour windows. The store keeps
 * the counters and changes them with single atomic statements (increment ... RETURNING);
 * these functions decide what the returned values mean, so every replica decides the same way.
 */

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

