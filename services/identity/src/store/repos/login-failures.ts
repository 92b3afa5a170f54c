import type { SqlExecutor } from '../sql-client';

/** The limits a failure is counted against; the domain decides them (brute-force.ts). */
export interface FailureCountingLimits {
  /** Failures of one number from one IP that start a block of that IP. */
  threshold: number;
  /** How long a block lasts; older failures no longer count. */
  blockSeconds: number;
  /** Consecutive failures of one number, from any IP, that lock it. */
  consecutiveFailuresLock: number;
}

/** The counters of one number and of one IP for it, as the login statements read them. */
export interface FailureCounters {
  ipFailures: number;
  /** When the latest of those failures happened; null when there is none. */
  ipLastFailureAt: Date | null;
  phoneConsecutiveFailures: number;
}

/**
 * Brute-force counters of code exchanges, keyed by phone number (across connections, like
 * the user-blocks API that lifts them) and by phone number + client IP. Every change is one
 * atomic upsert, so parallel failures on any replica are all counted. They are read, and reset
 * by a success, in the login statements of passwordless-logins.
 */
export function loginFailuresRepo(db: SqlExecutor) {
  return {
    /**
     * One failed exchange. The per-IP count (only when the connection has brute-force
     * protection) restarts at 1 when its last failure is older than the block duration
     * (ipFailuresAfterFailure), and sets `blocked_until` once it reaches the threshold. The
     * per-number count always grows and sets `locked_at` at `consecutiveFailuresLock`.
     * Says whether this failure is the one that blocked the IP or locked the number.
     */
    async recordFailure(
      failure: { phoneNumber: string; ip: string; at: Date; countIp: boolean },
      settings: FailureCountingLimits,
    ): Promise<{ ipBlocked: boolean; numberLocked: boolean }> {
      const { phoneNumber, ip, at } = failure;
      let ipBlocked = false;
      if (failure.countIp) {
        const staleBefore = new Date(at.getTime() - settings.blockSeconds * 1000);
        const blockedUntil = new Date(at.getTime() + settings.blockSeconds * 1000);
        const { rows } = await db.query<{ failures: number }>(
          `INSERT INTO login_failures_by_ip AS f (phone_number, ip, failures, blocked_until, updated_at)
           VALUES ($1, $2, 1, CASE WHEN 1 >= $4 THEN $5::timestamptz END, $3)
           ON CONFLICT (phone_number, ip) DO UPDATE SET
             failures = CASE WHEN f.updated_at <= $6 THEN 1 ELSE f.failures + 1 END,
             blocked_until = CASE WHEN (CASE WHEN f.updated_at <= $6 THEN 1 ELSE f.failures + 1 END) >= $4
                                  THEN $5::timestamptz ELSE NULL END,
             updated_at = GREATEST(f.updated_at, $3)
           RETURNING failures`,
          [phoneNumber, ip, at, settings.threshold, blockedUntil, staleBefore],
        );
        // While blocked, failures are refused unchecked: only the one reaching the threshold counts it.
        ipBlocked = rows[0]?.failures === settings.threshold;
      }
      const { rows } = await db.query<{ consecutive_failures: number }>(
        `INSERT INTO login_failures_by_phone AS f (phone_number, consecutive_failures, locked_at, updated_at)
         VALUES ($1, 1, CASE WHEN 1 >= $3 THEN $2::timestamptz END, $2)
         ON CONFLICT (phone_number) DO UPDATE SET
           consecutive_failures = f.consecutive_failures + 1,
           locked_at = CASE WHEN f.consecutive_failures + 1 >= $3 THEN COALESCE(f.locked_at, $2) ELSE f.locked_at END,
           updated_at = $2
         RETURNING consecutive_failures`,
        [phoneNumber, at, settings.consecutiveFailuresLock],
      );
      return { ipBlocked, numberLocked: rows[0]?.consecutive_failures === settings.consecutiveFailuresLock };
    },
  };
}
