import type { Schema } from '../api';
import { When } from '../components/ui';

export type TenantLog = Schema<'TenantLog'>;

/** Log types that mean something went wrong for the person signing in. */
export const FAILURES: ReadonlySet<string> = new Set([
  'fn', 'fp', 'fu', 'fs', 'f', 'sms_code_used', 'sms_code_expired', 'sms_code_exhausted', 'sms_blocked_attempt', 'limit_wc', 'sms_number_locked',
  'api_limit', 'sms_start_refused', 'fertft', 'ferrt', 'feccft', 'feacft', 'fsa', 'flo', 'passkey_enrollment_failed',
]);

function detailText(details: Record<string, unknown> | undefined): string {
  if (!details) return '';
  return Object.entries(details)
    .filter(([, v]) => v !== null && v !== undefined && v !== '')
    .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join('; ');
}

/** Tenant logs as a timeline, oldest first: what happened to a login and why it failed (the log's own details). */
export function Timeline({ logs, label }: { logs: TenantLog[]; label: string }) {
  if (logs.length === 0) return <p>No log event.</p>;
  const ordered = [...logs].sort((a, b) => a.date.localeCompare(b.date));
  return (
    <ol class="timeline" aria-label={label} data-testid="timeline">
      {ordered.map((log) => (
        <li key={log.log_id} class={FAILURES.has(log.type) ? 'failure' : 'success'}>
          <When iso={log.date} />{' '}
          <strong>{log.description}</strong> <code>{log.type}</code>
          {FAILURES.has(log.type) && <span class="badge">failed</span>}
          <div class="detail">
            {[log.phone_number, log.connection, log.client_name, log.ip].filter(Boolean).join(' · ')}
            {log.details && Object.keys(log.details).length > 0 && <div>{detailText(log.details)}</div>}
          </div>
        </li>
      ))}
    </ol>
  );
}
