import {
  CONSECUTIVE_FAILURES_LOCK,
  ipFailuresAfterFailure,
  loginBlockStatus,
  tooManyAttemptsError,
} from '../../src/domain/passwordless/brute-force';
import { codeExpiresAt, codeState, MAX_CODE_ATTEMPTS, otpGrantRejectionDescription } from '../../src/domain/passwordless/code-state';
import { decideRateLimit, rateLimitedError, rateLimitWindow } from '../../src/domain/passwordless/rate-limits';

const now = new Date('2025-03-01T12:34:56.789Z');
const hourStart = new Date('2025-03-01T12:00:00.000Z');
const hourEnd = new Date('2025-03-01T13:00:00.000Z');
const epochSeconds = (date: Date) => String(date.getTime() / 1000);

describe('rateLimitWindow', () => {
  it('puts a moment in its fixed one-hour window', () => {
    expect(rateLimitWindow(now)).toEqual({ windowStart: hourStart, resetAt: hourEnd });
  });

  it('starts a new window exactly on the hour', () => {
    expect(rateLimitWindow(hourEnd).windowStart).toEqual(hourEnd);
    expect(rateLimitWindow(new Date(hourEnd.getTime() - 1)).windowStart).toEqual(hourStart);
  });
});

describe('decideRateLimit', () => {
  const ip = (count: number, limit = 50) => ({ scope: 'ip', limit, count, resetAt: hourEnd });
  const phone = (count: number, limit = 10) => ({ scope: 'phone', limit, count, resetAt: hourEnd });

  it('allows a request within every limit and reports the tightest counter', () => {
    const decision = decideRateLimit([ip(3), phone(8)], now);
    expect(decision.allowed).toBe(true);
    expect(decision.headers).toEqual({
      'X-RateLimit-Limit': '10',
      'X-RateLimit-Remaining': '2',
      'X-RateLimit-Reset': epochSeconds(hourEnd),
    });
  });

  it('reports the IP counter when it has fewer requests left', () => {
    expect(decideRateLimit([ip(49), phone(1)], now).headers).toMatchObject({
      'X-RateLimit-Limit': '50',
      'X-RateLimit-Remaining': '1',
    });
  });

  it('allows the request that reaches the limit exactly, with nothing remaining', () => {
    const decision = decideRateLimit([ip(50)], now);
    expect(decision.allowed).toBe(true);
    expect(decision.headers['X-RateLimit-Remaining']).toBe('0');
    expect(decision.headers['Retry-After']).toBeUndefined();
  });

  it('refuses the request past the limit, naming the exceeded counter and when to retry', () => {
    const decision = decideRateLimit([ip(4), phone(11)], now);
    expect(decision.allowed).toBe(false);
    expect(decision.exceeded?.scope).toBe('phone');
    expect(decision.headers).toEqual({
      'X-RateLimit-Limit': '10',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': epochSeconds(hourEnd),
      'Retry-After': String(Math.ceil((hourEnd.getTime() - now.getTime()) / 1000)),
    });
  });

  it('when several counters are exceeded, reports the one that resets last', () => {
    const later = new Date(hourEnd.getTime() + 3600_000);
    const decision = decideRateLimit([ip(51), { ...phone(12), resetAt: later }], now);
    expect(decision.exceeded?.scope).toBe('phone');
    expect(decision.headers['X-RateLimit-Reset']).toBe(epochSeconds(later));
  });

  it('rounds the reset up to whole epoch seconds', () => {
    const odd = new Date(hourEnd.getTime() + 1);
    expect(decideRateLimit([{ ...ip(1), resetAt: odd }], now).headers['X-RateLimit-Reset']).toBe(
      String(hourEnd.getTime() / 1000 + 1),
    );
  });

  it('needs at least one counter', () => {
    expect(() => decideRateLimit([], now)).toThrow(RangeError);
  });
});

describe('rateLimitedError', () => {
  it('is a 429 too_many_requests carrying the rate-limit headers', () => {
    const err = rateLimitedError(decideRateLimit([{ scope: 'ip', limit: 50, count: 51, resetAt: hourEnd }], now));
    expect(err.status).toBe(429);
    expect(err.toBody()).toEqual({ error: 'too_many_requests', error_description: 'Too many requests. Please try again later.' });
    expect(err.options.headers).toMatchObject({ 'X-RateLimit-Limit': '50', 'X-RateLimit-Remaining': '0' });
    expect(err.options.headers?.['Retry-After']).toBeDefined();
  });
});

describe('brute-force protection', () => {
  const settings = { threshold: 10, blockSeconds: 86_400 };
  const clean = { ipFailures: 0, ipLastFailureAt: null, phoneConsecutiveFailures: 0 };
  const minutesAgo = (minutes: number) => new Date(now.getTime() - minutes * 60_000);

  it('does not block a caller below the threshold', () => {
    const state = { ipFailures: 9, ipLastFailureAt: minutesAgo(1), phoneConsecutiveFailures: 9 };
    expect(loginBlockStatus(state, now, settings, true)).toEqual({ blocked: false });
  });

  it('blocks the IP for the number once the threshold of failures is reached', () => {
    const state = { ipFailures: 10, ipLastFailureAt: minutesAgo(1), phoneConsecutiveFailures: 10 };
    expect(loginBlockStatus(state, now, settings, true)).toEqual({
      blocked: true,
      reason: 'ip_blocked',
      until: new Date(minutesAgo(1).getTime() + 86_400_000),
    });
  });

  it('honours a custom threshold', () => {
    const state = { ipFailures: 3, ipLastFailureAt: minutesAgo(1), phoneConsecutiveFailures: 3 };
    expect(loginBlockStatus(state, now, { ...settings, threshold: 3 }, true).blocked).toBe(true);
    expect(loginBlockStatus(state, now, settings, true).blocked).toBe(false);
  });

  it('lifts the IP block when BRUTE_FORCE_BLOCK_SECONDS have passed', () => {
    const justInside = { ipFailures: 10, ipLastFailureAt: new Date(now.getTime() - 86_400_000 + 1), phoneConsecutiveFailures: 10 };
    const expired = { ...justInside, ipLastFailureAt: new Date(now.getTime() - 86_400_000) };
    expect(loginBlockStatus(justInside, now, settings, true).blocked).toBe(true);
    expect(loginBlockStatus(expired, now, settings, true)).toEqual({ blocked: false });
  });

  it('does not block by IP when the connection turns brute-force protection off', () => {
    const state = { ipFailures: 50, ipLastFailureAt: minutesAgo(1), phoneConsecutiveFailures: 50 };
    expect(loginBlockStatus(state, now, settings, false)).toEqual({ blocked: false });
  });

  it('locks the number after 100 consecutive failures from any IPs, with no expiry', () => {
    expect(CONSECUTIVE_FAILURES_LOCK).toBe(100);
    const state = { ...clean, phoneConsecutiveFailures: 100 };
    expect(loginBlockStatus(state, now, settings, true)).toEqual({ blocked: true, reason: 'phone_locked', until: null });
    expect(loginBlockStatus({ ...state, phoneConsecutiveFailures: 99 }, now, settings, true)).toEqual({ blocked: false });
  });

  it('locks the number after 100 failures even with brute-force protection off (NIST floor)', () => {
    expect(loginBlockStatus({ ...clean, phoneConsecutiveFailures: 100 }, now, settings, false).blocked).toBe(true);
  });

  it('counts a failure on top of recent ones', () => {
    expect(ipFailuresAfterFailure({ ipFailures: 4, ipLastFailureAt: minutesAgo(5) }, now, settings)).toBe(5);
  });

  it('starts counting afresh when the previous failures are older than the block time', () => {
    expect(ipFailuresAfterFailure({ ipFailures: 10, ipLastFailureAt: new Date(now.getTime() - 86_400_000) }, now, settings)).toBe(1);
    expect(ipFailuresAfterFailure({ ipFailures: 0, ipLastFailureAt: null }, now, settings)).toBe(1);
  });

  it('answers a blocked caller with 429 too_many_attempts', () => {
    const err = tooManyAttemptsError();
    expect(err.status).toBe(429);
    expect(err.toBody()).toMatchObject({ error: 'too_many_attempts' });
  });
});

describe('one-time code rules', () => {
  const issuedAt = new Date('2025-03-01T12:00:00.000Z');
  const expiresAt = codeExpiresAt(issuedAt, 300);

  it('expires a code time_step seconds after it was issued', () => {
    expect(expiresAt).toEqual(new Date('2025-03-01T12:05:00.000Z'));
  });

  it('keeps a fresh code usable until just before it expires', () => {
    expect(codeState({ expiresAt, attempts: 0, used: false }, issuedAt)).toBe('usable');
    expect(codeState({ expiresAt, attempts: 0, used: false }, new Date(expiresAt.getTime() - 1))).toBe('usable');
  });

  it('calls a code expired from its expiry instant on', () => {
    expect(codeState({ expiresAt, attempts: 0, used: false }, expiresAt)).toBe('expired');
  });

  it('allows three wrong attempts per code, then the code is dead', () => {
    expect(MAX_CODE_ATTEMPTS).toBe(3);
    expect(codeState({ expiresAt, attempts: 2, used: false }, issuedAt)).toBe('usable');
    expect(codeState({ expiresAt, attempts: 3, used: false }, issuedAt)).toBe('exhausted');
  });

  it('never accepts a used code', () => {
    expect(codeState({ expiresAt, attempts: 0, used: true }, issuedAt)).toBe('used');
  });

  it('describes rejections as the OTP grant does, without revealing a used code', () => {
    expect(otpGrantRejectionDescription('expired')).toBe('The verification code has expired. Please try to login again.');
    expect(otpGrantRejectionDescription('exhausted')).toBe(
      "You've reached the maximum number of attempts. Please try to login again.",
    );
    for (const state of ['wrong', 'used', 'unknown'] as const) {
      expect(otpGrantRejectionDescription(state)).toBe('Wrong phone number or verification code.');
    }
  });
});
