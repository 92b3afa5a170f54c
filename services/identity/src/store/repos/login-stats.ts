import type { SqlExecutor } from '../sql-client';

/** The tenant log types the figures count (migration 017). */
export const COUNTED_LOG_TYPES = ['cs', 's', 'fn', 'api_limit', 'fs', 'sms_start_refused', 'sms_start_blocked_user'] as const;

/**
 * Why a counted record counts where it does: a code sent to a test number (not an SMS), the path
 * of a login (`via`: passkey logins are no SMS verifications), or the refusal's reason.
 */
const REASON = `CASE t.type
    WHEN 'cs' THEN CASE WHEN t.details->>'delivery' = 'test_number' THEN 'test_number' ELSE '' END
    WHEN 's' THEN COALESCE(t.details->>'via', '')
    WHEN 'sms_start_refused' THEN COALESCE(t.details->>'refusal', 'sms_policy')
    WHEN 'api_limit' THEN 'rate_limit'
    WHEN 'fs' THEN 'signup_disabled'
    WHEN 'fn' THEN 'delivery_failed'
    WHEN 'sms_start_blocked_user' THEN 'blocked_user'
    ELSE '' END`;

/**
 * The channel that carried the code a record is about (migration 019): what the record names,
 * SMS when it names none (records from before channels, and logins by an SMS code, whose records
 * name only another channel); '' for a login no code carried (a passkey, single sign-on).
 */
const CHANNEL = `CASE WHEN t.type = 's' AND t.details->>'via' IN ('passkey', 'single-sign-on', 'silent-auth') THEN ''
    ELSE COALESCE(t.details->>'channel', 'sms') END`;

/**
 * The provider that carried the code a record is about (migration 029): a code sent (`cs`) or
 * a login by a code (`s`) names it (`unknown` when the gateway named none); '' for the rest
 * (refusals, a login no code carried).
 */
const PROVIDER = `CASE WHEN t.type IN ('cs', 's') AND (${CHANNEL}) <> '' THEN COALESCE(NULLIF(t.details->>'provider', ''), 'unknown') ELSE '' END`;

const HOUR = `date_trunc('hour', t.date AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'`;
const COUNTED_COLUMNS = `${HOUR} AS hour, t.type, COALESCE(t.connection, '') AS connection, COALESCE(t.phone_country, '') AS country,
  COALESCE(t.phone_prefix, '') AS prefix, ${REASON} AS reason, ${CHANNEL} AS channel, ${PROVIDER} AS provider`;
const COUNTED_TYPES = `t.type IN (${COUNTED_LOG_TYPES.map((type) => `'${type}'`).join(', ')})`;


const DAY_MS = 86_400_000;

/** The rollup's tables: per hour, per hour without the prefix, per UTC day. */
type CountTable = 'hourly' | 'hourly_by_country' | 'daily';

export type StatsGrouping = 'country' | 'prefix' | 'connection' | 'channel' | 'provider';

/** Sums by period (an hour or a UTC day) and key (country, prefix, connection, channel or provider). */
export interface GroupedCount {
  period: Date;
  key: string;
  type: string;
  reason: string;
  n: number;
}

/** A `GroupedCount` with the country and the channel it is about. */
export interface CountryChannelCount extends GroupedCount {
  country: string;
  channel: string;
}

const GROUP_COLUMN: Record<StatsGrouping, string> = { country: 'country', prefix: 'prefix', connection: 'connection', channel: 'channel', provider: 'provider' };

/**
 * The figures of the operator console, from the tenant log: the hourly counts the rollup keeps
 * (tenant_log_rollup_hourly) plus the records it has not reached yet, counted from the log itself.
 */
export function loginStatsRepo(db: SqlExecutor) {
  /**
   * Counted records in [from, to): the rollup's rows and the log's records after its cursor
   * ($4, $5: read just before, so the planner sees the values and walks the stream-order index
   * from there instead of reading the whole range by date).
   */
  const counted = (table: CountTable) => {
    const time = table === 'daily' ? 'day' : 'hour';
    const prefix = table === 'hourly_by_country' ? `'' AS prefix` : 'prefix';
    return `
    SELECT ${time} AS hour, type, connection, country, ${prefix}, reason, channel, provider, n FROM tenant_log_rollup_${table}
     WHERE ${time} >= $1 AND ${time} < $2 AND type = ANY($3::text[])
    UNION ALL
    SELECT ${COUNTED_COLUMNS}, 1 AS n FROM tenant_logs t
     WHERE (t.tx_id, t.seq) > ($4::xid8, $5::bigint) AND ${COUNTED_TYPES} AND t.type = ANY($3::text[]) AND t.date >= $1 AND t.date < $2`;
  };

  return {
    /**
     * Counts up to `batch` records after the cursor, in stream order, of transactions older than
     * every open one (a record committed late can never fall behind the cursor), and moves the
     * cursor past them, in one statement. Call inside a transaction holding the rollup's lock.
     * Returns how many records it read.
     */
    async rollUp(batch: number): Promise<number> {
      const { rows } = await db.query<{ n: number }>(
        `WITH cursor_at AS (SELECT tx_id, seq FROM tenant_log_rollup_cursor),
         batch AS (
           SELECT t.* FROM tenant_logs t, cursor_at c
            WHERE (t.tx_id, t.seq) > (c.tx_id, c.seq) AND t.tx_id < pg_snapshot_xmin(pg_current_snapshot())
            ORDER BY t.tx_id, t.seq LIMIT $1),
         hourly AS (
           SELECT hour, type, connection, country, prefix, reason, channel, provider, count(*) AS n FROM (SELECT ${COUNTED_COLUMNS} FROM batch t WHERE ${COUNTED_TYPES}) counted
            GROUP BY hour, type, connection, country, prefix, reason, channel, provider),
         added AS (
           INSERT INTO tenant_log_rollup_hourly (hour, type, connection, country, prefix, reason, channel, provider, n)
           SELECT hour, type, connection, country, prefix, reason, channel, provider, n FROM hourly
           ON CONFLICT (hour, type, connection, country, prefix, reason, channel, provider) DO UPDATE SET n = tenant_log_rollup_hourly.n + EXCLUDED.n),
         added_by_country AS (
           INSERT INTO tenant_log_rollup_hourly_by_country (hour, type, connection, country, reason, channel, provider, n)
           SELECT hour, type, connection, country, reason, channel, provider, sum(n) FROM hourly
            GROUP BY hour, type, connection, country, reason, channel, provider
           ON CONFLICT (hour, type, connection, country, reason, channel, provider) DO UPDATE SET n = tenant_log_rollup_hourly_by_country.n + EXCLUDED.n),
         added_daily AS (
           INSERT INTO tenant_log_rollup_daily (day, type, connection, country, prefix, reason, channel, provider, n)
           SELECT date_trunc('day', hour AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', type, connection, country, prefix, reason, channel, provider, sum(n) FROM hourly
            GROUP BY 1, type, connection, country, prefix, reason, channel, provider
           ON CONFLICT (day, type, connection, country, prefix, reason, channel, provider) DO UPDATE SET n = tenant_log_rollup_daily.n + EXCLUDED.n),
         last AS (SELECT tx_id, seq FROM batch ORDER BY tx_id DESC, seq DESC LIMIT 1),
         moved AS (UPDATE tenant_log_rollup_cursor SET tx_id = last.tx_id, seq = last.seq FROM last)
         SELECT count(*)::int AS n FROM batch`,
        [batch],
      );
      return rows[0]?.n ?? 0;
    },

    /** Counts of `types` in [from, to), by period (`hour` or `day`, UTC) and key. */
    async grouped(range: { from: Date; to: Date }, interval: 'hour' | 'day', groupBy: StatsGrouping | 'none', types: readonly string[]): Promise<GroupedCount[]> {
      const key = groupBy === 'none' ? `''` : GROUP_COLUMN[groupBy];
      // The fewest rows that answer: by day over whole UTC days, the daily counts; by hour but
      // per prefix, the hourly counts without the prefix.
      const dayAligned = interval === 'day' && range.from.getTime() % DAY_MS === 0 && range.to.getTime() % DAY_MS === 0;
      const table: CountTable = dayAligned ? 'daily' : groupBy === 'prefix' ? 'hourly' : 'hourly_by_country';
      // Planned for this cursor, not once for any (a generic plan guesses the date range
      // selective and the cursor not, and would read a month of records by date). Inside a
      // transaction (the domain's), so the setting ends with it.
      await db.query('SET LOCAL plan_cache_mode = force_custom_plan');
      const { rows: cursor } = await db.query<{ tx_id: string; seq: string }>('SELECT tx_id::text AS tx_id, seq::text AS seq FROM tenant_log_rollup_cursor');
      const { rows } = await db.query<{ period: Date; key: string; type: string; reason: string; n: string | number }>(
        `SELECT date_trunc('${interval === 'hour' ? 'hour' : 'day'}', hour AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS period,
                ${key} AS key, type, reason, sum(n)::bigint AS n
           FROM (${counted(table)}) counted
          GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`,
        [range.from, range.to, types, cursor[0]?.tx_id ?? '0', cursor[0]?.seq ?? '0'],
      );
      return rows.map((r) => ({ period: new Date(r.period), key: r.key, type: r.type, reason: r.reason, n: Number(r.n) }));
    },

    /**
     * Counts of `types` in [from, to) as `grouped` answers them, each also by the country and the
     * channel it is about: what spend multiplies by a price per country and channel (issue 47).
     */
    async groupedByCountryAndChannel(range: { from: Date; to: Date }, interval: 'hour' | 'day', groupBy: StatsGrouping, types: readonly string[]): Promise<CountryChannelCount[]> {
      const dayAligned = interval === 'day' && range.from.getTime() % DAY_MS === 0 && range.to.getTime() % DAY_MS === 0;
      const table: CountTable = dayAligned ? 'daily' : groupBy === 'prefix' ? 'hourly' : 'hourly_by_country';
      await db.query('SET LOCAL plan_cache_mode = force_custom_plan');
      const { rows: cursor } = await db.query<{ tx_id: string; seq: string }>('SELECT tx_id::text AS tx_id, seq::text AS seq FROM tenant_log_rollup_cursor');
      const { rows } = await db.query<{ period: Date; key: string; country: string; channel: string; type: string; reason: string; n: string | number }>(
        `SELECT date_trunc('${interval === 'hour' ? 'hour' : 'day'}', hour AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS period,
                ${GROUP_COLUMN[groupBy]} AS key, country, channel, type, reason, sum(n)::bigint AS n
           FROM (${counted(table)}) counted
          GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6`,
        [range.from, range.to, types, cursor[0]?.tx_id ?? '0', cursor[0]?.seq ?? '0'],
      );
      return rows.map((r) => ({ period: new Date(r.period), key: r.key, country: r.country, channel: r.channel, type: r.type, reason: r.reason, n: Number(r.n) }));
    },

    /** Users created per UTC day in [from, to). */
    async signupsPerDay(range: { from: Date; to: Date }): Promise<Array<{ day: Date; n: number }>> {
      const { rows } = await db.query<{ day: Date; n: number }>(
        `SELECT date_trunc('day', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS day, count(*)::int AS n
           FROM users WHERE created_at >= $1 AND created_at < $2 GROUP BY 1 ORDER BY 1`,
        [range.from, range.to],
      );
      return rows.map((r) => ({ day: new Date(r.day), n: r.n }));
    },

    /** Users whose last login is at or after `since`. */
    async activeUsers(since: Date): Promise<number> {
      const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM users WHERE last_login >= $1', [since]);
      return rows[0]?.n ?? 0;
    },
  };
}
