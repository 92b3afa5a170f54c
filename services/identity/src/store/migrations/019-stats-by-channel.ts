/**
 * The console's SMS figures by channel (issue 31): each count of migration 017's rollup also
 * keeps the channel that carried it (`sms`, `whatsapp`, `voice`; '' for what no code carried,
 * such as a passkey or single sign-on login), so conversion can be compared per channel.
 *
 * The rows counted so far have no channel, and a WhatsApp or voice code is indistinguishable
 * in them from an SMS, so they are emptied and the cursor goes back to the start: the rollup
 * counts the tenant log again, in its next runs, with the channel each record names. Until then
 * the figures stay exact (the records the rollup has not reached are counted from the log), only
 * slower. Figures of records older than the tenant log's retention at the time of the upgrade
 * are not counted again (the rollup came with migration 017, so its tables hold little more than the log).
 */
export const sql = `
ALTER TABLE tenant_log_counts_hourly ADD COLUMN channel text NOT NULL DEFAULT '';
ALTER TABLE tenant_log_counts_hourly DROP CONSTRAINT tenant_log_counts_hourly_pkey;
ALTER TABLE tenant_log_counts_hourly ADD PRIMARY KEY (hour, type, connection, country, prefix, reason, channel);

ALTER TABLE tenant_log_counts_hourly_by_country ADD COLUMN channel text NOT NULL DEFAULT '';
ALTER TABLE tenant_log_counts_hourly_by_country DROP CONSTRAINT tenant_log_counts_hourly_by_country_pkey;
ALTER TABLE tenant_log_counts_hourly_by_country ADD PRIMARY KEY (hour, type, connection, country, reason, channel);

ALTER TABLE tenant_log_counts_daily ADD COLUMN channel text NOT NULL DEFAULT '';
ALTER TABLE tenant_log_counts_daily DROP CONSTRAINT tenant_log_counts_daily_pkey;
ALTER TABLE tenant_log_counts_daily ADD PRIMARY KEY (day, type, connection, country, prefix, reason, channel);

TRUNCATE tenant_log_counts_hourly, tenant_log_counts_hourly_by_country, tenant_log_counts_daily;
UPDATE tenant_log_counts_cursor SET tx_id = '0', seq = 0;
`;
