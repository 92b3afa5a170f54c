import { z } from 'zod';

// The operator console's figures: Auth0's `/api/v2/stats/daily` and `/stats/active-users`, and
// ours, `/api/v2/stats/sms` (codes sent, verified and refused by country, prefix or connection).

/** A UTC day as YYYYMMDD, the day's start as a Date when it is a calendar date. */
export function dayOf(yyyymmdd: string): Date | undefined {
  const at = new Date(`${yyyymmdd.slice(0, 4)}-${yyyymmdd.slice(4, 6)}-${yyyymmdd.slice(6, 8)}T00:00:00Z`);
  return !Number.isNaN(at.getTime()) && at.toISOString().slice(0, 10).replace(/-/g, '') === yyyymmdd ? at : undefined;
}

/** Figures start with the Unix epoch (nothing was recorded before; and the database refuses year 0). */
const EARLIEST = Date.UTC(1970, 0, 1);

/** Years from 1970, months 01-12, days 01-31: the document states as much of the calendar as a pattern can (not Feb 30). */
const YEAR = '(?:19[7-9]\\d|[2-9]\\d{3})';
const MONTH = '(?:0[1-9]|1[0-2])';
const DAY = '(?:0[1-9]|[12]\\d|3[01])';

const YYYYMMDD = z
  .string()
  .regex(/^\d{8}$/, { message: 'must be a date as YYYYMMDD' })
  .refine((v) => dayOf(v) !== undefined, { message: 'is not a calendar date' })
  .refine((v) => (dayOf(v)?.getTime() ?? EARLIEST) >= EARLIEST, { message: 'must be 19700101 or later' })
  .meta({ pattern: `^${YEAR}${MONTH}${DAY}$` });

/** `GET /api/v2/stats/daily?from=YYYYMMDD&to=YYYYMMDD` (both days included, UTC; at most 366 days). */
export const DailyStatsQuerySchema = z.object({ from: YYYYMMDD.optional(), to: YYYYMMDD.optional() });
export type DailyStatsQuery = z.output<typeof DailyStatsQuerySchema>;

/** One UTC day: successful logins (every path, passkeys included) and users created. */
export const DailyStatSchema = z.object({
  date: z.string(),
  logins: z.int().nonnegative(),
  signups: z.int().nonnegative(),
  /** Always 0: there are no passwords to leak. Kept for Auth0's shape. */
  leaked_passwords: z.literal(0),
  created_at: z.string(),
  updated_at: z.string(),
});
export type DailyStat = z.infer<typeof DailyStatSchema>;

const ISO_DATE_OR_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?)?$/;
const DateOrTime = z
  .string()
  .regex(ISO_DATE_OR_TIME, { message: 'must be an ISO 8601 date (2030-01-31) or time (2030-01-31T10:00:00Z)' })
  .refine((v) => dayOf(v.slice(0, 10).replace(/-/g, '')) !== undefined, { message: 'is not a calendar date' })
  .refine((v) => !Number.isNaN(Date.parse(/T/.test(v) && !/(Z|[+-]\d{2}:\d{2})$/.test(v) ? `${v}Z` : v)), { message: 'is not a valid time' })
  .refine((v) => !(Date.parse(/T/.test(v) && !/(Z|[+-]\d{2}:\d{2})$/.test(v) ? `${v}Z` : v) < EARLIEST), { message: 'must be 1970 or later' })
  .meta({ pattern: `^${YEAR}-${MONTH}-${DAY}(?:T(?:[01]\\d|2[0-3]):[0-5]\\d(?::[0-5]\\d(?:\\.\\d{1,3})?)?(?:Z|[+-](?:[01]\\d|2[0-3]):[0-5]\\d)?)?$` });

export const SMS_STATS_GROUPINGS = ['country', 'prefix', 'connection', 'channel', 'provider'] as const;

/**
 * `GET /api/v2/stats/sms`: `from` and `to` are ISO dates or times, UTC when no zone is given; a
 * date `to` includes its whole day, a time `to` is excluded; by default the 7 days up to `to`
 * (by default the end of the current hour). At most 31 days by hour, 366 by day.
 */
export const SmsStatsQuerySchema = z.object({
  from: DateOrTime.optional(),
  to: DateOrTime.optional(),
  interval: z.enum(['hour', 'day']).default('day'),
  group_by: z.enum(SMS_STATS_GROUPINGS).default('country'),
});
export type SmsStatsQuery = z.output<typeof SmsStatsQuerySchema>;

/**
 * One period and key: codes sent (by SMS, WhatsApp or voice; test numbers excluded), codes
 * verified (logins with a code), verified / sent (null when nothing was sent), starts refused, by
 * reason (rate_limit, signup_disabled, blocked_user, country, number_type, velocity, fraud_guard,
 * test_numbers_disabled, delivery_failed), and logins with a passkey (each one a code not sent).
 * By channel, the key is `sms`, `whatsapp` or `voice`, and '' holds the passkey logins. By
 * provider, the key is the gateway's provider instance that accepted the code (`unknown` when
 * the gateway named none), and '' holds refusals and passkey logins.
 * `spend_usd`: the codes sent, each at the price of its country and channel; `saved_usd`: the
 * passkey logins, each at the SMS price of its number's country (GET /stats/sms-prices).
 */
export const SmsStatSchema = z.object({
  period: z.string(),
  key: z.string(),
  sent: z.int().nonnegative(),
  verified: z.int().nonnegative(),
  conversion: z.number().nullable(),
  refused: z.record(z.string(), z.int().nonnegative()),
  passkey_logins: z.int().nonnegative(),
  spend_usd: z.number().nonnegative(),
  saved_usd: z.number().nonnegative(),
});
export type SmsStat = z.infer<typeof SmsStatSchema>;
