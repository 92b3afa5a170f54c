import type { SqlExecutor } from '../sql-client';

/** Fixed-window counters in the database, so every replica counts the same requests. */
export function rateLimitsRepo(db: SqlExecutor) {
  return {
    /**
     * Counts one hit in the window starting at `windowStart` and returns the count so far
     * (a new window restarts at 1). One statement: parallel hits never lose a count.
     */
    async hit(key: string, windowStart: Date): Promise<number> {
      const { rows } = await db.query<{ count: number }>(
        `INSERT INTO rate_limit_counters (key, window_start, count) VALUES ($1, $2, 1)
         ON CONFLICT (key) DO UPDATE SET
           count = CASE WHEN EXCLUDED.window_start > rate_limit_counters.window_start
                        THEN 1 ELSE rate_limit_counters.count + 1 END,
           window_start = GREATEST(EXCLUDED.window_start, rate_limit_counters.window_start)
         RETURNING count`,
        [key, windowStart],
      );
      return rows[0]!.count;
    },
  };
}
