import { DEFAULT_LOG_PAGE_SIZE, MAX_LOG_SEARCH_WINDOW, type LogsListQuery, type TenantLog } from '@smsauth/contracts';
import type { IdentityStore, StoredTenantLog, TenantLogCondition } from '../../store';
import { projectFields } from '../management/paging';
import { invalidField, notFound } from '../management/validation';
import { parseLogSearch } from './log-search';

/** A stored record as the API shows it: unknown fields left out, the date as ISO text. */
export function toTenantLog(row: StoredTenantLog): TenantLog {
  const log: Record<string, unknown> = { log_id: row.log_id, date: row.date.toISOString(), type: row.type, description: row.description };
  for (const key of ['client_id', 'client_name', 'connection', 'connection_id', 'user_id', 'ip', 'user_agent', 'phone_number'] as const) {
    if (row[key] !== null) log[key] = row[key];
  }
  if (row.phone_country) log.phone_country = row.phone_country;
  log.details = row.details;
  return log as TenantLog;
}

/** The answer to a list request, and the Link header a checkpoint page carries. */
export interface LogsAnswer {
  body: unknown;
  /** Checkpoint reading: the `from` of the next request (the last log's id, or the same `from` when none was newer). */
  nextFrom?: string;
}

/**
 * `GET /api/v2/logs` (and `/users/{id}/logs` with `userId`).
 * - Checkpoint (`from` and/or `take`): the logs after `from` in stream order, any other
 *   parameter ignored, as a bare array.
 * - Search: `q`, `sort` (newest first by default), `page`/`per_page` within the first
 *   1,000 records, `include_totals` (`{start, limit, length, total, logs}`), `fields`.
 */
export async function listLogs(store: IdentityStore, input: LogsListQuery, userId?: string): Promise<LogsAnswer> {
  if (userId === undefined && (input.from !== undefined || input.take !== undefined)) {
    const rows = await store.tenantLogs.after(input.from, input.take ?? DEFAULT_LOG_PAGE_SIZE);
    if (!rows) throw invalidField('from', 'no log with this id (never issued, or older than the retention period)');
    return { body: rows.map(toTenantLog), nextFrom: rows.at(-1)?.log_id ?? input.from };
  }
  const limit = input.per_page ?? DEFAULT_LOG_PAGE_SIZE;
  const offset = (input.page ?? 0) * limit;
  if (offset + limit > MAX_LOG_SEARCH_WINDOW) {
    throw invalidField('page', `search reaches the first ${MAX_LOG_SEARCH_WINDOW} logs; use from/take (checkpoint) to read further`);
  }
  const conditions: TenantLogCondition[] = parseLogSearch(input.q);
  if (userId !== undefined) conditions.push({ field: 'user_id', values: [userId] });
  const [rows, total] = await Promise.all([
    store.tenantLogs.search({ conditions, offset, limit, descending: input.sort !== 'date:1' }),
    input.include_totals ? store.tenantLogs.count(conditions) : undefined,
  ]);
  const logs = rows.map((row) => projectFields(toTenantLog(row), input.fields, input.include_fields));
  if (total === undefined) return { body: logs };
  return { body: { start: offset, limit, length: logs.length, total, logs } };
}

/** `GET /api/v2/logs/{id}`. */
export async function getLog(store: IdentityStore, logId: string): Promise<TenantLog> {
  const row = await store.tenantLogs.findById(logId);
  if (!row) throw notFound('Log');
  return toTenantLog(row);
}
