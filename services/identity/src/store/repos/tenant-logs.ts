import type { SqlExecutor } from '../sql-client';

/** One tenant log event as stored (tenant_logs, migration 009). */
export interface TenantLogRecord {
  log_id: string;
  date: Date;
  /** Event type code (Auth0's where it has one: `s`, `sepft`, `limit_wc`...). */
  type: string;
  description: string;
  client_id?: string;
  client_name?: string;
  connection?: string;
  connection_id?: string;
  user_id?: string;
  ip?: string;
  user_agent?: string;
  /** Masked (maskPhoneNumber), never the full number. */
  phone_number?: string;
  /** Never a code, a secret or a token. */
  details: Record<string, unknown>;
}

const COLUMNS = 'log_id, date, type, description, client_id, client_name, connection, connection_id, user_id, ip, user_agent, phone_number, details';

// One statement text whatever the number of records: they travel as one JSON array parameter
// (one prepared statement, one round trip).
const APPEND = `
  INSERT INTO tenant_logs (${COLUMNS})
  SELECT ${COLUMNS} FROM jsonb_to_recordset($1::jsonb) AS r(
    log_id text, date timestamptz, type text, description text, client_id text, client_name text,
    connection text, connection_id text, user_id text, ip text, user_agent text, phone_number text, details jsonb)`;

/**
 * Tenant log records. `append` runs on the executor the repo is bound to, so inside
 * store.transaction() the records commit or roll back with the change they record.
 */
export function tenantLogsRepo(db: SqlExecutor) {
  return {
    async append(records: TenantLogRecord | readonly TenantLogRecord[]): Promise<void> {
      const list = Array.isArray(records) ? records : [records as TenantLogRecord];
      if (list.length === 0) return;
      await db.query(APPEND, [JSON.stringify(list)]);
    },
  };
}
