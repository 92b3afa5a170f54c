/**
 * Figures for the operator console and a login's timeline by number (issue 30).
 *
 * - tenant_logs.phone_hash: a keyed hash (HMAC-SHA-256, key from KEY_ENCRYPTION_SECRET) of the
 *   full number an event is about, so `q=phone_number:"+1..."` finds the events of a number that
 *   never became a user, while the record itself keeps only the masked number. phone_country
 *   and phone_prefix (the calling code and the next three digits, as the fraud guard counts by
 *   default) are what the SMS figures group by. Records from before this migration have none.
 * - tenant_log_counts_hourly: the records that feed the figures (codes sent, logins, start
 *   refusals, failed deliveries), counted per hour (and per hour without the prefix, and per UTC
 *   day: tenant_log_counts_hourly_by_country, tenant_log_counts_daily), connection, country,
 *   prefix and reason by a
 *   rollup that follows the log in stream order (tenant_log_counts_cursor, the (tx_id, seq) of
 *   the last record counted; only transactions older than every open one, as log streams read),
 *   so a month of a busy tenant is summed from a few thousand rows and the tenant log's
 *   retention does not erase the figures. Records not yet rolled up are counted from the log.
 */
export const sql = `
ALTER TABLE tenant_logs
  ADD COLUMN phone_hash text,
  ADD COLUMN phone_country text,
  ADD COLUMN phone_prefix text;
CREATE INDEX tenant_logs_phone_hash_date ON tenant_logs (phone_hash, date, seq) WHERE phone_hash IS NOT NULL;

CREATE TABLE tenant_log_counts_hourly (
  hour       timestamptz NOT NULL,
  type       text NOT NULL,
  connection text NOT NULL,
  country    text NOT NULL,
  prefix     text NOT NULL,
  reason     text NOT NULL,
  n          bigint NOT NULL,
  PRIMARY KEY (hour, type, connection, country, prefix, reason)
);

-- The same counts per hour without the prefix: what a chart by hour per country or connection sums
-- (a prefix is one of hundreds in a country).
CREATE TABLE tenant_log_counts_hourly_by_country (
  hour       timestamptz NOT NULL,
  type       text NOT NULL,
  connection text NOT NULL,
  country    text NOT NULL,
  reason     text NOT NULL,
  n          bigint NOT NULL,
  PRIMARY KEY (hour, type, connection, country, reason)
);

-- The same counts per UTC day: what a month by day sums (24 times fewer rows than by hour).
CREATE TABLE tenant_log_counts_daily (
  day        timestamptz NOT NULL,
  type       text NOT NULL,
  connection text NOT NULL,
  country    text NOT NULL,
  prefix     text NOT NULL,
  reason     text NOT NULL,
  n          bigint NOT NULL,
  PRIMARY KEY (day, type, connection, country, prefix, reason)
);

CREATE TABLE tenant_log_counts_cursor (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  tx_id    xid8 NOT NULL,
  seq      bigint NOT NULL
);
INSERT INTO tenant_log_counts_cursor (tx_id, seq) VALUES ('0', 0);
`;
