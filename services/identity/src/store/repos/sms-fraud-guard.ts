import type { SqlExecutor } from '../sql-client';

export interface SmsPrefixCount {
  sends: number;
  verified: number;
}

/** One send to count for the fraud guard (countSend). */
export interface SmsSend {
  connectionId: string;
  prefix: string;
  windowStart: Date;
  now: Date;
  /** False in monitor mode: a block never refuses. */
  honourBlocks: boolean;
}

/** What counting a send found: the prefix's block (nothing counted), or the window's counts with this send. */
export type SmsSendCounted = { blockedUntil: Date } | { blockedUntil: null; counts: SmsPrefixCount };

export interface SendCountRow {
  blocked_until: Date | null;
  sends: number | null;
  verified: number | null;
}

/**
 * countSend's CTEs `block` and `counted`, its parameters (sendCountParameters) numbered from
 * `$first`, reading and counting only where the SQL condition `gate` holds (a statement that
 * counts the send together with something that may refuse it first).
 */
export function sendCountCtes(first: number, gate = 'true'): string {
  const [connection, prefix, windowStart, now, honour] = [0, 1, 2, 3, 4].map((i) => `$${first + i}`);
  return `
  block AS (
    SELECT blocked_until FROM sms_fraud_blocks
    WHERE ${honour}::boolean AND connection_id = ${connection}::text AND prefix = ${prefix}::text AND blocked_until > ${now}::timestamptz AND ${gate}),
  counted AS (
    INSERT INTO sms_prefix_counters (connection_id, prefix, window_start, sends)
    SELECT ${connection}::text, ${prefix}::text, ${windowStart}::timestamptz, 1 WHERE ${gate} AND NOT EXISTS (SELECT 1 FROM block)
    ON CONFLICT (connection_id, prefix, window_start) DO UPDATE SET sends = sms_prefix_counters.sends + 1
    RETURNING sends, verified)`;
}

/** The columns of a SendCountRow, from sendCountCtes. */
export const SEND_COUNT_COLUMNS = `(SELECT blocked_until FROM block) AS blocked_until,
  (SELECT sends FROM counted) AS sends, (SELECT verified FROM counted) AS verified`;

export function sendCountParameters(send: SmsSend): unknown[] {
  return [send.connectionId, send.prefix, send.windowStart, send.now, send.honourBlocks];
}

export function sendCountedOf(row: SendCountRow): SmsSendCounted {
  if (row.blocked_until) return { blockedUntil: new Date(row.blocked_until) };
  return { blockedUntil: null, counts: { sends: row.sends ?? 0, verified: row.verified ?? 0 } };
}

/** A verified code to count for its prefix, in the window starting at `windowStart`. */
export interface SmsVerificationCount {
  prefix: string;
  windowStart: Date;
}

/** Counts one verification on an INSERT of (connection_id, prefix, window_start, verified = 1): passwordlessLogins counts it with the login. */
export const ON_VERIFIED = 'ON CONFLICT (connection_id, prefix, window_start) DO UPDATE SET verified = sms_prefix_counters.verified + 1';

export interface StoredSmsFraudBlock {
  prefix: string;
  blocked_until: Date;
  created_at: Date;
  sends: number;
  verified: number;
}

/**
 * Sends and verifications per connection, number prefix and fixed window, and the prefixes
 * the fraud guard blocked. Single statements: parallel starts on any replica never lose a count.
 */
export function smsFraudGuardRepo(db: SqlExecutor) {
  return {
    /**
     * Unless the prefix is blocked at `send.now` (and `honourBlocks`: monitor mode never refuses), counts one send in the window starting at
     * `windowStart`; returns the block's expiry (nothing counted) or the window's counts.
     */
    async countSend(send: SmsSend): Promise<SmsSendCounted> {
      const { rows } = await db.query<SendCountRow>(
        `WITH ${sendCountCtes(1)} SELECT ${SEND_COUNT_COLUMNS}`,
        sendCountParameters(send),
      );
      return sendCountedOf(rows[0]!);
    },

    /**
     * Sets (or extends) a block holding the window's counts (less the send countSend counted
     * for the start it refuses) and forgets the counts: when the block ends the prefix starts
     * afresh instead of being blocked again on the same evidence.
     */
    async block(
      connectionId: string,
      prefix: string,
      window: { windowStart: Date; counts: SmsPrefixCount },
      now: Date,
      blockedUntil: Date,
    ): Promise<void> {
      await db.query(
        `WITH forgotten AS (
           DELETE FROM sms_prefix_counters WHERE connection_id = $1 AND prefix = $2 AND window_start <= $3)
         INSERT INTO sms_fraud_blocks (connection_id, prefix, blocked_until, created_at, sends, verified)
         VALUES ($1, $2, $5, $4, $6, $7)
         ON CONFLICT (connection_id, prefix) DO UPDATE SET
           blocked_until = GREATEST(EXCLUDED.blocked_until, sms_fraud_blocks.blocked_until),
           created_at = CASE WHEN sms_fraud_blocks.blocked_until <= EXCLUDED.created_at
                             THEN EXCLUDED.created_at ELSE sms_fraud_blocks.created_at END,
           sends = EXCLUDED.sends, verified = EXCLUDED.verified`,
        [connectionId, prefix, window.windowStart, now, blockedUntil, window.counts.sends - 1, window.counts.verified],
      );
    },

    /** Blocks in force at `now`, soonest expiry first. */
    async activeBlocks(connectionId: string, now: Date): Promise<StoredSmsFraudBlock[]> {
      const { rows } = await db.query<StoredSmsFraudBlock>(
        `SELECT prefix, blocked_until, created_at, sends, verified FROM sms_fraud_blocks
         WHERE connection_id = $1 AND blocked_until > $2 ORDER BY blocked_until, prefix`,
        [connectionId, now],
      );
      return rows.map((row) => ({ ...row, blocked_until: new Date(row.blocked_until), created_at: new Date(row.created_at) }));
    },

    /**
     * Lifts a block in force and forgets the prefix's counts (else its next start would block it
     * again at once). False when no block was in force.
     */
    async lift(connectionId: string, prefix: string, now: Date): Promise<boolean> {
      const { rows } = await db.query<{ lifted: boolean }>(
        `WITH lifted AS (
           DELETE FROM sms_fraud_blocks WHERE connection_id = $1 AND prefix = $2 RETURNING blocked_until),
         forgotten AS (
           DELETE FROM sms_prefix_counters WHERE connection_id = $1 AND prefix = $2 AND EXISTS (SELECT 1 FROM lifted))
         SELECT EXISTS (SELECT 1 FROM lifted WHERE blocked_until > $3) AS lifted`,
        [connectionId, prefix, now],
      );
      return rows[0]!.lifted;
    },
  };
}
