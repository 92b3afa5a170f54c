import { dayOf, type DailyStat, type DailyStatsQuery, type SmsStat, type SmsStatsQuery } from '@smsauth/contracts';
import type { Clock } from '@smsauth/service-kit';
import type { GroupedCount, IdentityStore } from '../../store';
import { priceTable } from './sms-prices';
import { SPEND_TYPES, withSpend } from './sms-spend';
import { invalidField } from './validation';

// The operator console's figures, from what identity records anyway: the tenant log (codes sent,
// logins, refusals) through its hourly rollup (logs/stats-rollup.ts), and the users table.

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** `/stats/daily` and `interval=day`: at most a year of days. */
const MAX_DAYS = 366;
/** `interval=hour`: at most 31 days of hours. */
const MAX_HOURLY_DAYS = 31;
/** Without `from`: the last 30 days (daily), the last 7 (SMS). */
const DEFAULT_DAILY_DAYS = 30;
const DEFAULT_SMS_DAYS = 7;

function startOfUtcDay(at: Date): Date {
  return new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
}

function checkSpan(from: Date, to: Date, maxDays: number, what: string): void {
  if (to.getTime() <= from.getTime()) throw invalidField('to', 'must be after from');
  if (to.getTime() - from.getTime() > maxDays * DAY_MS) throw invalidField('from', `${what} span at most ${maxDays} days`);
}

/** `GET /stats/daily`: each UTC day from `from` to `to` (both included), its logins and signups. */
export async function dailyStats(store: IdentityStore, clock: Clock, query: DailyStatsQuery): Promise<DailyStat[]> {
  const now = clock.now();
  const lastDay = query.to !== undefined ? dayOf(query.to)! : startOfUtcDay(now);
  const firstDay = query.from !== undefined ? dayOf(query.from)! : new Date(lastDay.getTime() - (DEFAULT_DAILY_DAYS - 1) * DAY_MS);
  const end = new Date(lastDay.getTime() + DAY_MS);
  checkSpan(firstDay, end, MAX_DAYS, 'from and to');
  const [logins, signups] = await Promise.all([
    store.transaction((tx) => tx.loginStats.grouped({ from: firstDay, to: end }, 'day', 'none', ['s'])),
    store.loginStats.signupsPerDay({ from: firstDay, to: end }),
  ]);
  const loginsOn = new Map<number, number>();
  for (const row of logins) loginsOn.set(row.period.getTime(), (loginsOn.get(row.period.getTime()) ?? 0) + row.n);
  const signupsOn = new Map(signups.map((row) => [row.day.getTime(), row.n]));
  const days: DailyStat[] = [];
  for (let day = firstDay.getTime(); day < end.getTime(); day += DAY_MS) {
    const date = new Date(day).toISOString();
    days.push({
      date,
      logins: loginsOn.get(day) ?? 0,
      signups: signupsOn.get(day) ?? 0,
      leaked_passwords: 0,
      created_at: date,
      // Figures of a day not over yet are as of now.
      updated_at: new Date(Math.min(day + DAY_MS, now.getTime())).toISOString(),
    });
  }
  return days;
}

/** `GET /stats/active-users`: users who logged in during the last 30 days. */
export function activeUsers(store: IdentityStore, clock: Clock): Promise<number> {
  return store.loginStats.activeUsers(new Date(clock.now().getTime() - 30 * DAY_MS));
}

/** An ISO date or time: a time without a zone is UTC; `endOfDay` moves a bare date to the next day's start. */
function instantOf(value: string, endOfDay: boolean): Date {
  if (!value.includes('T')) return new Date(new Date(`${value}T00:00:00Z`).getTime() + (endOfDay ? DAY_MS : 0));
  return new Date(/(Z|[+-]\d{2}:\d{2})$/.test(value) ? value : `${value}Z`);
}

/** The record types the SMS figures read, and what each counts as. */
const SMS_TYPES = ['cs', 's', 'fn', 'api_limit', 'fs', 'sms_start_refused', 'sms_start_blocked_user'];

/** How a login (`s`, its `via`) counts: a code verified, a passkey login, or neither (single sign-on). */
const CODE_EXCHANGES = new Set(['', 'oauth/ro', 'otp', 'hosted-login']);

/**
 * `GET /stats/sms`: per period and key, codes sent (`cs`, test numbers left out), verified
 * (logins with a code), refused starts by reason (rate limits, sign-up, blocked users, the SMS
 * policy's rules with the fraud guard's, failed deliveries) and passkey logins. Periods are
 * UTC hours or days from the start of `from`'s; only periods and keys with something to count.
 */
export async function smsStats(store: IdentityStore, clock: Clock, query: SmsStatsQuery): Promise<SmsStat[]> {
  const range = smsRange(clock, query);
  const [rows, spendRows, prices] = await store.transaction(async (tx) => [
    await tx.loginStats.grouped(range, query.interval, query.group_by, SMS_TYPES),
    await tx.loginStats.groupedByCountryAndChannel(range, query.interval, query.group_by, SPEND_TYPES),
    await priceTable(tx),
  ] as const);
  return withSpend(smsFigures(rows), spendRows, prices);
}

/**
 * The whole hours `/stats/sms` counts (the rollup counts by hour, so a range starting mid-hour
 * starts at its hour), from its `from`, `to` and `interval`; 400 on a span too long.
 */
export function smsRange(clock: Clock, query: Pick<SmsStatsQuery, 'from' | 'to' | 'interval'>): { from: Date; to: Date } {
  const now = clock.now();
  // Without `to`: up to the end of the current hour, so what was recorded at this very instant counts.
  const to = query.to !== undefined ? instantOf(query.to, true) : new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS + HOUR_MS);
  // By default the 7 days up to `to`: its day and the 6 before.
  const from = query.from !== undefined ? instantOf(query.from, false) : new Date(startOfUtcDay(new Date(to.getTime() - 1)).getTime() - (DEFAULT_SMS_DAYS - 1) * DAY_MS);
  checkSpan(from, to, query.interval === 'hour' ? MAX_HOURLY_DAYS : MAX_DAYS, `interval=${query.interval}:`);
  return { from: new Date(Math.floor(from.getTime() / HOUR_MS) * HOUR_MS), to: new Date(Math.ceil(to.getTime() / HOUR_MS) * HOUR_MS) };
}

function smsFigures(rows: readonly GroupedCount[]): SmsStat[] {
  const figures = new Map<string, SmsStat>();
  for (const row of rows) {
    const period = row.period.toISOString();
    const id = `${period}\0${row.key}`;
    let figure = figures.get(id);
    if (!figure) {
      figure = { period, key: row.key, sent: 0, verified: 0, conversion: null, refused: {}, passkey_logins: 0, spend_usd: 0, saved_usd: 0 };
      figures.set(id, figure);
    }
    if (row.type === 'cs') {
      if (row.reason !== 'test_number') figure.sent += row.n;
    } else if (row.type === 's') {
      if (row.reason === 'passkey') figure.passkey_logins += row.n;
      else if (CODE_EXCHANGES.has(row.reason)) figure.verified += row.n;
    } else {
      figure.refused[row.reason] = (figure.refused[row.reason] ?? 0) + row.n;
    }
  }
  const answer = [...figures.values()].filter((f) => f.sent > 0 || f.verified > 0 || f.passkey_logins > 0 || Object.keys(f.refused).length > 0);
  for (const figure of answer) figure.conversion = figure.sent > 0 ? Math.round((figure.verified / figure.sent) * 10_000) / 10_000 : null;
  return answer;
}
