/**
 * `POST /passwordless/start` with an `Idempotency-Key`: one row per client and key, written in
 * the start's write-ahead statement (with its code and its `cs` record) and given the start's
 * answer once the delivery is settled. A retry with the key finds it: answered (`response`) it
 * gets that answer and nothing is sent; unsettled (a replica died, or the gateway was away) it
 * delivers the same code again under the same gateway Idempotency-Key (`start_id`).
 */
export const sql = `
CREATE TABLE passwordless_start_keys (
  client_id text NOT NULL,
  idempotency_key text NOT NULL,
  fingerprint text NOT NULL,
  start_id text NOT NULL,
  log_id text,
  response jsonb,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (client_id, idempotency_key)
);
CREATE INDEX passwordless_start_keys_expires_at ON passwordless_start_keys (expires_at);
`;
