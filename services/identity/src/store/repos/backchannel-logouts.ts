import type { SqlExecutor } from '../sql-client';

/** One logout_token to deliver: a client to tell that a session it signed in to has ended. */
export interface StoredBackchannelLogout {
  id: string;
  client_id: string;
  /** The URL when the session ended; claimDue answers the client's current one (null: it has none any more). */
  url: string | null;
  user_id: string;
  session_id: string;
  /** Auth0's initiator name of what ended the session (rp-logout, session-revoked, ...). */
  initiator: string;
  /** Attempts made so far, the one being claimed included. */
  attempts: number;
  /** When the session ended: retries stop a configured time after it. */
  created_at: Date;
  next_attempt_at: Date;
  last_failure: string | null;
}

/**
 * How a login session ended, by Auth0's back-channel logout initiator names: which clients are
 * told depends on their oidc_logout.backchannel_logout_initiators.
 */
export type SessionEndReason = 'rp-logout' | 'session-revoked' | 'session-expired' | 'account-deleted' | 'account-deactivated';

/**
 * The INSERT that queues a logout_token for every client that the sessions in CTE `ended`
 * signed in to, that registered a back-channel URL and that wants this reason (mode `all`,
 * or RP-initiated logout, which custom mode always includes, or a selected initiator).
 * `$reason` and `$at` are the parameter placeholders to use.
 */
export function queueForEndedSessions(reason: string, at: string): string {
  return `INSERT INTO backchannel_logouts (client_id, url, user_id, session_id, initiator, created_at, next_attempt_at)
    SELECT c.client_id, c.oidc_logout->'backchannel_logout_urls'->>0, ended.user_id, ended.id, ${reason}::text, ${at}, ${at}
    FROM ended CROSS JOIN LATERAL jsonb_array_elements_text(ended.client_ids) AS signed(client_id)
    JOIN clients c ON c.client_id = signed.client_id
    WHERE c.oidc_logout->'backchannel_logout_urls'->>0 IS NOT NULL
      AND (c.oidc_logout->'backchannel_logout_initiators'->>'mode' = 'all'
        OR ${reason}::text IN ('rp-logout', 'idp-logout')
        OR COALESCE(c.oidc_logout->'backchannel_logout_initiators'->'selected_initiators', '[]'::jsonb) ? ${reason}::text)`;
}

/** Pending back-channel logout notifications (migration 025), claimed one replica at a time per row. */
export function backchannelLogoutsRepo(db: SqlExecutor) {
  return {
    /**
     * Up to `limit` rows due at `now`, claimed until `leaseUntil`: their next attempt moves
     * there and their attempt count goes up, in one statement whose row locks (FOR UPDATE
     * SKIP LOCKED) keep two replicas from claiming the same row. A replica that dies
     * mid-delivery leaves the row due again at `leaseUntil`. The URL is the client's current
     * one (a URL corrected after failures gets the retries), null when it registered none since.
     */
    async claimDue(now: Date, leaseUntil: Date, limit: number): Promise<StoredBackchannelLogout[]> {
      const { rows } = await db.query<StoredBackchannelLogout>(
        `WITH due AS (
           SELECT id FROM backchannel_logouts WHERE next_attempt_at <= $1
           ORDER BY next_attempt_at, id LIMIT $3 FOR UPDATE SKIP LOCKED
         )
         UPDATE backchannel_logouts b SET next_attempt_at = $2, attempts = b.attempts + 1
         FROM due, clients c WHERE b.id = due.id AND c.client_id = b.client_id
         RETURNING b.id::text AS id, b.client_id, c.oidc_logout->'backchannel_logout_urls'->>0 AS url, b.user_id, b.session_id, b.initiator, b.attempts, b.created_at, b.next_attempt_at, b.last_failure`,
        [now, leaseUntil, limit],
      );
      return rows;
    },

    /**
     * Delivered, or given up: the row goes. Only while the claim of attempt `attempts` still
     * holds (a replica whose claim expired and was taken over leaves the row to the new holder).
     */
    async remove(id: string, attempts: number): Promise<void> {
      await db.query('DELETE FROM backchannel_logouts WHERE id = $1 AND attempts = $2', [id, attempts]);
    },

    /** A failed attempt, to be tried again at `nextAttemptAt` (under the same claim rule as remove). */
    async reschedule(id: string, attempts: number, nextAttemptAt: Date, failure: string): Promise<void> {
      await db.query('UPDATE backchannel_logouts SET next_attempt_at = $3, last_failure = $4 WHERE id = $1 AND attempts = $2', [id, attempts, nextAttemptAt, failure]);
    },

    /** Notifications waiting (tests, the metrics). */
    async pending(): Promise<StoredBackchannelLogout[]> {
      const { rows } = await db.query<StoredBackchannelLogout>(
        `SELECT id::text AS id, client_id, url, user_id, session_id, initiator, attempts, created_at, next_attempt_at, last_failure
         FROM backchannel_logouts ORDER BY id`,
      );
      return rows;
    },
  };
}
