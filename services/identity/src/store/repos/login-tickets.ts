import type { SqlExecutor } from '../sql-client';

/** A login ticket of `POST /co/authenticate` (migration 026): hashes only, never the ticket or verifier. */
export interface StoredLoginTicket {
  /** SHA-256 (hex) of the ticket. */
  ticket_hash: string;
  /** The public id the verifier is stored under in the browser (auth0-js `co/verifier/{origin}/{co_id}`). */
  co_id: string;
  /** SHA-256 (hex) of the verifier. */
  verifier_hash: string;
  client_id: string;
  /** The origin of the page that called /co/authenticate. */
  origin: string;
  connection_name: string;
  user_id: string;
  authenticated_at: Date;
  expires_at: Date;
  used_at: Date | null;
}

export function loginTicketsRepo(db: SqlExecutor) {
  return {
    /** Also drops expired tickets, so the table does not grow without bound. */
    async insert(ticket: Omit<StoredLoginTicket, 'used_at'>): Promise<void> {
      await db.query('DELETE FROM login_tickets WHERE expires_at <= $1', [ticket.authenticated_at]);
      await db.query(
        `INSERT INTO login_tickets (ticket_hash, co_id, verifier_hash, client_id, origin, connection_name, user_id, authenticated_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [
          ticket.ticket_hash,
          ticket.co_id,
          ticket.verifier_hash,
          ticket.client_id,
          ticket.origin,
          ticket.connection_name,
          ticket.user_id,
          ticket.authenticated_at,
          ticket.expires_at,
        ],
      );
    },

    /** The ticket, used or not (the caller tells a replay from an unknown ticket). */
    async find(ticketHash: string): Promise<StoredLoginTicket | undefined> {
      const { rows } = await db.query<StoredLoginTicket>('SELECT * FROM login_tickets WHERE ticket_hash = $1', [ticketHash]);
      return rows[0];
    },

    /**
     * Marks the ticket used, atomically: true for the one request that used it, false for every
     * other (a replay, a parallel request, an expired ticket).
     */
    async consume(ticketHash: string, now: Date): Promise<boolean> {
      const { rowCount } = await db.query('UPDATE login_tickets SET used_at = $2 WHERE ticket_hash = $1 AND used_at IS NULL AND expires_at > $2', [ticketHash, now]);
      return rowCount === 1;
    },
  };
}
