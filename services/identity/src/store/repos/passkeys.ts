import type { SqlExecutor } from '../sql-client';

export interface StoredPasskey {
  /** The credential id, base64url. */
  id: string;
  user_id: string;
  /** The WebAuthn user handle (base64url) the passkey was registered with. */
  user_handle: string;
  /** The COSE public key, base64url. */
  public_key: string;
  counter: number;
  transports: string[];
  aaguid: string;
  device_type: 'singleDevice' | 'multiDevice';
  backed_up: boolean;
  rp_id: string;
  user_agent: string | null;
  created_at: Date;
  last_used_at: Date | null;
}

export interface StoredWebAuthnChallenge {
  challenge: string;
  transaction_id: string;
  purpose: 'registration' | 'authentication';
  /** Registration: the user the passkey is for. */
  user_id: string | null;
  created_at: Date;
  expires_at: Date;
}

export interface StoredPendingOffer {
  transaction_id: string;
  user_id: string;
  session_id: string;
  created_at: Date;
  expires_at: Date;
}

type PasskeyRow = Omit<StoredPasskey, 'counter'> & { counter: string | number };

const fromRow = (row: PasskeyRow): StoredPasskey => ({ ...row, counter: Number(row.counter) });

/** Passkeys, their challenges and the offer's state (migration 014). */
export function passkeysRepo(db: SqlExecutor) {
  return {
    /** The user's handle, made from `candidate` the first time (concurrent calls agree on one). */
    async userHandle(userId: string, candidate: string): Promise<string> {
      await db.query('INSERT INTO passkey_user_handles (user_id, user_handle) VALUES ($1, $2) ON CONFLICT (user_id) DO NOTHING', [userId, candidate]);
      const { rows } = await db.query<{ user_handle: string }>('SELECT user_handle FROM passkey_user_handles WHERE user_id = $1', [userId]);
      return rows[0]!.user_handle;
    },

    async insert(passkey: StoredPasskey): Promise<void> {
      await db.query(
        `INSERT INTO passkey_credentials (id, user_id, user_handle, public_key, counter, transports, aaguid, device_type, backed_up,
           rp_id, user_agent, created_at, last_used_at)
         VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10, $11, $12, $13)`,
        [
          passkey.id,
          passkey.user_id,
          passkey.user_handle,
          passkey.public_key,
          passkey.counter,
          JSON.stringify(passkey.transports),
          passkey.aaguid,
          passkey.device_type,
          passkey.backed_up,
          passkey.rp_id,
          passkey.user_agent,
          passkey.created_at,
          passkey.last_used_at,
        ],
      );
    },

    async findById(id: string): Promise<StoredPasskey | undefined> {
      const { rows } = await db.query<PasskeyRow>('SELECT * FROM passkey_credentials WHERE id = $1', [id]);
      return rows[0] ? fromRow(rows[0]) : undefined;
    },

    /** A user's passkeys, oldest first. */
    async listForUser(userId: string): Promise<StoredPasskey[]> {
      const { rows } = await db.query<PasskeyRow>('SELECT * FROM passkey_credentials WHERE user_id = $1 ORDER BY created_at, id', [userId]);
      return rows.map(fromRow);
    },

    /**
     * Records a sign-in: the new counter and the time. Only when the stored counter is still
     * `expectedCounter`, so of two concurrent uses of one assertion only one wins.
     */
    async recordUse(id: string, expectedCounter: number, newCounter: number, at: Date): Promise<boolean> {
      const { rowCount } = await db.query(
        'UPDATE passkey_credentials SET counter = $3, last_used_at = $4 WHERE id = $1 AND counter = $2',
        [id, expectedCounter, newCounter, at],
      );
      return rowCount > 0;
    },

    /** A sign-in with a passkey, on the user as an SMS login would record it. */
    async recordUserLogin(userId: string, at: Date): Promise<void> {
      await db.query('UPDATE users SET last_login = $2, updated_at = $2, logins_count = logins_count + 1 WHERE user_id = $1', [userId, at]);
    },

    /** Deletes one passkey of a user; true when it existed. */
    async delete(userId: string, id: string): Promise<boolean> {
      const { rowCount } = await db.query('DELETE FROM passkey_credentials WHERE user_id = $1 AND id = $2', [userId, id]);
      return rowCount > 0;
    },

    /** Stores a ceremony's challenge; also drops expired ones, so the table does not grow. */
    async insertChallenge(challenge: StoredWebAuthnChallenge): Promise<void> {
      await db.query('DELETE FROM webauthn_challenges WHERE expires_at <= $1', [challenge.created_at]);
      await db.query(
        `INSERT INTO webauthn_challenges (challenge, transaction_id, purpose, user_id, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [challenge.challenge, challenge.transaction_id, challenge.purpose, challenge.user_id, challenge.created_at, challenge.expires_at],
      );
    },

    /** Deletes and returns a live challenge of the transaction: the one caller that gets it may use it. */
    async consumeChallenge(
      challenge: string,
      transactionId: string,
      purpose: StoredWebAuthnChallenge['purpose'],
      now: Date,
    ): Promise<StoredWebAuthnChallenge | undefined> {
      const { rows } = await db.query<StoredWebAuthnChallenge>(
        `DELETE FROM webauthn_challenges WHERE challenge = $1 AND transaction_id = $2 AND purpose = $3 RETURNING *`,
        [challenge, transactionId, purpose],
      );
      const row = rows[0];
      return row && row.expires_at > now ? row : undefined;
    },

    /** SMS logins left before the offer comes back (0: none, offer now). */
    async smsLoginsLeftBeforeOffer(userId: string): Promise<number> {
      const { rows } = await db.query<{ sms_logins_left: number }>('SELECT sms_logins_left FROM passkey_offer_snoozes WHERE user_id = $1', [userId]);
      return rows[0]?.sms_logins_left ?? 0;
    },

    /** Counts one SMS login against the snooze. */
    async countSmsLoginAgainstSnooze(userId: string, at: Date): Promise<void> {
      await db.query(
        'UPDATE passkey_offer_snoozes SET sms_logins_left = GREATEST(sms_logins_left - 1, 0), updated_at = $2 WHERE user_id = $1',
        [userId, at],
      );
    },

    /** "Not now": the offer skips the next `smsLogins` SMS logins. */
    async snoozeOffer(userId: string, smsLogins: number, at: Date): Promise<void> {
      await db.query(
        `INSERT INTO passkey_offer_snoozes (user_id, sms_logins_left, updated_at) VALUES ($1, $2, $3)
         ON CONFLICT (user_id) DO UPDATE SET sms_logins_left = EXCLUDED.sms_logins_left, updated_at = EXCLUDED.updated_at`,
        [userId, smsLogins, at],
      );
    },

    async insertPendingOffer(offer: StoredPendingOffer): Promise<void> {
      await db.query('DELETE FROM passkey_pending_offers WHERE expires_at <= $1', [offer.created_at]);
      await db.query(
        `INSERT INTO passkey_pending_offers (transaction_id, user_id, session_id, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)`,
        [offer.transaction_id, offer.user_id, offer.session_id, offer.created_at, offer.expires_at],
      );
    },

    async findPendingOffer(transactionId: string, now: Date): Promise<StoredPendingOffer | undefined> {
      const { rows } = await db.query<StoredPendingOffer>(
        'SELECT * FROM passkey_pending_offers WHERE transaction_id = $1 AND expires_at > $2',
        [transactionId, now],
      );
      return rows[0];
    },

    /** Ends the offer; true for the one caller that deleted it (the flow continues once). */
    async deletePendingOffer(transactionId: string): Promise<boolean> {
      const { rowCount } = await db.query('DELETE FROM passkey_pending_offers WHERE transaction_id = $1', [transactionId]);
      return rowCount > 0;
    },
  };
}
