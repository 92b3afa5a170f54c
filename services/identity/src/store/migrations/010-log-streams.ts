/**
 * Log streams: each pushes tenant_logs (migration 009) to an operator's HTTP endpoint.
 *
 * - cursor (cursor_tx_id, cursor_seq): the last delivered record, in the stream order
 *   (tx_id, seq). Delivery reads only records whose transaction is older than every open one
 *   (tx_id < pg_snapshot_xmin(pg_current_snapshot())): that set can no longer grow, so a
 *   record committed late by a transaction that numbered it early is never skipped. Ordering
 *   by seq alone could skip it: a transaction holding an old xid can take seq 11 and commit
 *   while a younger one still holds seq 10.
 * - lease_token / lease_expires_at: the replica delivering the stream's next batch; another
 *   replica takes over once the lease has expired (the holder died). The cursor only moves
 *   under the lease token that read the batch.
 * - http_authorization, signing_secret: sealed with the store's SecretCipher.
 */
export const sql = `
CREATE TABLE log_streams (
  id                   text PRIMARY KEY,
  name                 text NOT NULL,
  type                 text NOT NULL DEFAULT 'http' CHECK (type = 'http'),
  status               text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused', 'suspended')),
  sink                 jsonb NOT NULL,
  http_authorization   text,
  signing_secret       text NOT NULL,
  cursor_tx_id         xid8 NOT NULL,
  cursor_seq           bigint NOT NULL,
  consecutive_failures integer NOT NULL DEFAULT 0,
  next_attempt_at      timestamptz,
  last_delivered_at    timestamptz,
  last_failure_at      timestamptz,
  last_failure_reason  text,
  suspended_reason     text,
  lease_token          text,
  lease_expires_at     timestamptz,
  created_at           timestamptz NOT NULL DEFAULT now(),
  updated_at           timestamptz NOT NULL DEFAULT now()
);

-- The order streams read tenant_logs in.
CREATE INDEX tenant_logs_stream_order ON tenant_logs (tx_id, seq);
`;
