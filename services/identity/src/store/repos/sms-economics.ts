import type { SqlExecutor } from '../sql-client';

/** A price the tenant set (migration 030), USD per message. */
export interface StoredSmsPrice {
  country: string;
  channel: string;
  price: number;
}

/** Time to verify: how many logins counted and the percentiles, in seconds (null without any). */
export interface TimeToVerifyFigures {
  verified: number;
  p50: number | null;
  p90: number | null;
  p99: number | null;
}

/** What a login by a code is (`via` of an `s` record), as the SMS figures count it (domain/management/stats.ts). */
const CODE_VIA = `COALESCE(s.details->>'via', '') IN ('', 'oauth/ro', 'otp', 'hosted-login')`;

/**
 * The SMS economics of the console (issue 47): the tenant's prices, and the time from a code sent
 * to its login, paired through the tenant log by the number's keyed hash (migration 017).
 */
export function smsEconomicsRepo(db: SqlExecutor) {
  return {
    async prices(): Promise<StoredSmsPrice[]> {
      const { rows } = await db.query<{ country: string; channel: string; price: string }>('SELECT country, channel, price::text AS price FROM sms_prices ORDER BY country, channel');
      return rows.map((r) => ({ country: r.country, channel: r.channel, price: Number(r.price) }));
    },

    /** Sets the prices given; a null price drops the tenant's own. One statement. */
    async setPrices(prices: ReadonlyArray<{ country: string; channel: string; price: number | null }>, now: Date): Promise<void> {
      const set = prices.filter((p) => p.price !== null);
      const dropped = prices.filter((p) => p.price === null);
      await db.query(
        `WITH dropped AS (
           DELETE FROM sms_prices WHERE (country, channel) IN (SELECT * FROM unnest($4::text[], $5::text[])))
         INSERT INTO sms_prices (country, channel, price, updated_at)
         SELECT country, channel, price, $6 FROM unnest($1::text[], $2::text[], $3::numeric[]) AS given(country, channel, price)
         ON CONFLICT (country, channel) DO UPDATE SET price = EXCLUDED.price, updated_at = EXCLUDED.updated_at`,
        [set.map((p) => p.country), set.map((p) => p.channel), set.map((p) => String(p.price)), dropped.map((p) => p.country), dropped.map((p) => p.channel), now],
      );
    },

    /**
     * Seconds from each login by a code in [from, to) back to its number's latest code sent on
     * the same connection within the hour before (a code lives minutes; test numbers left out),
     * as percentiles. Logins with no such code (records from before migration 017) do not count.
     */
    async timeToVerify(range: { from: Date; to: Date }): Promise<TimeToVerifyFigures> {
      const { rows } = await db.query<{ n: number; p: number[] | null }>(
        `SELECT count(*)::int AS n, percentile_cont(ARRAY[0.5, 0.9, 0.99]) WITHIN GROUP (ORDER BY seconds) AS p
           FROM (
             SELECT extract(epoch FROM s.date - sent.date)::float8 AS seconds
               FROM tenant_logs s
               CROSS JOIN LATERAL (
                 SELECT c.date FROM tenant_logs c
                  WHERE c.phone_hash = s.phone_hash AND c.type = 'cs' AND c.date <= s.date AND c.date > s.date - interval '1 hour'
                    AND c.connection IS NOT DISTINCT FROM s.connection AND COALESCE(c.details->>'delivery', '') <> 'test_number'
                  ORDER BY c.date DESC LIMIT 1) sent
              WHERE s.type = 's' AND s.date >= $1 AND s.date < $2 AND s.phone_hash IS NOT NULL AND ${CODE_VIA}
           ) paired`,
        [range.from, range.to],
      );
      const row = rows[0]!;
      const p = row.p ?? [];
      const rounded = (v: number | undefined) => (v === undefined || v === null ? null : Math.round(v * 10) / 10);
      return { verified: row.n, p50: rounded(p[0]), p90: rounded(p[1]), p99: rounded(p[2]) };
    },
  };
}
