import type { SqlClient } from '../../src/store/sql-client';

/**
 * Every table of the identity schema, row count and a digest of its rows: two equal snapshots
 * mean no user, connection, client, code, counter or token was written in between.
 */
export async function databaseSnapshot(sql: SqlClient): Promise<Record<string, string>> {
  const tables = await sql.query<{ tablename: string }>(
    `SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename`,
  );
  const snapshot: Record<string, string> = {};
  for (const { tablename } of tables.rows) {
    const digest = await sql.query<{ rows: string; digest: string | null }>(
      `SELECT count(*)::text AS rows, md5(string_agg(t::text, '|' ORDER BY t::text)) AS digest FROM "${tablename}" t`,
    );
    snapshot[tablename] = `${digest.rows[0]?.rows}:${digest.rows[0]?.digest ?? ''}`;
  }
  return snapshot;
}
