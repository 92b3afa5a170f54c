import { toCsv } from './csv';
import type { SmsStatsRow } from './stats';
import type { TenantLog } from './screens/timeline';

// The Overview's SMS economics (issue 47): spend and what passkeys saved (from /stats/sms, at the
// prices of /stats/sms-prices), and the attempts list (tenant log records, one outcome at a time:
// the log search has no OR).

/** USD as an operator reads it: cents for sums of a dollar or more, else to the tenth of a cent. */
export function usd(amount: number | null | undefined): string {
  if (amount === null || amount === undefined) return '—';
  return `$${amount >= 1 || amount === 0 ? amount.toFixed(2) : amount.toFixed(4)}`;
}

/** Seconds as "12 s" or "2 min 5 s"; a dash without a figure. */
export function seconds(value: number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  if (value < 60) return `${Math.round(value * 10) / 10} s`;
  const whole = Math.round(value);
  return `${Math.floor(whole / 60)} min ${whole % 60} s`;
}

export interface KeyEconomics {
  key: string;
  sent: number;
  verified: number;
  conversion: number | null;
  refused: number;
  passkeyLogins: number;
  spend: number;
  saved: number;
}

const cents6 = (n: number) => Math.round(n * 1e6) / 1e6;

/** Per key over the whole period: the counts with spend and saved, biggest spenders first. */
export function economicsByKey(rows: readonly SmsStatsRow[]): KeyEconomics[] {
  const byKey = new Map<string, KeyEconomics>();
  for (const r of rows) {
    const t = byKey.get(r.key) ?? { key: r.key, sent: 0, verified: 0, conversion: null, refused: 0, passkeyLogins: 0, spend: 0, saved: 0 };
    t.sent += r.sent;
    t.verified += r.verified;
    t.refused += Object.values(r.refused ?? {}).reduce((a, b) => a + b, 0);
    t.passkeyLogins += r.passkey_logins;
    t.spend = cents6(t.spend + (r.spend_usd ?? 0));
    t.saved = cents6(t.saved + (r.saved_usd ?? 0));
    byKey.set(r.key, t);
  }
  return [...byKey.values()]
    .map((t) => ({ ...t, conversion: t.sent > 0 ? t.verified / t.sent : null }))
    .sort((a, b) => b.spend - a.spend || b.sent - a.sent || a.key.localeCompare(b.key));
}

/** The period's totals: spend, saved, codes sent and passkey logins. */
export function economicsTotals(rows: readonly SmsStatsRow[]): { spend: number; saved: number; sent: number; passkeyLogins: number } {
  return rows.reduce(
    (t, r) => ({ spend: cents6(t.spend + (r.spend_usd ?? 0)), saved: cents6(t.saved + (r.saved_usd ?? 0)), sent: t.sent + r.sent, passkeyLogins: t.passkeyLogins + r.passkey_logins }),
    { spend: 0, saved: 0, sent: 0, passkeyLogins: 0 },
  );
}

/** The per-country figures as CSV: what the table shows, amounts in USD with their full precision. */
export function countriesCsv(rows: readonly KeyEconomics[]): string {
  return toCsv(
    ['country', 'sent', 'verified', 'conversion', 'refused', 'passkey_logins', 'spend_usd', 'saved_usd'],
    rows.map((r) => [r.key, r.sent, r.verified, r.conversion === null ? null : Math.round(r.conversion * 10_000) / 10_000, r.refused, r.passkeyLogins, r.spend, r.saved]),
  );
}

/** What the attempts list can show, each one log type (the log search has no OR). */
export const ATTEMPT_OUTCOMES: ReadonlyArray<{ type: string; label: string; outcome: 'sent' | 'verified' | 'refused' }> = [
  { type: 'cs', label: 'Codes sent', outcome: 'sent' },
  { type: 's', label: 'Logins (verified)', outcome: 'verified' },
  { type: 'sms_start_refused', label: 'Refused by the SMS policy or the fraud guard', outcome: 'refused' },
  { type: 'api_limit', label: 'Refused by a rate limit', outcome: 'refused' },
  { type: 'sms_start_blocked_user', label: 'Refused: the user is blocked', outcome: 'refused' },
  { type: 'fs', label: 'Refused: sign-up disabled', outcome: 'refused' },
  { type: 'fn', label: 'Delivery failed', outcome: 'refused' },
];

export interface Attempt {
  logId: string;
  date: string;
  /** Masked, as the log keeps it. */
  number: string;
  userId: string | undefined;
  country: string;
  channel: string;
  outcome: 'sent' | 'verified' | 'refused';
  /** Why it was refused (or how a code was delivered, or how a login was made). */
  reason: string;
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value ? value : undefined);

/** A tenant log record as a row of the attempts list. */
export function attemptOf(log: TenantLog): Attempt {
  const d = log.details ?? {};
  const outcome = ATTEMPT_OUTCOMES.find((o) => o.type === log.type)?.outcome ?? 'refused';
  const reason =
    outcome === 'refused'
      ? (text(d.refusal) ?? text(d.error_description) ?? text(d.error) ?? text(d.reason) ?? log.description)
      : outcome === 'sent'
        ? (text(d.delivery) ?? '')
        : (text(d.via) ?? 'code');
  return {
    logId: log.log_id,
    date: log.date,
    number: log.phone_number ?? '',
    userId: log.user_id,
    country: log.phone_country ?? '',
    channel: text(d.channel) ?? (log.type === 's' && d.via === 'passkey' ? '' : 'sms'),
    outcome,
    reason,
  };
}

export function attemptsCsv(attempts: readonly Attempt[]): string {
  return toCsv(
    ['date', 'number', 'country', 'channel', 'outcome', 'reason', 'log_id'],
    attempts.map((a) => [a.date, a.number, a.country, a.channel, a.outcome, a.reason, a.logId]),
  );
}
