import { groupCommit } from '../group-commit';
import { fromJsonRow, type JsonRow } from '../json-rows';
import type { SecretCipher } from '../secret-cipher';
import type { SqlExecutor } from '../sql-client';
import type { StoredAccessToken } from './access-tokens';
import type { StoredClient } from './clients';
import type { FailureCounters } from './login-failures';
import { openConnectionRow, SELECT_CONNECTION, type ConnectionRow, type StoredConnection } from './connections';
import { openedCode, sealedCodeSecret, type CodeKey, type NewCode, type StoredCode } from './one-time-codes';
import { GUARDED_HITS, rateLimitsRepo } from './rate-limits';
import {
  ON_VERIFIED,
  SEND_COUNT_COLUMNS,
  sendCountCtes,
  sendCountedOf,
  sendCountParameters,
  type SendCountRow,
  type SmsSend,
  type SmsSendCounted,
  type SmsVerificationCount,
} from './sms-fraud-guard';
import { TENANT_LOG_RECORD_TYPES, writtenRecord, type TenantLogRecord } from './tenant-logs';
import type { StoredUser } from './users';

/** A start's Idempotency-Key as stored (migration 013): its start, and its answer once settled. */
export interface StoredStartKey {
  client_id: string;
  idempotency_key: string;
  /** What makes a retry "the same start" (the start's own hash of its request). */
  fingerprint: string;
  start_id: string;
  /** The start's `cs` record, whose outcome is still to be written while `response` is null. */
  log_id: string | null;
  /** The start's 200 answer; null while its delivery is not settled. */
  response: Record<string, unknown> | null;
  expires_at: Date;
}

/** A keyed start's claim in the write-ahead statement; the key lives as long as the code. */
export interface StartKeyClaim {
  clientId: string;
  idempotencyKey: string;
  fingerprint: string;
}

/** What a passwordless start or code exchange reads before it decides anything. */
export interface LoginContext {
  client?: StoredClient;
  connection?: StoredConnection;
  /** The user of the phone number on that connection, if there is one. */
  user?: StoredUser;
}

interface ContextRow {
  client: JsonRow<StoredClient> | null;
  connection: JsonRow<ConnectionRow> | null;
  user: JsonRow<Omit<StoredUser, 'connection_name'>> | null;
  code?: (Omit<JsonRow<StoredCode>, 'issued_at' | 'expires_at'> & { issued_at: string; expires_at: string }) | null;
  ip_failures?: number | null;
  ip_last_failure_at?: Date | null;
  phone_failures?: number | null;
}

// Left joins from a single row, so every part is null when it does not exist.
const CONTEXT_FROM = `
  FROM (SELECT 1) AS one
  LEFT JOIN clients cl ON cl.client_id = $1
  LEFT JOIN (${SELECT_CONNECTION} WHERE c.name = $2) co ON true
  LEFT JOIN users u ON u.connection_id = co.id AND u.phone_number = $3`;

const START_CONTEXT = `SELECT to_jsonb(cl) AS client, to_jsonb(co) AS connection, to_jsonb(u) AS user ${CONTEXT_FROM}`;

const EXCHANGE_CONTEXT = `
  SELECT to_jsonb(cl) AS client, to_jsonb(co) AS connection, to_jsonb(u) AS user,
    (SELECT to_jsonb(oc) FROM one_time_codes oc WHERE oc.connection_id = co.id AND oc.phone_number = $3) AS code,
    (SELECT failures FROM login_failures_by_ip WHERE phone_number = $3 AND ip = $4) AS ip_failures,
    (SELECT updated_at FROM login_failures_by_ip WHERE phone_number = $3 AND ip = $4) AS ip_last_failure_at,
    (SELECT consecutive_failures FROM login_failures_by_phone WHERE phone_number = $3) AS phone_failures
  ${CONTEXT_FROM}`;

/** Settled deliveries per grouped UPDATE at most. */
const SETTLE_GROUP_MAX = 200;

/** A delivery's outcome merged into its `cs` record's details (settleStart without a key). */
interface RecordOutcome {
  log_id: string;
  outcome: Record<string, unknown>;
}

/**
 * The `details` of many `cs` records in one statement. Outcomes for the same record (which
 * one start never gives twice) are merged first, in the order given, as successive updates would.
 */
async function settleRecords(db: SqlExecutor, items: readonly RecordOutcome[]): Promise<void> {
  const merged = new Map<string, Record<string, unknown>>();
  for (const { log_id, outcome } of items) merged.set(log_id, { ...merged.get(log_id), ...outcome });
  await db.query(
    `UPDATE tenant_logs t SET details = t.details || s.outcome
     FROM jsonb_to_recordset($1::jsonb) AS s(log_id text, outcome jsonb) WHERE t.log_id = s.log_id`,
    [JSON.stringify([...merged].map(([log_id, outcome]) => ({ log_id, outcome })))],
  );
}

/**
 * The statements of the passwordless login path that span several tables, one round trip
 * each: every round trip costs both processes a socket write and a wake-up, which on a
 * busy host outweighs the work the statement does. With `groupCommit` (the root store, not
 * one bound to a transaction), the outcomes of concurrent starts' deliveries share one UPDATE.
 */
export function passwordlessLoginsRepo(db: SqlExecutor, cipher: SecretCipher, options: { recordTenantLogs?: boolean; groupCommit?: boolean } = {}) {
  const recording = options.recordTenantLogs ?? true;
  const rateLimits = rateLimitsRepo(db);
  const writeOutcomes = options.groupCommit
    ? groupCommit((items: readonly RecordOutcome[]) => settleRecords(db, items), SETTLE_GROUP_MAX)
    : (items: readonly RecordOutcome[]) => settleRecords(db, items);
  const contextFrom = (row: ContextRow): LoginContext => {
    const connectionRow = fromJsonRow<ConnectionRow>(row.connection);
    const connection = connectionRow ? openConnectionRow(cipher, connectionRow) : undefined;
    const user = fromJsonRow<Omit<StoredUser, 'connection_name'>>(row.user);
    return {
      client: fromJsonRow<StoredClient>(row.client),
      connection,
      user: user && connection ? { ...user, connection_name: connection.name } : undefined,
    };
  };

  const codeOf = (row: NonNullable<ContextRow['code']>): StoredCode | undefined => {
    try {
      return openedCode(cipher, { ...row, issued_at: new Date(row.issued_at), expires_at: new Date(row.expires_at) });
    } catch {
      return undefined;
    }
  };

  return {
    /** The client, the connection by name and the number's user on it: one round trip. */
    async startContext(clientId: string, connectionName: string, phoneNumber: string): Promise<LoginContext> {
      const { rows } = await db.query<ContextRow>(START_CONTEXT, [clientId, connectionName, phoneNumber]);
      return contextFrom(rows[0]!);
    },

    /** The Idempotency-Key of a start by its client, unless it has expired at `now`. */
    async findStartKey(clientId: string, idempotencyKey: string, now: Date): Promise<StoredStartKey | undefined> {
      const { rows } = await db.query<StoredStartKey>(
        'SELECT * FROM passwordless_start_keys WHERE client_id = $1 AND idempotency_key = $2 AND expires_at > $3',
        [clientId, idempotencyKey, now],
      );
      return rows[0];
    },

    /**
     * The write-ahead statement of a start, before its SMS is sent: the code (replacing the
     * number's previous one, as codes.issue does), its `cs` record and, with `key`, the key's
     * row (kept as long as the code; an expired row is taken over), all in one statement. A
     * key another start holds unexpired writes nothing: false. A few expired keys go with it.
     */
    async issueCodeAhead(code: NewCode, record: TenantLogRecord | undefined, key?: StartKeyClaim): Promise<boolean> {
      const { rows } = await db.query<{ ok: boolean }>(
        `WITH claimed AS (
           INSERT INTO passwordless_start_keys (client_id, idempotency_key, fingerprint, start_id, log_id, response, created_at, expires_at)
           SELECT $11, $12, $13, $3, $14, NULL, $7, $8 WHERE $12::text IS NOT NULL
           ON CONFLICT (client_id, idempotency_key) DO UPDATE SET
             fingerprint = EXCLUDED.fingerprint, start_id = EXCLUDED.start_id, log_id = EXCLUDED.log_id, response = NULL,
             created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
           WHERE passwordless_start_keys.expires_at <= EXCLUDED.created_at
           RETURNING 1),
         pruned AS (
           DELETE FROM passwordless_start_keys WHERE $12::text IS NOT NULL AND ctid IN (
             SELECT ctid FROM passwordless_start_keys WHERE expires_at <= $7 LIMIT 5)),
         go AS (SELECT ($12::text IS NULL OR EXISTS (SELECT 1 FROM claimed)) AS ok),
         code AS (
           INSERT INTO one_time_codes (connection_id, phone_number, request_id, client_id, auth_params, secret,
             issued_at, expires_at, time_step, digits, attempts, used)
           SELECT $1, $2, $3, $4, $5::jsonb, $6, $7, $8, $9, $10, 0, false FROM go WHERE go.ok
           ON CONFLICT (connection_id, phone_number) DO UPDATE SET
             request_id = EXCLUDED.request_id, client_id = EXCLUDED.client_id, auth_params = EXCLUDED.auth_params,
             secret = EXCLUDED.secret, issued_at = EXCLUDED.issued_at, expires_at = EXCLUDED.expires_at,
             time_step = EXCLUDED.time_step, digits = EXCLUDED.digits, attempts = 0, used = false, channel = NULL),
         logged AS (
           INSERT INTO tenant_logs (log_id, date, type, description, client_id, client_name, connection, connection_id, user_id, ip, user_agent, phone_number, details,
             phone_hash, phone_country, phone_prefix)
           SELECT r.log_id, r.date, r.type, r.description, r.client_id, r.client_name, r.connection, r.connection_id, r.user_id,
             r.ip, r.user_agent, r.phone_number, COALESCE(r.details, '{}'), r.phone_hash, r.phone_country, r.phone_prefix
           FROM go CROSS JOIN jsonb_to_record($15::jsonb) AS r(${TENANT_LOG_RECORD_TYPES})
           WHERE go.ok AND $15::jsonb IS NOT NULL)
         SELECT ok FROM go`,
        [
          code.connection_id, code.phone_number, code.request_id, code.client_id, JSON.stringify(code.auth_params),
          sealedCodeSecret(cipher, code), code.issued_at, code.expires_at, code.time_step, code.digits,
          key?.clientId ?? null, key?.idempotencyKey ?? null, key?.fingerprint ?? null,
          recording && record ? record.log_id : null,
          recording && record ? JSON.stringify(writtenRecord(cipher, record)) : null,
        ],
      );
      return rows[0]?.ok === true;
    },

    /**
     * A start's delivery settled: its `cs` record's details get `outcome` and, with `key`, the
     * key's row gets the start's answer (only while it still names this start). One statement;
     * without a key (most starts), grouped with concurrent starts' outcomes (groupCommit), and
     * resolved once that statement has committed.
     */
    async settleStart(
      logId: string | undefined,
      outcome: Record<string, unknown>,
      key?: { clientId: string; idempotencyKey: string; startId: string; response: Record<string, unknown> },
    ): Promise<void> {
      if (!key) {
        if (recording && logId !== undefined) await writeOutcomes([{ log_id: logId, outcome }]);
        return;
      }
      await db.query(
        `WITH logged AS (
           UPDATE tenant_logs SET details = details || $2::jsonb WHERE $1::text IS NOT NULL AND log_id = $1)
         UPDATE passwordless_start_keys SET response = $6::jsonb
         WHERE $3::text IS NOT NULL AND client_id = $3 AND idempotency_key = $4 AND start_id = $5`,
        [recording ? (logId ?? null) : null, JSON.stringify(outcome), key?.clientId ?? null, key?.idempotencyKey ?? null, key?.startId ?? null, key ? JSON.stringify(key.response) : null],
      );
    },

    /** Forgets a start's key (its delivery failed for good: a retry with it starts afresh). */
    async forgetStartKey(clientId: string, idempotencyKey: string, startId: string): Promise<void> {
      await db.query('DELETE FROM passwordless_start_keys WHERE client_id = $1 AND idempotency_key = $2 AND start_id = $3', [clientId, idempotencyKey, startId]);
    },

    /**
     * startContext plus the brute-force counters of the number and of this IP for it, and the
     * number's code on the connection as it stands (read only: no attempt is taken; see
     * consumeCodeAndRecordLogin's `takeAttempt`). A code whose secret does not open is left out
     * (codes.reserveAttempt then reports it as before).
     */
    async exchangeContext(
      clientId: string,
      connectionName: string,
      phoneNumber: string,
      ip: string,
    ): Promise<LoginContext & { bruteForce: FailureCounters; code?: StoredCode }> {
      const { rows } = await db.query<ContextRow>(EXCHANGE_CONTEXT, [clientId, connectionName, phoneNumber, ip]);
      const row = rows[0]!;
      const code = row.code ? codeOf(row.code) : undefined;
      return {
        ...contextFrom(row),
        ...(code ? { code } : {}),
        bruteForce: {
          ipFailures: row.ip_failures ?? 0,
          ipLastFailureAt: row.ip_last_failure_at ?? null,
          phoneConsecutiveFailures: row.phone_failures ?? 0,
        },
      };
    },

    /**
     * A start's counters in one statement: the per-IP and per-number start limits as
     * rateLimits.hitGuarded counts them and, with `send` and only when both are within their
     * limits, the fraud guard's send as smsFraudGuard.countSend counts it. `send` in the
     * answer is null when it was not counted (none given, or a limit refuses the start).
     */
    async countStart(
      first: { key: string; limit: number },
      second: { key: string; limit: number },
      windowStart: Date,
      send?: SmsSend,
    ): Promise<{ first: number; second: number | null; send: SmsSendCounted | null }> {
      if (!send) return { ...(await rateLimits.hitGuarded(first, second.key, windowStart)), send: null };
      const withinLimits = 'EXISTS (SELECT 1 FROM second WHERE second.count <= $5)';
      const { rows } = await db.query<{ first: number; second: number | null; within: boolean } & SendCountRow>(
        `WITH ${GUARDED_HITS}, ${sendCountCtes(6, withinLimits)}
         SELECT (SELECT count FROM first) AS first, (SELECT count FROM second) AS second, ${withinLimits} AS within, ${SEND_COUNT_COLUMNS}`,
        [first.key, windowStart, second.key, first.limit, second.limit, ...sendCountParameters(send)],
      );
      const row = rows[0]!;
      return { first: row.first, second: row.second ?? null, send: row.within ? sendCountedOf(row) : null };
    },

    /**
     * After a right guess, in one statement: marks the code used (only if it still is
     * unused, unexpired and within its attempts, so of parallel right guesses exactly one
     * gets a row back), clears the number's failure counters and this IP's, and creates the
     * user or records another login, and appends `login.log` to the tenant logs with the
     * user's id. With `verification`, counts the fraud guard's verified code for its prefix;
     * with `accessToken`, stores that opaque token for the user (dropping the user's expired
     * ones, as accessTokens.insert does). With `takeAttempt` (a guess checked against the code
     * as exchangeContext read it, before any attempt was taken), the statement also takes the
     * guess's attempt, as codes.reserveAttempt would: only from a code issued to that client and
     * below `maxAttempts`, so of parallel guesses still at most `maxAttempts` count. Undefined: the
     * code was used, replaced, expired or out of attempts meanwhile, and nothing was changed: no
     * counter, no token, no attempt.
     */
    async consumeCodeAndRecordLogin(
      code: CodeKey,
      login: {
        newUserId: string;
        ip: string;
        at: Date;
        maxAttempts: number;
        log?: Omit<TenantLogRecord, 'user_id'>;
        verification?: SmsVerificationCount;
        accessToken?: Omit<StoredAccessToken, 'user_id'>;
        takeAttempt?: { clientId: string };
      },
    ): Promise<StoredUser | undefined> {
      const token = login.accessToken;
      const { rows } = await db.query<StoredUser>(
        `WITH consumed AS (
           UPDATE one_time_codes SET used = true, attempts = attempts + CASE WHEN $17::text IS NULL THEN 0 ELSE 1 END
           WHERE connection_id = $1 AND phone_number = $2 AND request_id = $3
             AND NOT used AND expires_at > $4
             AND ($17::text IS NULL OR client_id = $17) AND attempts + CASE WHEN $17::text IS NULL THEN 0 ELSE 1 END <= $5
           RETURNING connection_id, phone_number),
         cleared_ip AS (
           DELETE FROM login_failures_by_ip WHERE phone_number = $2 AND ip = $7 AND EXISTS (SELECT 1 FROM consumed)),
         cleared_phone AS (
           DELETE FROM login_failures_by_phone WHERE phone_number = $2 AND EXISTS (SELECT 1 FROM consumed)),
         login AS (
           INSERT INTO users (user_id, connection_id, phone_number, phone_verified, created_at, updated_at, last_login, logins_count)
           SELECT $6::text, connection_id, phone_number, true, $4::timestamptz, $4, $4, 1 FROM consumed
           ON CONFLICT (connection_id, phone_number) DO UPDATE SET
             phone_verified = true, last_login = $4, updated_at = $4, logins_count = users.logins_count + 1
           RETURNING *),
         logged AS (
           INSERT INTO tenant_logs (log_id, date, type, description, client_id, client_name, connection, connection_id, user_id, ip, user_agent, phone_number, details,
             phone_hash, phone_country, phone_prefix)
           SELECT r.log_id, r.date, r.type, r.description, r.client_id, r.client_name, r.connection, r.connection_id, login.user_id,
             r.ip, r.user_agent, r.phone_number, COALESCE(r.details, '{}'), r.phone_hash, r.phone_country, r.phone_prefix
           FROM login CROSS JOIN jsonb_to_record($8::jsonb) AS r(${TENANT_LOG_RECORD_TYPES})
           WHERE $8::jsonb IS NOT NULL),
         verified AS (
           INSERT INTO sms_prefix_counters (connection_id, prefix, window_start, verified)
           SELECT connection_id, $9::text, $10::timestamptz, 1 FROM consumed WHERE $9::text IS NOT NULL
           ${ON_VERIFIED}),
         expired_tokens AS (
           DELETE FROM access_tokens
           WHERE $11::text IS NOT NULL AND user_id IN (SELECT user_id FROM login) AND expires_at <= $14::timestamptz),
         issued_token AS (
           INSERT INTO access_tokens (token_hash, client_id, user_id, scope, created_at, expires_at, claims)
           SELECT $11::text, $12::text, login.user_id, $13::text, $14::timestamptz, $15::timestamptz, $16::text FROM login WHERE $11::text IS NOT NULL)
         SELECT login.*, c.name AS connection_name FROM login JOIN connections c ON c.id = login.connection_id`,
        [
          code.connection_id, code.phone_number, code.request_id, login.at, login.maxAttempts, login.newUserId, login.ip,
          recording && login.log ? JSON.stringify(writtenRecord(cipher, login.log)) : null,
          login.verification?.prefix ?? null, login.verification?.windowStart ?? null,
          token?.token_hash ?? null, token?.client_id ?? null, token?.scope ?? null, token?.created_at ?? null, token?.expires_at ?? null,
          token?.claims ?? null,
          login.takeAttempt?.clientId ?? null,
        ],
      );
      return rows[0];
    },
  };
}
