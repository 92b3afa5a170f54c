import type { FlowHarness } from '../passwordless/flow-harness';

/** A stored tenant log record, read straight from the table. */
export interface LogRow {
  seq: string;
  log_id: string;
  date: Date;
  type: string;
  description: string;
  client_id: string | null;
  client_name: string | null;
  connection: string | null;
  connection_id: string | null;
  user_id: string | null;
  ip: string | null;
  user_agent: string | null;
  phone_number: string | null;
  details: Record<string, unknown>;
}

/** Where the log stands now: records() returns what was appended after this point. */
export async function logMark(h: FlowHarness): Promise<{ records(): Promise<LogRow[]>; types(): Promise<string[]> }> {
  const { rows } = await h.identity.sql.query<{ seq: string }>('SELECT COALESCE(max(seq), 0)::text AS seq FROM tenant_logs');
  const after = rows[0]!.seq;
  const records = async () =>
    (
      await h.identity.sql.query<LogRow>(
        `SELECT seq::text AS seq, log_id, date, type, description, client_id, client_name, connection, connection_id, user_id, ip, user_agent, phone_number, details
         FROM tenant_logs WHERE seq > $1::bigint ORDER BY seq`,
        [after],
      )
    ).rows;
  return { records, types: async () => (await records()).map((r) => r.type) };
}
