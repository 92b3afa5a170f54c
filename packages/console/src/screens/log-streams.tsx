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
      {streams.loading ? (
        <Loading what="log streams" />
      ) : streams.error ? (
        <ErrorMessage error={streams.error} />
      ) : streams.data!.length === 0 ? (
        <p>No log stream. Create one with the management API (POST /api/v2/log-streams) to send tenant logs to a SIEM.</p>
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
