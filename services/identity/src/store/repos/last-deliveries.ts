import type { SqlExecutor } from '../sql-client';

/** The last code delivered to a number of a connection (migration 015). */
export interface StoredLastDelivery {
  channel: string;
  /** The gateway's `SMS-Message-Id`, when it answered one. */
  gateway_message_id: string | null;
  sent_at: Date;
}

/** Per connection and number, the channel and gateway message of the last code delivered. */
export function lastDeliveriesRepo(db: SqlExecutor) {
  return {
    /** The last delivery sent at or after `since`, if any. */
    async find(connectionId: string, phoneNumber: string, since: Date): Promise<StoredLastDelivery | undefined> {
      const { rows } = await db.query<StoredLastDelivery>(
        'SELECT channel, gateway_message_id, sent_at FROM passwordless_last_deliveries WHERE connection_id = $1 AND phone_number = $2 AND sent_at >= $3',
        [connectionId, phoneNumber, since],
      );
      return rows[0];
    },

    /** Replaces the number's last delivery; also drops rows older than `expiredBefore` (at most a few per call). */
    async record(connectionId: string, phoneNumber: string, delivery: StoredLastDelivery, expiredBefore: Date): Promise<void> {
      await db.query(
        `WITH expired AS (
           DELETE FROM passwordless_last_deliveries
            WHERE ctid IN (SELECT ctid FROM passwordless_last_deliveries WHERE sent_at < $6 LIMIT 10))
         INSERT INTO passwordless_last_deliveries (connection_id, phone_number, channel, gateway_message_id, sent_at)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (connection_id, phone_number)
         DO UPDATE SET channel = EXCLUDED.channel, gateway_message_id = EXCLUDED.gateway_message_id, sent_at = EXCLUDED.sent_at`,
        [connectionId, phoneNumber, delivery.channel, delivery.gateway_message_id, delivery.sent_at, expiredBefore],
      );
    },
  };
}
