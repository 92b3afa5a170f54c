import { useState } from 'preact/hooks';
import { seg } from '../api';
import { ErrorMessage, formatDate, Loading, useConfirm, useLoad } from '../components/ui';
import { useCan, useConsole } from '../context';

interface LogStream {
  id: string;
  name: string;
  status: 'active' | 'paused' | 'suspended';
  sink: { httpEndpoint: string };
  suspended_reason?: string;
  delivery: { consecutive_failures: number; last_delivered_at?: string; last_failure?: { at: string; reason: string }; next_attempt_at?: string };
}

/** How far behind a stream is: time since its last delivered batch. */
function lagOf(s: LogStream): string {
  if (!s.delivery.last_delivered_at) return 'nothing delivered yet';
  const seconds = Math.max(0, Math.round((Date.now() - new Date(s.delivery.last_delivered_at).getTime()) / 1000));
  return seconds < 120 ? `${seconds} s since the last batch` : `${Math.round(seconds / 60)} min since the last batch`;
}

export function LogStreams() {
  const { api } = useConsole();
  const can = useCan();
  const [confirm, dialog] = useConfirm();
  const streams = useLoad(() => api.get<LogStream[]>('/log-streams'), []);
  // The stream being edited, 'new' for a new one, or none.
  const [editing, setEditing] = useState<LogStream | 'new' | undefined>();
  const setStatus = (s: LogStream, status: 'active' | 'paused') =>
    confirm({
      title: status === 'active' ? `Resume ${s.name}?` : `Pause ${s.name}?`,
      effect:
        status === 'active' ? (
          <p>Delivery to {s.sink.httpEndpoint} starts again from the first event it has not received; the failure count starts from zero.</p>
        ) : (
          <p>No more events go to {s.sink.httpEndpoint} until it is resumed; events keep being recorded and are delivered on resume.</p>
        ),
      action: status === 'active' ? 'Resume' : 'Pause',
      run: () => api.patch(`/log-streams/${seg(s.id)}`, { status }),
      done: streams.reload,
    });
  return (
    <section aria-labelledby="streams-title">
      <h1 id="streams-title">Log streams</h1>
      {dialog}
      {can('create:log_streams') && !editing && (
        <p>
          <button type="button" onClick={() => setEditing('new')}>
            New log stream…
          </button>
        </p>
      )}
      {editing && (
        <StreamForm
          stream={editing === 'new' ? undefined : editing}
          confirm={confirm}
          close={() => setEditing(undefined)}
          done={() => {
            setEditing(undefined);
            streams.reload();
          }}
        />
      )}
      {streams.error ? (
        <ErrorMessage error={streams.error} />
      ) : !streams.data ? (
        <Loading what="log streams" />
      ) : streams.data.length === 0 ? (
        <p>No log stream: create one to send tenant logs to a SIEM.</p>
      ) : (
        <div class="table-scroll" tabIndex={0}>
          <table>
            <caption class="visually-hidden">Log streams</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Lag</th>
                <th scope="col">Last error</th>
                {can('update:log_streams') && <th scope="col">Action</th>}
              </tr>
            </thead>
            <tbody>
              {streams.data!.map((s) => (
                <tr key={s.id}>
                  <th scope="row">
                    {s.name}
                    <div class="detail">{s.sink.httpEndpoint}</div>
                  </th>
                  <td>
                    {s.status}
                    {s.suspended_reason ? `: ${s.suspended_reason}` : ''}
                  </td>
                  <td>{lagOf(s)}</td>
                  <td>
                    {s.delivery.last_failure ? `${formatDate(s.delivery.last_failure.at)}: ${s.delivery.last_failure.reason} (${s.delivery.consecutive_failures} in a row)` : '—'}
                  </td>
                  {can('update:log_streams') && (
                    <td>
                      <button type="button" onClick={() => setEditing(s)}>
                        Edit {s.name}
                      </button>{' '}
                      {s.status === 'active' ? (
                        <button type="button" onClick={() => setStatus(s, 'paused')}>
                          Pause {s.name}
                        </button>
                      ) : (
                        <button type="button" onClick={() => setStatus(s, 'active')}>
                          Resume {s.name}
                        </button>
                      )}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

type Confirm = ReturnType<typeof useConfirm>[0];

/** Create a stream, or change one's name, endpoint or Authorization header (write-only: empty keeps it). */
function StreamForm({ stream, confirm, close, done }: { stream?: LogStream; confirm: Confirm; close: () => void; done: () => void }) {
  const { api } = useConsole();
  const [name, setName] = useState(stream?.name ?? '');
  const [endpoint, setEndpoint] = useState(stream?.sink.httpEndpoint ?? '');
  const [authorization, setAuthorization] = useState('');
  const title = stream ? `Edit ${stream.name}` : 'New log stream';
  return (
    <form
      class="stack"
      aria-label={title}
      onSubmit={(e) => {
        e.preventDefault();
        const changes: string[] = [];
        if (!stream || name !== stream.name) changes.push(`name: ${name}`);
        if (!stream || endpoint !== stream.sink.httpEndpoint) changes.push(`endpoint: ${endpoint}`);
        if (authorization) changes.push('Authorization header: the value you entered (never shown again)');
        confirm({
          title: stream ? `Save ${changes.length} change(s) to ${stream.name}?` : `Create the log stream ${name}?`,
          effect: (
            <>
              <ul>
                {changes.map((c) => (
                  <li key={c}>{c}</li>
                ))}
              </ul>
              <p>{stream ? 'Deliveries from now on use these settings.' : `Every tenant log event from now on is sent to ${endpoint} in batches (HTTP POST).`}</p>
            </>
          ),
          action: stream ? 'Save' : 'Create',
          run: () => {
            const sink: Record<string, string> = {};
            if (!stream || endpoint !== stream.sink.httpEndpoint) sink.httpEndpoint = endpoint;
            if (authorization) sink.httpAuthorization = authorization;
            if (!stream) return api.post('/log-streams', { name, type: 'http', sink });
            const body: Record<string, unknown> = {};
            if (name !== stream.name) body.name = name;
            if (Object.keys(sink).length) body.sink = sink;
            return api.patch(`/log-streams/${seg(stream.id)}`, body);
          },
          done,
        });
      }}
    >
      <h2>{title}</h2>
      <label for="stream-name">Name</label>
      <input id="stream-name" required value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
      <label for="stream-endpoint">Endpoint URL (HTTP POST)</label>
      <input id="stream-endpoint" type="url" required value={endpoint} onInput={(e) => setEndpoint((e.target as HTMLInputElement).value)} />
      <label for="stream-authorization">Authorization header (write-only{stream ? '; empty keeps the current one' : '; optional'})</label>
      <input id="stream-authorization" type="password" autoComplete="off" value={authorization} onInput={(e) => setAuthorization((e.target as HTMLInputElement).value)} />
      <div class="actions">
        <button type="button" onClick={close}>
          Cancel
        </button>
        <button type="submit" class="primary">
          {stream ? 'Save…' : 'Create…'}
        </button>
      </div>
    </form>
  );
}
