import type { SqlExecutor } from '../sql-client';

export interface UserBlock {
  phone_number: string;
  /** Absent for the lock of the number itself (too many failures from any IP). */
  ip?: string;
}

/** Read and clear the brute-force blocks the passwordless flow records. */
export function userBlocksRepo(db: SqlExecutor) {
  return {
    async list(phoneNumber: string, now: Date): Promise<UserBlock[]> {
      const { rows } = await db.query<{ ip: string | null }>(
        `SELECT ip FROM login_failures_by_ip WHERE phone_number = $1 AND blocked_until > $2
         UNION ALL
         SELECT NULL FROM login_failures_by_phone WHERE phone_number = $1 AND locked_at IS NOT NULL
         ORDER BY 1 NULLS FIRST`,
        [phoneNumber, now],
      );
      return rows.map((r) => (r.ip === null ? { phone_number: phoneNumber } : { phone_number: phoneNumber, ip: r.ip }));
    },

    /** Lifts every block and resets the failure counters of the number. */
    async clear(phoneNumber: string): Promise<void> {
      await db.query('DELETE FROM login_failures_by_ip WHERE phone_number = $1', [phoneNumber]);
      await db.query('DELETE FROM login_failures_by_phone WHERE phone_number = $1', [phoneNumber]);
    },
  };
}
