import type { TenantLog } from './timeline';
import { FAILURES } from './timeline';

/**
 * The types an operator filters by most, with the API's description of each (the log's
 * `description`; the console's tests check both against packages/contracts' LOG_EVENT_TYPES).
 */
export const LOG_TYPE_CHOICES: ReadonlyArray<[type: string, words: string]> = [
  ['s', 'Success Login'],
  ['cs', 'Code Sent'],
  ['fp', 'Incorrect Verification Code'],
  ['fu', 'Invalid Phone Number or No Code Pending'],
  ['fn', 'Failed Sending Notification'],
  ['sms_code_used', 'Verification Code Already Used'],
  ['sms_code_expired', 'Verification Code Expired'],
  ['sms_code_exhausted', 'Too Many Attempts on the Verification Code'],
  ['sms_blocked_attempt', 'Attempt Refused by Brute-Force Protection'],
  ['sms_number_locked', 'Phone Number Locked'],
  ['limit_wc', 'Blocked Account'],
  ['sms_start_refused', 'Start Refused by SMS Policy'],
  ['api_limit', 'Rate Limit on the Authentication API'],
  ['fs', 'Failed Signup'],
  ['slo', 'Success Logout'],
  ['sapi', 'Success API Operation'],
];

export interface LogFilters {
  /** A log type (`fp`), or empty for any. */
  type: string;
  /** First day, `YYYY-MM-DD` (UTC), or empty. */
  from: string;
  /** Last day, `YYYY-MM-DD` (UTC), included, or empty. */
  to: string;
  /** More of the search syntax (`user_id:"…"`, `phone_number:"+1…"`), joined with AND. */
  text: string;
}

export const NO_FILTERS: LogFilters = { type: '', from: '', to: '', text: '' };

function dayAfter(day: string): string {
  const next = new Date(`${day}T00:00:00Z`);
  next.setUTCDate(next.getUTCDate() + 1);
  return next.toISOString().slice(0, 10);
}

/**
 * The filters as `q` of GET /api/v2/logs: `type:fp AND date:[2026-01-01 TO 2026-01-08}` (the last
 * day included: up to the next day's start, excluded), `*` for an open end; undefined for none.
 */
export function logQueryOf(filters: LogFilters): string | undefined {
  const terms: string[] = [];
  if (filters.type) terms.push(`type:${/^[a-z_]+$/.test(filters.type) ? filters.type : JSON.stringify(filters.type)}`);
  if (filters.from || filters.to) terms.push(`date:[${filters.from || '*'} TO ${filters.to ? `${dayAfter(filters.to)}}` : '*]'}`);
  if (filters.text.trim()) terms.push(filters.text.trim());
  return terms.length ? terms.join(' AND ') : undefined;
}

export interface LogSummary {
  /** The phone number, or else the user id, or else nothing known. */
  who: string | undefined;
  /** The user's page to link `who` to, when the event names a user. */
  userId: string | undefined;
  what: string;
  /** Application, connection and IP address, as far as the event names them. */
  where: string;
  failed: boolean;
  /** For a failure, why (the event's `error` or `reason`), else the description. */
  outcome: string;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value ? value : undefined;
}

/** One readable line's parts: who, what, from where, the outcome. */
export function summaryOf(log: TenantLog): LogSummary {
  const failed = FAILURES.has(log.type);
  const why = text(log.details?.error_description) ?? text(log.details?.error) ?? text(log.details?.reason);
  const where = [log.client_name ? `via ${log.client_name}` : undefined, log.connection ? `(${log.connection})` : undefined, log.ip ? `from ${log.ip}` : undefined]
    .filter(Boolean)
    .join(' ');
  return {
    who: log.phone_number ?? log.user_id,
    userId: log.user_id,
    what: log.description,
    where,
    failed,
    outcome: failed ? `failed${why ? `: ${why}` : ''}` : 'ok',
  };
}

/** The summary as one sentence (what the table's cell says, and a screen reader reads). */
export function summaryLine(log: TenantLog): string {
  const s = summaryOf(log);
  return [s.who ?? 'Someone unknown', '—', s.what, s.where, `— ${s.outcome}`].filter(Boolean).join(' ');
}

/** The details as label and value pairs for a definition list; nested values as compact JSON. */
export function detailEntries(log: TenantLog): Array<[label: string, value: string]> {
  const entries: Array<[string, string]> = [];
  const add = (label: string, value: unknown) => {
    if (value === undefined || value === null || value === '') return;
    entries.push([label, typeof value === 'string' ? value : JSON.stringify(value)]);
  };
  add('Log id', log.log_id);
  add('Type', log.type);
  add('User id', log.user_id);
  add('Application', log.client_name ?? log.client_id);
  add('Connection', log.connection);
  add('IP address', log.ip);
  add('User agent', log.user_agent);
  for (const [key, value] of Object.entries(log.details ?? {})) add(key.replace(/_/g, ' '), value);
  return entries;
}

/** Short date for the table (`2026-11-29 07:35`, UTC), so it fits one line at 1280 px; the full time is the `<time>` element's title. */
export function shortDate(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toISOString().slice(0, 16).replace('T', ' ');
}
