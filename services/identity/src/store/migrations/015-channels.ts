/**
 * Delivery channels (issue 31).
 *
 * - authorize_transactions.code_channel: the channel that carried the hosted login's last code
 *   (sms, whatsapp, voice), so its code page says how the code came; null before a code was sent
 *   (and for transactions from before this migration: their page says "SMS", as it did).
 * - one_time_codes.channel: the channel that carried the code when it was not SMS (null: SMS,
 *   and every code from before), so sms_verified_total counts verified codes by channel.
 * - passwordless_last_deliveries: per connection and number, the channel and the gateway's
 *   message id of the last code delivered; the next start asks the gateway for that message's
 *   status and, when a receipt said it was undelivered, tries the next channel first.
 */
export const sql = `
ALTER TABLE authorize_transactions ADD COLUMN code_channel text;
ALTER TABLE one_time_codes ADD COLUMN channel text;

CREATE TABLE passwordless_last_deliveries (
  connection_id      text NOT NULL,
  phone_number       text NOT NULL,
  channel            text NOT NULL,
  gateway_message_id text,
  sent_at            timestamptz NOT NULL,
  PRIMARY KEY (connection_id, phone_number)
);
CREATE INDEX passwordless_last_deliveries_sent_at ON passwordless_last_deliveries (sent_at);
`;
