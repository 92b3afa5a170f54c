import { useState } from 'preact/hooks';
import { ok, type Schema } from '../api';
import { FormActions } from '../components/form';
import { ErrorMessage, formatDate, Loading, useConfirm, useLoad, type Confirm } from '../components/ui';
import { useCan, useConsole } from '../context';

type LogStream = Schema<'LogStreamRecord'>;

type ContentFormat = NonNullable<LogStream['sink']['httpContentFormat']>;
/** How a batch is sent (the API's `httpContentFormat`), in words. */
const FORMATS: Array<[ContentFormat, string]> = [
  ['JSONLINES', 'JSON lines: one event per line, a batch per request'],
  ['JSONARRAY', 'JSON array: a batch per request, as one array'],
  ['JSONOBJECT', 'JSON object: one event per request'],
];
const DEFAULT_CONTENT_TYPE = 'application/json';

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
  const streams = useLoad(() => ok(api.GET('/api/v2/log-streams')), []);
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
      run: () => ok(api.PATCH('/api/v2/log-streams/{id}', { params: { path: { id: s.id } }, body: { status } })),
      done: streams.reload,
    });
  const remove = (s: LogStream) =>
    confirm({
      title: `Delete the log stream ${s.name}?`,
      effect: (
        <p>
          No more events go to {s.sink.httpEndpoint}: events not delivered yet are never sent to it, and its signing secret is no longer used. It cannot be
          undone; a new stream receives the events recorded from its creation on.
        </p>
      ),
      action: 'Delete the stream',
      danger: true,
      run: () => ok(api.DELETE('/api/v2/log-streams/{id}', { params: { path: { id: s.id } } })),
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
                {(can('update:log_streams') || can('delete:log_streams')) && <th scope="col">Action</th>}
              </tr>
            </thead>
            <tbody>
              {streams.data!.map((s) => (
                <tr key={s.id}>
                  <th scope="row">
                    {s.name}
                    <div class="detail">{s.sink.httpEndpoint}</div>
                    <div class="detail">
                      {s.sink.httpContentFormat ?? 'JSONLINES'}, {s.sink.httpContentType ?? DEFAULT_CONTENT_TYPE}
                    </div>
                  </th>
                  <td>
                    {s.status}
                    {s.suspended_reason ? `: ${s.suspended_reason}` : ''}
                  </td>
                  <td>{lagOf(s)}</td>
                  <td>
                    {s.delivery.last_failure ? `${formatDate(s.delivery.last_failure.at)}: ${s.delivery.last_failure.reason} (${s.delivery.consecutive_failures} in a row)` : '—'}
                  </td>
                  {(can('update:log_streams') || can('delete:log_streams')) && (
                    <td>
                      {can('update:log_streams') && (
                        <>
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
                          )}{' '}
                        </>
                      )}
                      {can('delete:log_streams') && (
                        <button type="button" class="danger" onClick={() => remove(s)}>
                          Delete {s.name}…
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

/**
 * Create a stream, or change one's name, endpoint, content format and type, or Authorization
 * header (write-only: empty keeps it, "remove" sends `null`).
 */
function StreamForm({ stream, confirm, close, done }: { stream?: LogStream; confirm: Confirm; close: () => void; done: () => void }) {
  const { api } = useConsole();
  const [name, setName] = useState(stream?.name ?? '');
  const [endpoint, setEndpoint] = useState(stream?.sink.httpEndpoint ?? '');
  const [authorization, setAuthorization] = useState('');
  const [removeAuthorization, setRemoveAuthorization] = useState(false);
  const [format, setFormat] = useState<ContentFormat>(stream?.sink.httpContentFormat ?? 'JSONLINES');
  const [contentType, setContentType] = useState(stream?.sink.httpContentType ?? DEFAULT_CONTENT_TYPE);
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
        if (!stream || format !== (stream.sink.httpContentFormat ?? 'JSONLINES')) changes.push(`content format: ${format}`);
        if (!stream || contentType !== (stream.sink.httpContentType ?? DEFAULT_CONTENT_TYPE)) changes.push(`content type: ${contentType}`);
        if (removeAuthorization) changes.push('Authorization header: removed (deliveries carry none)');
        else if (authorization) changes.push('Authorization header: the value you entered (never shown again)');
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
            const sink: NonNullable<Schema<'LogStreamUpdate'>['sink']> = {};
            if (!stream || endpoint !== stream.sink.httpEndpoint) sink.httpEndpoint = endpoint;
            if (!stream || format !== (stream.sink.httpContentFormat ?? 'JSONLINES')) sink.httpContentFormat = format;
            if (!stream || contentType !== (stream.sink.httpContentType ?? DEFAULT_CONTENT_TYPE)) sink.httpContentType = contentType;
            if (removeAuthorization) sink.httpAuthorization = null;
            else if (authorization) sink.httpAuthorization = authorization;
            if (!stream) return ok(api.POST('/api/v2/log-streams', { body: { name, type: 'http', sink: { ...sink, httpEndpoint: endpoint, httpAuthorization: authorization || undefined } } }));
            const body: Schema<'LogStreamUpdate'> = {};
            if (name !== stream.name) body.name = name;
            if (Object.keys(sink).length) body.sink = sink;
            return ok(api.PATCH('/api/v2/log-streams/{id}', { params: { path: { id: stream.id } }, body }));
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
      <label for="stream-format">Content format</label>
      <select id="stream-format" value={format} onChange={(e) => setFormat((e.target as HTMLSelectElement).value as ContentFormat)}>
        {FORMATS.map(([value, words]) => (
          <option key={value} value={value}>
            {words}
          </option>
        ))}
      </select>
      <label for="stream-content-type">Content type (the Content-Type header)</label>
      <input id="stream-content-type" required value={contentType} onInput={(e) => setContentType((e.target as HTMLInputElement).value)} />
      <label for="stream-authorization">Authorization header (write-only{stream ? '; empty keeps the current one' : '; optional'})</label>
      <input
        id="stream-authorization"
        type="password"
        autoComplete="off"
        disabled={removeAuthorization}
        value={authorization}
        onInput={(e) => setAuthorization((e.target as HTMLInputElement).value)}
      />
      {stream && (
        <label class="check">
          <input type="checkbox" checked={removeAuthorization} onChange={(e) => setRemoveAuthorization((e.target as HTMLInputElement).checked)} />
          Remove the Authorization header (deliveries carry none)
        </label>
      )}
      <FormActions close={close} submit={stream ? 'Save…' : 'Create…'} />
    </form>
  );
}
