/**
 * SMS fraud guard (domain/sms-policy): sends and verifications counted per connection,
 * number prefix and fixed window, and the prefixes it blocked, with their expiry. In the
 * database so every replica counts the same starts and honours the same blocks. Velocity
 * limits per country and prefix reuse rate_limit_counters.
 */
export const sql = `
CREATE TABLE sms_prefix_counters (
  connection_id text NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
  prefix        text NOT NULL,
  window_start  timestamptz NOT NULL,
  sends         integer NOT NULL DEFAULT 0,
  verified      integer NOT NULL DEFAULT 0,
  PRIMARY KEY (connection_id, prefix, window_start)
);

CREATE TABLE sms_fraud_blocks (
  connection_id text NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
  prefix        text NOT NULL,
  blocked_until timestamptz NOT NULL,
  created_at    timestamptz NOT NULL,
  sends         integer NOT NULL,
  verified      integer NOT NULL,
  PRIMARY KEY (connection_id, prefix)
);
`;
