/**
 * The console's SMS figures per provider (issue 46): the delivery gateway names the provider
 * that accepted each message (`SMS-Provider`), the code keeps it (`one_time_codes.provider`,
 * null: SMS by a gateway that named none, or not delivered yet) so its login can name it, and
 * each count of the rollup keeps it ('' for what no provider carried: refusals, passkey logins;
 * `unknown` for a code whose gateway named none).
 *
 * As migration 019 did for the channel: the rows counted so far have no provider, so they are
 * emptied and the rollup counts the tenant log again from the start; until it has, the figures
 * stay exact (counted from the log), only slower.
 */
export const sql = `
ALTER TABLE one_time_codes ADD COLUMN provider text;

ALTER TABLE tenant_log_counts_hourly ADD COLUMN provider text NOT NULL DEFAULT '';
ALTER TABLE tenant_log_counts_hourly DROP CONSTRAINT tenant_log_counts_hourly_pkey;
ALTER TABLE tenant_log_counts_hourly ADD PRIMARY KEY (hour, type, connection, country, prefix, reason, channel, provider);

ALTER TABLE tenant_log_counts_hourly_by_country ADD COLUMN provider text NOT NULL DEFAULT '';
ALTER TABLE tenant_log_counts_hourly_by_country DROP CONSTRAINT tenant_log_counts_hourly_by_country_pkey;
ALTER TABLE tenant_log_counts_hourly_by_country ADD PRIMARY KEY (hour, type, connection, country, reason, channel, provider);

ALTER TABLE tenant_log_counts_daily ADD COLUMN provider text NOT NULL DEFAULT '';
ALTER TABLE tenant_log_counts_daily DROP CONSTRAINT tenant_log_counts_daily_pkey;
ALTER TABLE tenant_log_counts_daily ADD PRIMARY KEY (day, type, connection, country, prefix, reason, channel, provider);

TRUNCATE tenant_log_counts_hourly, tenant_log_counts_hourly_by_country, tenant_log_counts_daily;
UPDATE tenant_log_counts_cursor SET tx_id = '0', seq = 0;
`;
