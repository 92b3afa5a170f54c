/**
 * Tenant logs: one row per security-relevant event (code sent, login, block, management write,
 * key rotation...), written in the transaction of the change it records, read by
 * GET /api/v2/logs and delivered by log streams.
 *
 * - (tx_id, seq): the order readers follow (log streams' cursors, the checkpoint `from`); they
 *   read only rows whose transaction is older than every open one, so a row committed late
 *   never slips behind a cursor already past it (seq alone could: migration 010's comment).
 * - phone_number: masked, never the full number; details never hold a code, secret or token.
 */
export const sql = `
CREATE TABLE tenant_logs (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  tx_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
  log_id text NOT NULL UNIQUE,
  date timestamptz NOT NULL,
  type text NOT NULL,
  description text NOT NULL DEFAULT '',
  client_id text, client_name text, connection text, connection_id text,
  user_id text, ip text, user_agent text,
  phone_number text,
  details jsonb NOT NULL DEFAULT '{}'::jsonb
);

-- GET /api/v2/logs newest first (sort=date:-1, the default) and date ranges; retention prunes
-- the oldest dates through it too.
CREATE INDEX tenant_logs_date_seq ON tenant_logs (date, seq);
-- GET /api/v2/users/{id}/logs and q=user_id:...
CREATE INDEX tenant_logs_user_id_date ON tenant_logs (user_id, date, seq) WHERE user_id IS NOT NULL;
`;
