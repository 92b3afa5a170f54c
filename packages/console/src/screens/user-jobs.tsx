import { useEffect, useState } from 'preact/hooks';
import { itemsOf, ok, type Schema } from '../api';
import type { Connection } from './fraud-data';
import { ErrorMessage, formatDate, Loading, useLoad } from '../components/ui';
import { useCan, useConsole } from '../context';
import { href } from '../router';

// The console never projects (`fields`): its records are whole.
type Job = Schema<'JobRecord'>;

/** How often a job still running is read again. */
const REFRESH_MS = 1_000;

const TYPE_LABEL: Record<Job['type'], string> = { users_import: 'Import', users_export: 'Export' };

/** Bulk user import and export (`/api/v2/jobs`): start one, then follow it by its id (`#/jobs/<id>`). */
export function UserJobs({ route }: { route: string[] }) {
  const [id] = route;
  return id ? <JobProgress id={id} /> : <StartJob />;
}

function StartJob() {
  const { api } = useConsole();
  const can = useCan();
  const connections = useLoad(async () => itemsOf<Connection>(await ok(api.GET('/api/v2/connections')), 'connections'), []);
  const sms = (connections.data ?? []).filter((c) => c.strategy === 'sms');
  const [error, setError] = useState<unknown>();
  const [jobId, setJobId] = useState('');
  const open = (job: Job) => (location.hash = href('jobs', job.id));

  const startImport = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    const form = new FormData(event.currentTarget as HTMLFormElement);
    if (form.get('upsert') === null) form.set('upsert', 'false');
    try {
      // multipart/form-data: the browser sets the content type and its boundary.
      open(await ok(api.POST('/api/v2/jobs/users-imports', { body: form as unknown as Schema<'UserImportForm'> })));
    } catch (err) {
      setError(err);
    }
  };
  const startExport = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const connection = String(form.get('connection_id') ?? '');
    try {
      open(await ok(api.POST('/api/v2/jobs/users-exports', { body: { format: String(form.get('format')) as Schema<'UserExportCreate'>['format'], ...(connection ? { connection_id: connection } : {}) } })));
    } catch (err) {
      setError(err);
    }
  };

  return (
    <section aria-labelledby="jobs-title">
      <h1 id="jobs-title">Import and export users</h1>
      <p>
        Files in Auth0's user import format (a JSON array of phone users); exports as gzipped NDJSON or CSV. See docs/user-import-export.md for the
        fields and for files from Supabase or Firebase.
      </p>
      <ErrorMessage error={error ?? connections.error} />
      {!connections.data && !connections.error && <Loading what="connections" />}
      {can('create:users') && connections.data && (
        <form onSubmit={startImport} aria-labelledby="import-title">
          <h2 id="import-title">Import users</h2>
          <label for="import-connection">Connection</label>
          <select id="import-connection" name="connection_id" required>
            {sms.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
          <label for="import-file">Users file (JSON)</label>
          <input id="import-file" name="users" type="file" accept=".json,application/json" required />
          <label class="check">
            <input name="upsert" type="checkbox" value="true" /> Update users who exist already (upsert)
          </label>
          <button type="submit" class="primary">
            Start the import
          </button>
        </form>
      )}
      {can('read:users') && connections.data && (
        <form onSubmit={startExport} aria-labelledby="export-title">
          <h2 id="export-title">Export users</h2>
          <label for="export-connection">Connection</label>
          <select id="export-connection" name="connection_id">
            <option value="">Every connection</option>
            {sms.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
          <label for="export-format">Format</label>
          <select id="export-format" name="format">
            <option value="json">NDJSON (one user per line)</option>
            <option value="csv">CSV</option>
          </select>
          <button type="submit" class="primary">
            Start the export
          </button>
        </form>
      )}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (jobId.trim()) location.hash = href('jobs', jobId.trim());
        }}
        aria-labelledby="open-title"
      >
        <h2 id="open-title">Follow a job</h2>
        <label for="job-id">Job id</label>
        <input id="job-id" value={jobId} onInput={(e) => setJobId((e.currentTarget as HTMLInputElement).value)} placeholder="job_…" />
        <button type="submit">Open</button>
      </form>
    </section>
  );
}

function JobProgress({ id }: { id: string }) {
  const { api } = useConsole();
  const job = useLoad(() => ok(api.GET('/api/v2/jobs/{id}', { params: { path: { id } } })), [id]);
  const running = job.data?.status === 'pending' || job.data?.status === 'processing';
  // Read again while it runs; a finished job stays as it is.
  useEffect(() => {
    if (!running) return;
    const timer = setTimeout(job.reload, REFRESH_MS);
    return () => clearTimeout(timer);
  }, [job.data]);
  const failedRecords = job.data?.type === 'users_import' && job.data.status !== 'pending' && (job.data.summary?.failed ?? 0) > 0;
  return (
    <section aria-labelledby="job-title">
      <p>
        <a href={href('jobs')}>Import and export users</a>
      </p>
      <h1 id="job-title">
        {job.data ? TYPE_LABEL[job.data.type] : 'Job'} <code>{id}</code>
      </h1>
      {job.error ? (
        <ErrorMessage error={job.error} />
      ) : !job.data ? (
        <Loading what="the job" />
      ) : (
        <>
          <p role="status" data-testid="job-status">
            {job.data.status === 'completed'
              ? 'Completed.'
              : job.data.status === 'failed'
                ? 'Failed.'
                : `${job.data.status === 'pending' ? 'Waiting to start' : 'Running'}${job.data.percentage_done !== undefined ? `: ${job.data.percentage_done}% done` : ''}…`}
          </p>
          <dl class="facts">
            <dt>Started</dt>
            <dd>{formatDate(job.data.created_at)}</dd>
            <dt>Connection</dt>
            <dd>{job.data.connection ?? job.data.connection_id ?? 'every connection'}</dd>
            {job.data.format && (
              <>
                <dt>Format</dt>
                <dd>{job.data.format === 'csv' ? 'CSV' : 'NDJSON'}, gzipped</dd>
              </>
            )}
          </dl>
          {job.data.summary && (
            <div class="table-scroll" tabIndex={0}>
              <table data-testid="job-summary">
                <caption>Users in the file</caption>
                <thead>
                  <tr>
                    <th scope="col">Inserted</th>
                    <th scope="col">Updated</th>
                    <th scope="col">Refused</th>
                    <th scope="col">Total</th>
                  </tr>
                </thead>
                <tbody>
                  <tr>
                    <td>{job.data.summary.inserted}</td>
                    <td>{job.data.summary.updated}</td>
                    <td>{job.data.summary.failed}</td>
                    <td>{job.data.summary.total}</td>
                  </tr>
                </tbody>
              </table>
            </div>
          )}
          {job.data.location && (
            <p>
              <a href={job.data.location} download>
                Download the export
              </a>{' '}
              (this link works until {formatDate(job.data.location_expires_at)}; reload the page for a new one)
            </p>
          )}
          {failedRecords && <RefusedRecords id={id} />}
        </>
      )}
    </section>
  );
}

/** What an import refused, record by record, in the API's words. */
function RefusedRecords({ id }: { id: string }) {
  const { api } = useConsole();
  const errors = useLoad(() => ok(api.GET('/api/v2/jobs/{id}/errors', { params: { path: { id } } })), [id]);
  if (errors.error) return <ErrorMessage error={errors.error} />;
  if (!errors.data) return <Loading what="the refused records" />;
  const who = (user: unknown) => {
    const record = (user ?? {}) as Record<string, unknown>;
    return String(record.phone_number ?? record.user_id ?? JSON.stringify(user));
  };
  return (
    <div class="table-scroll" tabIndex={0}>
      <table data-testid="job-errors">
        <caption>Refused records</caption>
        <thead>
          <tr>
            <th scope="col">Record</th>
            <th scope="col">Why</th>
          </tr>
        </thead>
        <tbody>
          {errors.data.map((entry, i) => (
            <tr key={i}>
              <td>{who(entry.user)}</td>
              <td>{entry.errors.map((e) => `${e.path && !e.message.startsWith(e.path) ? `${e.path}: ` : ''}${e.message} (${e.code})`).join('; ')}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
