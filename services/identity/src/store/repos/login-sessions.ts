import type { SqlExecutor } from '../sql-client';
import { queueForEndedSessions, type SessionEndReason } from './backchannel-logouts';

/** A session just ended: who it was and the clients it signed in to (what logout notifications need). */
export interface EndedLoginSession {
  id: string;
  user_id: string;
  client_ids: string[];
}

export interface StoredLoginSession {
  /** Public id (`sid` claim, management API); the cookie holds a separate secret. */
  id: string;
  /** SHA-256 (hex) of the cookie's secret. */
  secret_hash: string;
  user_id: string;
  connection_name: string;
  /** The clients the session signed in to, first one first. */
  client_ids: string[];
  initial_ip: string | null;
  initial_user_agent: string | null;
  authenticated_at: Date;
  created_at: Date;
  updated_at: Date;
  /** Moves forward with each use, never past expires_at. */
  idle_expires_at: Date;
  expires_at: Date;
}

/** Login sessions of the hosted login (migration 012). */
export function loginSessionsRepo(db: SqlExecutor) {
  /**
   * Deletes the sessions `condition` (over $1) selects and, in the same statement, queues the
   * back-channel logout notifications their clients asked for ($2: the reason, $3: when).
   */
  const end = async (condition: string, value: unknown, reason: SessionEndReason, at: Date): Promise<EndedLoginSession[]> => {
    const { rows } = await db.query<EndedLoginSession>(
      `WITH ended AS (DELETE FROM login_sessions WHERE ${condition} RETURNING id, user_id, client_ids),
            queued AS (${queueForEndedSessions('$2', '$3')} RETURNING 1)
       SELECT id, user_id, client_ids FROM ended`,
      [value, reason, at],
    );
    return rows;
  };

  return {
    /**
     * Also drops sessions that ended, so the table does not grow without bound (their clients
     * are told, as `session-expired`, if they asked to be).
     */
    async insert(session: StoredLoginSession): Promise<void> {
      await end('expires_at <= $1 OR idle_expires_at <= $1', session.created_at, 'session-expired', session.created_at);
      await db.query(
        `INSERT INTO login_sessions (id, secret_hash, user_id, connection_name, client_ids, initial_ip, initial_user_agent,
           authenticated_at, created_at, updated_at, idle_expires_at, expires_at)
         VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8, $9, $10, $11, $12)`,
        [
          session.id,
          session.secret_hash,
          session.user_id,
          session.connection_name,
          JSON.stringify(session.client_ids),
          session.initial_ip,
          session.initial_user_agent,
          session.authenticated_at,
          session.created_at,
          session.updated_at,
          session.idle_expires_at,
          session.expires_at,
        ],
      );
    },

    /** The session whose cookie secret hashes to `secretHash`, when it is live at `now`. */
    async findLiveBySecret(secretHash: string, now: Date): Promise<StoredLoginSession | undefined> {
      const { rows } = await db.query<StoredLoginSession>(
        'SELECT * FROM login_sessions WHERE secret_hash = $1 AND expires_at > $2 AND idle_expires_at > $2',
        [secretHash, now],
      );
      return rows[0];
    },

    /** Records a use: the idle expiry moves to `idleExpiresAt` and `clientId` joins the list. */
    async touch(id: string, now: Date, idleExpiresAt: Date, clientId: string): Promise<void> {
      await db.query(
        `UPDATE login_sessions SET updated_at = $2, idle_expires_at = LEAST($3, expires_at),
           client_ids = CASE WHEN client_ids ? $4 THEN client_ids ELSE client_ids || jsonb_build_array($4::text) END
         WHERE id = $1`,
        [id, now, idleExpiresAt, clientId],
      );
    },

    async findById(id: string): Promise<StoredLoginSession | undefined> {
      const { rows } = await db.query<StoredLoginSession>('SELECT * FROM login_sessions WHERE id = $1', [id]);
      return rows[0];
    },

    /** A user's live sessions, newest first. */
    async listLiveForUser(userId: string, now: Date): Promise<StoredLoginSession[]> {
      const { rows } = await db.query<StoredLoginSession>(
        'SELECT * FROM login_sessions WHERE user_id = $1 AND expires_at > $2 AND idle_expires_at > $2 ORDER BY created_at DESC, id',
        [userId, now],
      );
      return rows;
    },

    /** Ends one session (its clients' back-channel logouts queued for `reason`); the session, when it existed. */
    async delete(id: string, reason: SessionEndReason, at: Date): Promise<EndedLoginSession | undefined> {
      return (await end('id = $1', id, reason, at))[0];
    },

    /** Ends every session of a user (their clients' back-channel logouts queued for `reason`); the sessions there were. */
    async deleteForUser(userId: string, reason: SessionEndReason, at: Date): Promise<EndedLoginSession[]> {
      return end('user_id = $1', userId, reason, at);
    },
  };
}
