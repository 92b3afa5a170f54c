import { itemsOf, ok } from '../api';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ErrorMessage, formatDate, Loading } from '../components/ui';
import { useConsole } from '../context';
import type { TenantLog } from './timeline';

/** How often the live view asks for new events. */
const LIVE_POLL_MS = 3000;

export function Logs() {
  const { api } = useConsole();
  const [text, setText] = useState('');
  const [query, setQuery] = useState('');
  const [logs, setLogs] = useState<TenantLog[] | undefined>();
  const [error, setError] = useState<unknown>();
  const [live, setLive] = useState(false);
  const newest = useRef<string | undefined>(undefined);

  useEffect(() => {
    let stop = false;
    setLogs(undefined);
    setError(undefined);
    ok(api.GET('/api/v2/logs', { params: { query: { q: query || undefined, per_page: 50, sort: 'date:-1' } } })).then(
      (answer) => {
        if (stop) return;
        const list = itemsOf<TenantLog>(answer, 'logs');
        newest.current = list[0]?.log_id;
        setLogs(list);
      },
      (err: unknown) => !stop && setError(err),
    );
    return () => {
      stop = true;
    };
  }, [query]);

  // The live view: the events after the newest one shown (checkpoint paging), every few seconds.
  useEffect(() => {
    if (!live) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout>;
    const poll = async () => {
      try {
        if (newest.current) {
          const fresh = itemsOf<TenantLog>(await ok(api.GET('/api/v2/logs', { params: { query: { from: newest.current, take: 100 } } })), 'logs');
          if (!stopped && fresh.length) {
            newest.current = fresh[fresh.length - 1]!.log_id;
            setLogs((old) => [...fresh.reverse(), ...(old ?? [])].slice(0, 500));
          }
        }
        setError(undefined);
      } catch (err) {
        if (!stopped) setError(err);
      }
      if (!stopped) timer = setTimeout(poll, LIVE_POLL_MS);
    };
    timer = setTimeout(poll, LIVE_POLL_MS);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [live]);

  return (
    <section aria-labelledby="logs-title">
      <h1 id="logs-title">Logs</h1>
      <form
        role="search"
        class="inline"
        onSubmit={(e) => {
          e.preventDefault();
          setQuery(text.trim());
        }}
      >
        <label for="log-search">Search (e.g. type:fp, user_id:"sms|…", phone_number:"+1…")</label>
        <input id="log-search" type="search" value={text} onInput={(e) => setText((e.target as HTMLInputElement).value)} />
        <button type="submit" class="primary">
          Search
        </button>
      </form>
      <label class="inline">
        <input type="checkbox" checked={live} onChange={(e) => setLive((e.target as HTMLInputElement).checked)} disabled={Boolean(query)} /> Live view (new events
        every {LIVE_POLL_MS / 1000} s{query ? '; clear the search to use it' : ''})
      </label>
      <ErrorMessage error={error} />
      {!logs ? (
        !error && <Loading what="logs" />
      ) : logs.length === 0 ? (
        <p>No log event.</p>
      ) : (
        <div class="table-scroll" tabIndex={0} aria-live={live ? 'polite' : 'off'}>
          <table data-testid="logs-table">
            <caption class="visually-hidden">Tenant log events, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Date</th>
                <th scope="col">Event</th>
                <th scope="col">Number / user</th>
                <th scope="col">Details</th>
              </tr>
            </thead>
            <tbody>
              {logs.map((l) => (
                <tr key={l.log_id}>
                  <td>{formatDate(l.date)}</td>
                  <th scope="row">
                    {l.description} <code>{l.type}</code>
                  </th>
                  <td>{l.phone_number ?? l.user_id ?? '—'}</td>
                  <td class="detail">{l.details ? JSON.stringify(l.details) : ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
