import type { SqlClient } from '../../src/store/sql-client';

/**
 * The login figures rolled up from tenant_logs by a background worker on its own clock
 * (STATS_ROLLUP_INTERVAL_MS, LoginStatsRollup): a run that lasts past a tick sees them change
 * between two requests that wrote nothing. They are derived, and tenant_logs itself is compared.
 */
const ROLLED_UP_BY_A_WORKER = /^tenant_log_(counts|rollup)_/;

/**
 * Every table of the identity schema but the rolled-up figures, row count and a digest of its
 * rows: two equal snapshots mean no user, connection, client, code, counter, log record or token
 * was written in between.
 */
export async function databaseSnapshot(sql: SqlClient): Promise<Record<string, string>> {
  const all = await sql.query<{ tablename: string }>(`SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename`);
  const tables = { rows: all.rows.filter(({ tablename }) => !ROLLED_UP_BY_A_WORKER.test(tablename)) };
  const snapshot: Record<string, string> = {};
  for (const { tablename } of tables.rows) {
    const digest = await sql.query<{ rows: string; digest: string | null }>(
      `SELECT count(*)::text AS rows, md5(string_agg(t::text, '|' ORDER BY t::text)) AS digest FROM "${tablename}" t`,
    );
    snapshot[tablename] = `${digest.rows[0]?.rows}:${digest.rows[0]?.digest ?? ''}`;
  }
  return snapshot;
}
