import { groupCommit } from '../group-commit';
import type { SecretCipher } from '../secret-cipher';
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
  /**
   * The full number (E.164), only on its way to the store: the store writes its keyed hash
   * (phone_hash, what `q=phone_number:` finds) and never the number itself.
   */
  phone_lookup?: string;
  /** The number's country (ISO 3166 code, or `+<calling code>`) and prefix, what the SMS figures group by. */
  phone_country?: string;
  phone_prefix?: string;
  /** Never a code, a secret or a token. */
  details: Record<string, unknown>;
}

/** A record as it is written: the number's keyed hash instead of the number. */
export type WrittenTenantLogRecord = Omit<TenantLogRecord, 'phone_lookup'> & { phone_hash?: string };

/** What leaves the process for a record: phone_lookup replaced by its keyed hash. */
export function writtenRecord<R extends Partial<TenantLogRecord>>(cipher: Pick<SecretCipher, 'lookupHash'>, record: R): Omit<R, 'phone_lookup'> & { phone_hash?: string } {
  const { phone_lookup: phone, ...rest } = record;
  return phone === undefined ? rest : { ...rest, phone_hash: cipher.lookupHash(phone) };
}

export const TENANT_LOG_COLUMNS = 'log_id, date, type, description, client_id, client_name, connection, connection_id, user_id, ip, user_agent, phone_number, details';

/** The column list of a JSON record: `jsonb_to_record(...) AS r(${TENANT_LOG_RECORD_TYPES})`. */
export const TENANT_LOG_RECORD_TYPES = `log_id text, date timestamptz, type text, description text, client_id text, client_name text,
    connection text, connection_id text, user_id text, ip text, user_agent text, phone_number text, details jsonb,
    phone_hash text, phone_country text, phone_prefix text`;

/** The columns a write fills: the record's, and the number's hash, country and prefix. */
const WRITTEN_COLUMNS = `${TENANT_LOG_COLUMNS}, phone_hash, phone_country, phone_prefix`;

// One statement text whatever the number of records: they travel as one JSON array parameter
// (one prepared statement, one round trip).
const APPEND = `
  INSERT INTO tenant_logs (${WRITTEN_COLUMNS})
  SELECT ${WRITTEN_COLUMNS} FROM jsonb_to_recordset($1::jsonb) AS r(${TENANT_LOG_RECORD_TYPES})`;

/** A stored record as read: fields not known are null (the number's hash and prefix are not read back; log streams do not read its country). */
type ReadTenantLogRecord = Omit<TenantLogRecord, 'phone_lookup' | 'phone_prefix'>;
export type StoredTenantLog = { [K in keyof ReadTenantLogRecord]-?: undefined extends ReadTenantLogRecord[K] ? Exclude<ReadTenantLogRecord[K], undefined> | null : ReadTenantLogRecord[K] };

/** Columns `q` may compare for equality; `phone_number` compares the keyed hash of the full numbers given. */
export type TenantLogField = 'type' | 'user_id' | 'client_id' | 'connection' | 'ip' | 'phone_number';

export interface DateBound {
  at: Date;
  inclusive: boolean;
}

/** One condition of a log search; a search is all of them (AND). */
export type TenantLogCondition =
  | { field: TenantLogField; values: string[] }
  | { field: 'date'; from?: DateBound; to?: DateBound };

export interface TenantLogSearch {
  conditions: readonly TenantLogCondition[];
  offset: number;
  limit: number;
  /** Newest first (sort=date:-1, the default). */
  descending: boolean;
}

// With the number's country: the console's attempts list shows it (the masked number cannot tell it).
const SELECT_LOG = `SELECT ${TENANT_LOG_COLUMNS}, phone_country FROM tenant_logs`;

function whereOf(conditions: readonly TenantLogCondition[], params: unknown[], cipher: Pick<SecretCipher, 'lookupHash'>): string {
  const parts = conditions.map((condition) => {
    if (condition.field === 'date') {
      const bounds: string[] = [];
      if (condition.from) {
        params.push(condition.from.at);
        bounds.push(`date ${condition.from.inclusive ? '>=' : '>'} $${params.length}`);
      }
      if (condition.to) {
        params.push(condition.to.at);
        bounds.push(`date ${condition.to.inclusive ? '<=' : '<'} $${params.length}`);
      }
      return bounds.length ? bounds.join(' AND ') : 'true';
    }
    if (condition.field === 'phone_number') {
      params.push(condition.values.map((number) => cipher.lookupHash(number)));
      return `phone_hash = ANY($${params.length}::text[])`;
    }
    // The column name comes from the closed TenantLogField union, never from input.
    params.push(condition.values);
    return `${condition.field} = ANY($${params.length}::text[])`;
  });
  return parts.length ? parts.join(' AND ') : 'true';
}

/** Records per grouped INSERT at most. */
const APPEND_GROUP_MAX = 200;

/**
 * Tenant log records. `append` runs on the executor the repo is bound to, so inside
 * store.transaction() the records commit or roll back with the change they record.
 */
export function tenantLogsRepo(db: SqlExecutor, cipher: Pick<SecretCipher, 'lookupHash'>, options: { recordTenantLogs?: boolean; groupCommit?: boolean } = {}) {
  const recording = options.recordTenantLogs ?? true;
  const insert = async (list: readonly TenantLogRecord[]) => {
    await db.query(APPEND, [JSON.stringify(list.map((record) => writtenRecord(cipher, record)))]);
  };
  // Outside a transaction (events that change nothing else: a code sent, a token issued,
  // a refusal), concurrent requests' records share one INSERT.
  const write = options.groupCommit ? groupCommit(insert, APPEND_GROUP_MAX) : insert;
  return {
    async append(records: TenantLogRecord | readonly TenantLogRecord[]): Promise<void> {
      const list = Array.isArray(records) ? records : [records as TenantLogRecord];
      if (list.length === 0 || !recording) return;
      await write(list);
    },

    async findById(logId: string): Promise<StoredTenantLog | undefined> {
      const { rows } = await db.query<StoredTenantLog>(`${SELECT_LOG} WHERE log_id = $1`, [logId]);
      return rows[0];
    },

    /** A page of the records matching every condition, by date (then by stream order). */
    async search(search: TenantLogSearch): Promise<StoredTenantLog[]> {
      const params: unknown[] = [];
      const where = whereOf(search.conditions, params, cipher);
      const direction = search.descending ? 'DESC' : 'ASC';
      params.push(search.offset, search.limit);
      const { rows } = await db.query<StoredTenantLog>(
        `${SELECT_LOG} WHERE ${where} ORDER BY date ${direction}, seq ${direction} OFFSET $${params.length - 1} LIMIT $${params.length}`,
        params,
      );
      return rows;
    },

    async count(conditions: readonly TenantLogCondition[]): Promise<number> {
      const params: unknown[] = [];
      const { rows } = await db.query<{ total: number }>(`SELECT count(*)::int AS total FROM tenant_logs WHERE ${whereOf(conditions, params, cipher)}`, params);
      return rows[0]?.total ?? 0;
    },

    /**
     * Checkpoint reading: up to `limit` records after `fromLogId` (from the oldest without it)
     * in stream order. Only records of transactions older than every open one: a transaction
     * that took a lower seq but commits later cannot be skipped by a reader already past it.
     * Undefined when `fromLogId` names no record (never issued, or pruned).
     */
    async after(fromLogId: string | undefined, limit: number): Promise<StoredTenantLog[] | undefined> {
      // Continued in (tx_id, seq) order, as log streams are: by seq alone, a record numbered
      // before another but committed after it would fall behind a reader already past it.
      let after = { txId: '0', seq: '0' };
      if (fromLogId !== undefined) {
        const { rows } = await db.query<{ tx_id: string; seq: string }>(
          'SELECT tx_id::text AS tx_id, seq::text AS seq FROM tenant_logs WHERE log_id = $1',
          [fromLogId],
        );
        if (!rows[0]) return undefined;
        after = { txId: rows[0].tx_id, seq: rows[0].seq };
      }
      const { rows } = await db.query<StoredTenantLog>(
        `${SELECT_LOG} WHERE (tx_id, seq) > ($1::xid8, $2::bigint) AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
         ORDER BY tx_id, seq LIMIT $3`,
        [after.txId, after.seq, limit],
      );
      return rows;
    },

    /** Deletes up to `batch` records dated before `before`, oldest first; returns how many. */
    async pruneBefore(before: Date, batch: number): Promise<number> {
      const { rowCount } = await db.query(
        'DELETE FROM tenant_logs WHERE seq IN (SELECT seq FROM tenant_logs WHERE date < $1 ORDER BY date LIMIT $2)',
        [before, batch],
      );
      return rowCount;
    },
  };
}
