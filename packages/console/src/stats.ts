import { ok, type IdentityApi, type Schema } from './api';

/** A row of GET /api/v2/stats/sms. */
export type SmsStatsRow = Schema<'SmsStat'>;

export type DailyStats = Schema<'DailyStat'>;

export type Interval = 'hour' | 'day';

export interface Period {
  from: Date;
  to: Date;
  interval: Interval;
}

export const PERIODS: Record<string, { label: string; hours: number; interval: Interval }> = {
  '24h': { label: 'Last 24 hours, by hour', hours: 24, interval: 'hour' },
  '14d': { label: 'Last 14 days, by day', hours: 24 * 14, interval: 'day' },
  '30d': { label: 'Last 30 days, by day', hours: 24 * 30, interval: 'day' },
};

export function periodOf(name: string, now = new Date()): Period {
  const p = PERIODS[name] ?? PERIODS['14d']!;
  const unit = p.interval === 'hour' ? 3_600_000 : 86_400_000;
  // Whole periods: from the start of the first one to the end of the current one.
  const end = new Date(Math.floor(now.getTime() / unit) * unit + unit);
  return { from: new Date(end.getTime() - p.hours * 3_600_000), to: end, interval: p.interval };
}

export function smsStats(api: IdentityApi, period: Period, groupBy: 'country' | 'prefix' | 'connection' | 'channel' | 'provider'): Promise<SmsStatsRow[]> {
  return ok(api.GET('/api/v2/stats/sms', { params: { query: { from: period.from.toISOString(), to: period.to.toISOString(), interval: period.interval, group_by: groupBy } } }));
}

function yyyymmdd(date: Date): string {
  return date.toISOString().slice(0, 10).replace(/-/g, '');
}

export function dailyStats(api: IdentityApi, period: Period): Promise<DailyStats[]> {
  return ok(api.GET('/api/v2/stats/daily', { params: { query: { from: yyyymmdd(period.from), to: yyyymmdd(new Date(period.to.getTime() - 1)) } } }));
}

/** Every period start of the range, in seconds (the charts' x values), so empty periods show as zero. */
export function periodStarts(period: Period): number[] {
  const unit = period.interval === 'hour' ? 3_600_000 : 86_400_000;
  const out: number[] = [];
  for (let t = period.from.getTime(); t < period.to.getTime(); t += unit) out.push(t / 1000);
  return out;
}

/** Rows keyed by period start (seconds). */
export function bySecond(period: string): number {
  return Math.floor(new Date(period).getTime() / 1000);
}

/** Sent, verified and conversion per key over the whole range, biggest senders first. */
export function totalsByKey(rows: SmsStatsRow[]): Array<{ key: string; sent: number; verified: number; conversion: number | null; refused: number }> {
  const totals = new Map<string, { sent: number; verified: number; refused: number }>();
  for (const row of rows) {
    const t = totals.get(row.key) ?? { sent: 0, verified: 0, refused: 0 };
    t.sent += row.sent;
    t.verified += row.verified;
    t.refused += Object.values(row.refused ?? {}).reduce((a, b) => a + b, 0);
    totals.set(row.key, t);
  }
  return [...totals.entries()]
    .map(([key, t]) => ({ key, ...t, conversion: t.sent > 0 ? t.verified / t.sent : null }))
    .sort((a, b) => b.sent - a.sent || a.key.localeCompare(b.key));
}
