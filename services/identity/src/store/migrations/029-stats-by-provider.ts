/**
 * The console's SMS figures per provider (issue 46): the delivery gateway names the provider
 * that accepted each message (`SMS-Provider`), the code keeps it (`one_time_codes.provider`,
 * null: SMS by a gateway that named none, or not delivered yet) so its login can name it, and
 * each count of the rollup keeps it ('' for what no provider carried: refusals, passkey logins;
 * `unknown` for a code whose gateway named none).
 *
 * Expand only (docs/production.md, "Upgrades"): the counts with a provider go to new tables,
 * `tenant_log_rollup_*`, with a cursor of their own at the start of the log, so the rollup counts
 * the log again into them; until it has, the figures stay exact (counted from the log), only
 * slower. The `tenant_log_counts_*` tables are left as they are for the replicas of the previous
 * release, which keep rolling up into them during a rollout (a key with a provider would break
 * their ON CONFLICT); a later release drops them, saying so in its `contracts`.
 */
export const sql = `
ALTER TABLE one_time_codes ADD COLUMN provider text;

CREATE TABLE tenant_log_rollup_hourly (
  hour       timestamptz NOT NULL,
  type       text NOT NULL,
  connection text NOT NULL,
  country    text NOT NULL,
  prefix     text NOT NULL,
  reason     text NOT NULL,
  channel    text NOT NULL,
  provider   text NOT NULL,
  n          bigint NOT NULL,
  PRIMARY KEY (hour, type, connection, country, prefix, reason, channel, provider)
);

CREATE TABLE tenant_log_rollup_hourly_by_country (
  hour       timestamptz NOT NULL,
  type       text NOT NULL,
  connection text NOT NULL,
  country    text NOT NULL,
  reason     text NOT NULL,
  channel    text NOT NULL,
  provider   text NOT NULL,
  n          bigint NOT NULL,
  PRIMARY KEY (hour, type, connection, country, reason, channel, provider)
);

CREATE TABLE tenant_log_rollup_daily (
  day        timestamptz NOT NULL,
  type       text NOT NULL,
  connection text NOT NULL,
  country    text NOT NULL,
  prefix     text NOT NULL,
  reason     text NOT NULL,
  channel    text NOT NULL,
  provider   text NOT NULL,
  n          bigint NOT NULL,
  PRIMARY KEY (day, type, connection, country, prefix, reason, channel, provider)
);

CREATE TABLE tenant_log_rollup_cursor (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  tx_id    xid8 NOT NULL,
  seq      bigint NOT NULL
);
INSERT INTO tenant_log_rollup_cursor (tx_id, seq) VALUES ('0', 0);
`;
