import type { SqlExecutor } from '../sql-client';

// One counter row per key; a hit in a newer window restarts it at 1.
const ON_HIT = `
  ON CONFLICT (key) DO UPDATE SET
    count = CASE WHEN EXCLUDED.window_start > rate_limit_counters.window_start
                 THEN 1 ELSE rate_limit_counters.count + 1 END,
    window_start = GREATEST(EXCLUDED.window_start, rate_limit_counters.window_start)
  RETURNING count`;

/**
 * hitGuarded's CTEs `first` and `second` (each RETURNING count), for statements that count
 * more with them: $1 the first key, $2 the window start, $3 the second key, $4 the first limit.
 */
export const GUARDED_HITS = `
  first AS (
    INSERT INTO rate_limit_counters (key, window_start, count) VALUES ($1, $2, 1) ${ON_HIT}),
  second AS (
    INSERT INTO rate_limit_counters (key, window_start, count)
    SELECT $3::text, $2::timestamptz, 1 FROM first WHERE first.count <= $4 ${ON_HIT})`;

/** Fixed-window counters in the database, so every replica counts the same requests. */
export function rateLimitsRepo(db: SqlExecutor) {
  return {
    /**
     * Counts one hit in the window starting at `windowStart` and returns the count so far
     * (a new window restarts at 1). One statement: parallel hits never lose a count.
     */
    async hit(key: string, windowStart: Date): Promise<number> {
      const { rows } = await db.query<{ count: number }>(
        `INSERT INTO rate_limit_counters (key, window_start, count) VALUES ($1, $2, 1) ${ON_HIT}`,
        [key, windowStart],
      );
      return rows[0]!.count;
    },

    /**
     * Counts a hit on `first` and, only when that count is within `firstLimit`, on `second`:
     * one round trip instead of two. `second` is null when it was not counted, so a caller
     * the first counter refuses cannot use up the second one's allowance.
     */
    async hitGuarded(
      first: { key: string; limit: number },
      secondKey: string,
      windowStart: Date,
    ): Promise<{ first: number; second: number | null }> {
      const { rows } = await db.query<{ first: number; second: number | null }>(
        `WITH ${GUARDED_HITS} SELECT (SELECT count FROM first) AS first, (SELECT count FROM second) AS second`,
        [first.key, windowStart, secondKey, first.limit],
      );
      const row = rows[0]!;
      return { first: row.first, second: row.second ?? null };
    },
  };
}
