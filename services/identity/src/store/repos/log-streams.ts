import type { LogStreamContentFormat, LogStreamStatus } from '@smsauth/contracts';
import type { SealedColumn } from '../sealed-column';
import type { SecretCipher } from '../secret-cipher';
import type { SqlExecutor } from '../sql-client';
import type { StoredTenantLog } from './tenant-logs';

/** The sink as stored: the authorization header lives sealed in its own column. */
export interface StoredLogStreamSink {
  httpEndpoint: string;
  httpContentFormat: LogStreamContentFormat;
  httpContentType: string;
}

/** Where a stream has got to: its last delivered record, in the stream order (tx_id, seq). */
export interface LogStreamCursor {
  /** xid8 as text. */
  txId: string;
  /** bigint as text. */
  seq: string;
}

export interface StoredLogStream {
  id: string;
  name: string;
  type: 'http';
  status: LogStreamStatus;
  sink: StoredLogStreamSink;
  /** Opened; sent as the Authorization header. */
  httpAuthorization: string | null;
  /** Opened; the HMAC-SHA256 key of the deliveries' signature. */
  signingSecret: string;
  cursor: LogStreamCursor;
  consecutiveFailures: number;
  nextAttemptAt: Date | null;
  lastDeliveredAt: Date | null;
  lastFailureAt: Date | null;
  lastFailureReason: string | null;
  suspendedReason: string | null;
}

/** A tenant log record waiting in a stream, with its place in the stream order. */
export interface PendingLogRecord {
  cursor: LogStreamCursor;
  record: StoredTenantLog;
}

interface LogStreamRow {
  id: string;
  name: string;
  type: 'http';
  status: LogStreamStatus;
  sink: StoredLogStreamSink;
  http_authorization: string | null;
  signing_secret: string;
  cursor_tx_id: string;
  cursor_seq: string;
  consecutive_failures: number;
  next_attempt_at: Date | null;
  last_delivered_at: Date | null;
  last_failure_at: Date | null;
  last_failure_reason: string | null;
  suspended_reason: string | null;
}

const SELECT_STREAM = `SELECT id, name, type, status, sink, http_authorization, signing_secret,
  cursor_tx_id::text AS cursor_tx_id, cursor_seq::text AS cursor_seq, consecutive_failures,
  next_attempt_at, last_delivered_at, last_failure_at, last_failure_reason, suspended_reason`;
const STREAM_COLUMNS = SELECT_STREAM.slice('SELECT '.length);

const authorizationContext = (id: string) => `log_stream:${id}:http_authorization`;
const signingSecretContext = (id: string) => `log_stream:${id}:signing_secret`;

/** For `keys rotate-secret`. */
export const logStreamsSealedColumns: readonly SealedColumn[] = [
  { table: 'log_streams', column: 'http_authorization', key: ['id'], context: (row) => authorizationContext(row.id!) },
  { table: 'log_streams', column: 'signing_secret', key: ['id'], context: (row) => signingSecretContext(row.id!) },
];

// Older than every open transaction: no record can join this part of the stream any more.
const SETTLED = 'tx_id < pg_snapshot_xmin(pg_current_snapshot())';

const LOG_COLUMNS = 'log_id, date, type, description, client_id, client_name, connection, connection_id, user_id, ip, user_agent, phone_number, details';

/** Log streams, their cursors and delivery leases (migration 010). */
export function logStreamsRepo(db: SqlExecutor, cipher: SecretCipher) {
  const fromRow = (row: LogStreamRow): StoredLogStream => ({
    id: row.id,
    name: row.name,
    type: row.type,
    status: row.status,
    sink: row.sink,
    httpAuthorization: row.http_authorization === null ? null : cipher.open(row.http_authorization, authorizationContext(row.id)),
    signingSecret: cipher.open(row.signing_secret, signingSecretContext(row.id)),
    cursor: { txId: row.cursor_tx_id, seq: row.cursor_seq },
    consecutiveFailures: row.consecutive_failures,
    nextAttemptAt: row.next_attempt_at,
    lastDeliveredAt: row.last_delivered_at,
    lastFailureAt: row.last_failure_at,
    lastFailureReason: row.last_failure_reason,
    suspendedReason: row.suspended_reason,
  });
  const sealAuthorization = (id: string, value: string | null) => (value === null ? null : cipher.seal(value, authorizationContext(id)));

  return {
    /**
     * A new stream starts at the present: after the last record visible now, or after every
     * transaction already ended when none is newer. A transaction that begins later has a
     * larger id than both, so every record written from now on comes after the cursor; the
     * history before it is not sent.
     */
    async insert(stream: { id: string; name: string; sink: StoredLogStreamSink; httpAuthorization: string | null; signingSecret: string }): Promise<StoredLogStream> {
      const { rows } = await db.query<LogStreamRow>(
        `WITH last AS (SELECT tx_id, seq FROM tenant_logs ORDER BY tx_id DESC, seq DESC LIMIT 1),
              settled AS (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS tx_id, 0::bigint AS seq),
              start AS (SELECT * FROM last UNION ALL SELECT * FROM settled ORDER BY tx_id DESC, seq DESC LIMIT 1)
         INSERT INTO log_streams (id, name, sink, http_authorization, signing_secret, cursor_tx_id, cursor_seq)
         SELECT $1, $2, $3::jsonb, $4, $5, start.tx_id, start.seq FROM start
         RETURNING ${STREAM_COLUMNS}`,
        [stream.id, stream.name, JSON.stringify(stream.sink), sealAuthorization(stream.id, stream.httpAuthorization), cipher.seal(stream.signingSecret, signingSecretContext(stream.id))],
      );
      return fromRow(rows[0]!);
    },

    async findById(id: string): Promise<StoredLogStream | undefined> {
      const { rows } = await db.query<LogStreamRow>(`${SELECT_STREAM} FROM log_streams WHERE id = $1`, [id]);
      return rows[0] ? fromRow(rows[0]) : undefined;
    },

    /** Locks the row until the transaction ends (read-modify-write of the sink). */
    async findByIdForUpdate(id: string): Promise<StoredLogStream | undefined> {
      const { rows } = await db.query<LogStreamRow>(`${SELECT_STREAM} FROM log_streams WHERE id = $1 FOR UPDATE`, [id]);
      return rows[0] ? fromRow(rows[0]) : undefined;
    },

    /** Every stream (a tenant has a handful), oldest first. */
    async list(): Promise<StoredLogStream[]> {
      const { rows } = await db.query<LogStreamRow>(`${SELECT_STREAM} FROM log_streams ORDER BY created_at, id`);
      return rows.map(fromRow);
    },

    /**
     * Name, sink and authorization as given (undefined keeps). `resume` makes the stream
     * active and forgets its failures, so the next poll delivers from the cursor; `pause`
     * stops delivery where it is.
     */
    async update(
      id: string,
      changes: { name?: string; sink?: StoredLogStreamSink; httpAuthorization?: string | null; status?: 'active' | 'paused' },
    ): Promise<StoredLogStream | undefined> {
      const { rows } = await db.query<LogStreamRow>(
        `UPDATE log_streams SET
           name = COALESCE($2, name),
           sink = COALESCE($3::jsonb, sink),
           http_authorization = CASE WHEN $4::boolean THEN $5 ELSE http_authorization END,
           status = COALESCE($6, status),
           consecutive_failures = CASE WHEN $6 = 'active' THEN 0 ELSE consecutive_failures END,
           next_attempt_at = CASE WHEN $6 = 'active' THEN NULL ELSE next_attempt_at END,
           suspended_reason = CASE WHEN $6 IS NOT NULL THEN NULL ELSE suspended_reason END,
           updated_at = now()
         WHERE id = $1
         RETURNING ${STREAM_COLUMNS}`,
        [
          id,
          changes.name ?? null,
          changes.sink ? JSON.stringify(changes.sink) : null,
          changes.httpAuthorization !== undefined,
          changes.httpAuthorization === undefined ? null : sealAuthorization(id, changes.httpAuthorization),
          changes.status ?? null,
        ],
      );
      return rows[0] ? fromRow(rows[0]) : undefined;
    },

    async delete(id: string): Promise<boolean> {
      const { rowCount } = await db.query('DELETE FROM log_streams WHERE id = $1', [id]);
      return rowCount > 0;
    },

    /** Active streams whose backoff has passed and whose lease is free (or expired) at `now`, with their cursors. */
    async due(now: Date): Promise<Array<{ id: string; cursor: LogStreamCursor }>> {
      const { rows } = await db.query<{ id: string; cursor_tx_id: string; cursor_seq: string }>(
        `SELECT id, cursor_tx_id::text AS cursor_tx_id, cursor_seq::text AS cursor_seq FROM log_streams
         WHERE status = 'active' AND (next_attempt_at IS NULL OR next_attempt_at <= $1)
           AND (lease_expires_at IS NULL OR lease_expires_at <= $1)
         ORDER BY created_at, id`,
        [now],
      );
      return rows.map((r) => ({ id: r.id, cursor: { txId: r.cursor_tx_id, seq: r.cursor_seq } }));
    },

    /**
     * Takes the stream's delivery lease until `until` when it is due and free (or its holder's
     * lease expired: that replica died or hung). One conditional UPDATE: of two replicas
     * racing, one gets the row back. The returned cursor is the one to read the batch from.
     */
    async acquireLease(id: string, token: string, now: Date, until: Date): Promise<(StoredLogStream & { leaseTakenOver: boolean }) | undefined> {
      // `before` is the row as this statement's snapshot saw it: a lease token still set means
      // its holder never gave it back (it died or hung), so its batch may have reached the sink.
      const { rows } = await db.query<LogStreamRow & { lease_taken_over: boolean }>(
        `UPDATE log_streams SET lease_token = $2, lease_expires_at = $4
         FROM (SELECT lease_token AS previous_token FROM log_streams WHERE id = $1) AS before
         WHERE id = $1 AND status = 'active' AND (next_attempt_at IS NULL OR next_attempt_at <= $3)
           AND (lease_expires_at IS NULL OR lease_expires_at <= $3)
         RETURNING ${STREAM_COLUMNS.split(',').map((column) => `log_streams.${column.trim()}`).join(', ')}, before.previous_token IS NOT NULL AS lease_taken_over`,
        [id, token, now, until],
      );
      return rows[0] ? { ...fromRow(rows[0]), leaseTakenOver: rows[0].lease_taken_over } : undefined;
    },

    /** Extends a lease `token` still holds until `until` (the heartbeat of a batch in flight); false when it was lost. */
    async renewLease(id: string, token: string, until: Date): Promise<boolean> {
      const { rowCount } = await db.query('UPDATE log_streams SET lease_expires_at = $3 WHERE id = $1 AND lease_token = $2', [id, token, until]);
      return rowCount > 0;
    },

    /** Gives the lease back without moving anything (nothing was pending). */
    async releaseLease(id: string, token: string): Promise<void> {
      await db.query('UPDATE log_streams SET lease_token = NULL, lease_expires_at = NULL WHERE id = $1 AND lease_token = $2', [id, token]);
    },

    /**
     * The batch delivered: the cursor moves to its last record, failures are forgotten and the
     * lease is released, only while `token` still holds the lease (a replica whose lease
     * expired and was taken over must not move the cursor under the new holder). False when
     * it no longer did.
     */
    async completeDelivery(id: string, token: string, cursor: LogStreamCursor, now: Date): Promise<boolean> {
      const { rowCount } = await db.query(
        `UPDATE log_streams SET cursor_tx_id = $3::xid8, cursor_seq = $4::bigint, consecutive_failures = 0,
           next_attempt_at = NULL, last_delivered_at = $5, lease_token = NULL, lease_expires_at = NULL
         WHERE id = $1 AND lease_token = $2`,
        [id, token, cursor.txId, cursor.seq, now],
      );
      return rowCount > 0;
    },

    /**
     * A failed attempt: counted, retried at `nextAttemptAt`, and after `maxFailures` in a row
     * the stream is suspended with the reason. Returns the stream's status afterwards
     * (undefined when the lease had been lost).
     */
    async recordFailure(
      id: string,
      token: string,
      failure: { now: Date; reason: string; nextAttemptAt: Date; maxFailures: number },
    ): Promise<{ status: LogStreamStatus; consecutiveFailures: number } | undefined> {
      const { rows } = await db.query<{ status: LogStreamStatus; consecutive_failures: number }>(
        `UPDATE log_streams SET
           consecutive_failures = consecutive_failures + 1,
           last_failure_at = $3, last_failure_reason = $4, next_attempt_at = $5,
           status = CASE WHEN status = 'active' AND consecutive_failures + 1 >= $6 THEN 'suspended' ELSE status END,
           suspended_reason = CASE WHEN status = 'active' AND consecutive_failures + 1 >= $6
             THEN (consecutive_failures + 1) || ' consecutive failed deliveries; last: ' || $4 ELSE suspended_reason END,
           lease_token = NULL, lease_expires_at = NULL
         WHERE id = $1 AND lease_token = $2
         RETURNING status, consecutive_failures`,
        [id, token, failure.now, failure.reason, failure.nextAttemptAt, failure.maxFailures],
      );
      const row = rows[0];
      return row ? { status: row.status, consecutiveFailures: row.consecutive_failures } : undefined;
    },

    /**
     * The next records after `cursor`, in stream order, that can no longer be preceded by a
     * record still being written (their transaction is older than every open one).
     */
    async pendingRecords(cursor: LogStreamCursor, limit: number): Promise<PendingLogRecord[]> {
      const { rows } = await db.query<StoredTenantLog & { tx_id: string; seq: string }>(
        `SELECT tx_id::text AS tx_id, seq::text AS seq, ${LOG_COLUMNS} FROM tenant_logs
         WHERE (tx_id, seq) > ($1::xid8, $2::bigint) AND ${SETTLED}
         ORDER BY tx_id, seq LIMIT $3`,
        [cursor.txId, cursor.seq, limit],
      );
      return rows.map(({ tx_id, seq, ...record }) => ({ cursor: { txId: tx_id, seq }, record }));
    },

    /** Per stream, the date of the next undelivered record (null when it is up to date). */
    async oldestUndelivered(): Promise<Array<{ id: string; oldest: Date | null }>> {
      const { rows } = await db.query<{ id: string; oldest: Date | string | null }>(
        `SELECT s.id, (SELECT l.date FROM tenant_logs l WHERE (l.tx_id, l.seq) > (s.cursor_tx_id, s.cursor_seq)
                       ORDER BY l.tx_id, l.seq LIMIT 1) AS oldest
         FROM log_streams s ORDER BY s.created_at, s.id`,
      );
      return rows.map((row) => ({ id: row.id, oldest: row.oldest === null ? null : new Date(row.oldest) }));
    },
  };
}
