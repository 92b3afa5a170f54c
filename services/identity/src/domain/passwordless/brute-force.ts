import { ErrorCodes } from '@smsauth/contracts';
import { HttpError } from '@smsauth/service-kit';

/*
 * Brute-force protection on code exchanges. The store keeps the failure counters and
 * changes them with single atomic statements; these functions decide what the counters
 * mean, so every replica decides the same way.
 */

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

