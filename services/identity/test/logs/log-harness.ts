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

/**
 * Waits until every transaction the server had open when `logIds` were appended has ended:
 * a read by checkpoint (`from`/`take`, log streams) returns a record only then, so that it never
 * skips one committed later behind it. The server is shared by every suite of a run, and any of
 * them may hold a transaction open for a moment; this is the precondition of such a read, not a
 * retried assertion. Fails after `timeoutMs`, naming what stayed unsettled.
 */
export async function untilSettled(h: FlowHarness, logIds: readonly string[], timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await h.identity.sql.query<{ unsettled: string }>(
      'SELECT count(*)::text AS unsettled FROM tenant_logs WHERE log_id = ANY($1) AND tx_id >= pg_snapshot_xmin(pg_current_snapshot())',
      [logIds],
    );
    if (rows[0]!.unsettled === '0') return;
    if (Date.now() > deadline) throw new Error(`${rows[0]!.unsettled} records still behind a transaction open on the server after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
