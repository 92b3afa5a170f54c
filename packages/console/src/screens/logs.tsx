import { useEffect, useRef, useState } from 'preact/hooks';
import { itemsOf, ok } from '../api';
import { ErrorMessage, Loading } from '../components/ui';
import { useConsole } from '../context';
import { href } from '../router';
import { detailEntries, LOG_TYPE_CHOICES, logQueryOf, NO_FILTERS, shortDate, summaryOf, type LogFilters } from './logs-data';
import type { TenantLog } from './timeline';

/** How often the live view asks for new events. */
const LIVE_POLL_MS = 3000;
const PAGE_SIZE = 50;
/** The API's search reaches the first 1,000 logs (`page` beyond answers nothing). */
const SEARCH_WINDOW = 1000;

export function Logs() {
  const { api } = useConsole();
  const [form, setForm] = useState<LogFilters>(NO_FILTERS);
  const [filters, setFilters] = useState<LogFilters>(NO_FILTERS);
  const [page, setPage] = useState(0);
  const [answer, setAnswer] = useState<{ logs: TenantLog[]; total: number } | undefined>();
  const [error, setError] = useState<unknown>();
  const [live, setLive] = useState(false);
  const newest = useRef<string | undefined>(undefined);
  const query = logQueryOf(filters);
  const liveAllowed = !query && page === 0;

  useEffect(() => {
    let stop = false;
    setAnswer(undefined);
    setError(undefined);
    ok(api.GET('/api/v2/logs', { params: { query: { q: query, page, per_page: PAGE_SIZE, include_totals: 'true', sort: 'date:-1' } } })).then(
      (body) => {
        if (stop) return;
        const logs = itemsOf<TenantLog>(body, 'logs');
        newest.current = logs[0]?.log_id;
        setAnswer({ logs, total: Array.isArray(body) ? logs.length : body.total });
      },
      (err: unknown) => !stop && setError(err),
    );
    return () => {
      stop = true;
    };
  }, [query, page]);

  // The live view: the events after the newest one shown (checkpoint paging), every few seconds.
  useEffect(() => {
    if (!live || !liveAllowed) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout>;
    const poll = async () => {
      try {
        if (newest.current) {
          const fresh = itemsOf<TenantLog>(await ok(api.GET('/api/v2/logs', { params: { query: { from: newest.current, take: 100 } } })), 'logs');
          if (!stopped && fresh.length) {
            newest.current = fresh[fresh.length - 1]!.log_id;
            setAnswer((old) => ({ logs: [...fresh.reverse(), ...(old?.logs ?? [])].slice(0, 500), total: (old?.total ?? 0) + fresh.length }));
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
  }, [live, liveAllowed]);

  const field = (name: keyof LogFilters) => ({
    value: form[name],
    onInput: (e: Event) => setForm({ ...form, [name]: (e.target as HTMLInputElement).value }),
  });
  const apply = (next: LogFilters) => {
    setForm(next);
    setFilters(next);
    setPage(0);
  };
  const reachable = Math.min(answer?.total ?? 0, SEARCH_WINDOW);
  const first = page * PAGE_SIZE;

  return (
    <section aria-labelledby="logs-title" class="logs">
      <h1 id="logs-title">Logs</h1>
      <form
        role="search"
        aria-label="Filter the logs"
        class="log-filters"
        onSubmit={(e) => {
          e.preventDefault();
          apply(form);
        }}
      >
        <div>
          <label for="log-type">Type</label>
          <select id="log-type" {...field('type')} onChange={(e) => setForm({ ...form, type: (e.target as HTMLSelectElement).value })}>
            <option value="">Any type</option>
            {LOG_TYPE_CHOICES.map(([type, words]) => (
              <option key={type} value={type}>
                {words} ({type})
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="log-from">From (UTC)</label>
          <input id="log-from" type="date" {...field('from')} />
        </div>
        <div>
          <label for="log-to">To (UTC, included)</label>
          <input id="log-to" type="date" {...field('to')} />
        </div>
        <div class="grow">
          <label for="log-search">More search terms (e.g. user_id:"sms|…", phone_number:"+1…", ip:…)</label>
          <input id="log-search" type="search" {...field('text')} />
        </div>
        <div class="actions">
          <button type="submit" class="primary">
            Search
          </button>
          <button type="button" onClick={() => apply(NO_FILTERS)}>
            Clear
          </button>
        </div>
      </form>
      {query && (
        <p class="detail">
          Query: <code data-testid="log-query">{query}</code>
        </p>
      )}
      <label class="inline">
        <input type="checkbox" checked={live && liveAllowed} onChange={(e) => setLive((e.target as HTMLInputElement).checked)} disabled={!liveAllowed} /> Live view (new
        events every {LIVE_POLL_MS / 1000} s{liveAllowed ? '' : '; clear the filters and go to the newest page to use it'})
      </label>
      <ErrorMessage error={error} />
      {!answer ? (
        !error && <Loading what="logs" />
      ) : answer.logs.length === 0 ? (
        <p>No log event{query ? ' matches these filters' : ''}.</p>
      ) : (
        <>
          <div class="table-scroll" tabIndex={0} aria-live={live ? 'polite' : 'off'} aria-label="Log events">
            <table data-testid="logs-table" class="logs-table">
              <caption class="visually-hidden">Tenant log events, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Date (UTC)</th>
                  <th scope="col">Event</th>
                  <th scope="col">Type</th>
                </tr>
              </thead>
              <tbody>
                {answer.logs.map((log) => (
                  <LogRow key={log.log_id} log={log} />
                ))}
              </tbody>
            </table>
          </div>
          <nav class="paging" aria-label="Log pages">
            <button type="button" disabled={page === 0} onClick={() => setPage(page - 1)}>
              Newer
            </button>
            <span role="status">
              {first + 1}–{first + answer.logs.length} of {answer.total}
              {answer.total > SEARCH_WINDOW ? ` (search reaches the newest ${SEARCH_WINDOW}; narrow the dates for older ones)` : ''}
            </span>
            <button type="button" disabled={first + PAGE_SIZE >= reachable} onClick={() => setPage(page + 1)}>
              Older
            </button>
          </nav>
        </>
      )}
    </section>
  );
}

/** A log event as one readable line (who, what, from where, the outcome), its details one click away. */
export function LogRow({ log }: { log: TenantLog }) {
  const s = summaryOf(log);
  const [raw, setRaw] = useState(false);
  return (
    <tr class={s.failed ? 'failure' : undefined}>
      <td class="nowrap">
        <time dateTime={log.date} title={log.date}>
          {shortDate(log.date)}
        </time>
      </td>
      <td>
        <span class="summary">
          {s.who ? s.userId ? <a href={href('users', s.userId)}>{s.who}</a> : <strong>{s.who}</strong> : <span>Someone unknown</span>} — {s.what}
          {s.where ? ` ${s.where}` : ''} — <span class={s.failed ? 'badge' : 'ok'}>{s.outcome}</span>
        </span>
        <details>
          <summary>Details</summary>
          <dl class="log-details">
            {detailEntries(log).map(([label, value]) => (
              <div key={label}>
                <dt>{label}</dt>
                <dd>{value}</dd>
              </div>
            ))}
          </dl>
          <button type="button" class="link" aria-expanded={raw} onClick={() => setRaw(!raw)}>
            {raw ? 'Hide the raw JSON' : 'Show the raw JSON'}
          </button>
          {raw && <pre class="raw-json">{JSON.stringify(log, null, 2)}</pre>}
        </details>
      </td>
      <td class="nowrap">
        <code>{log.type}</code>
      </td>
    </tr>
  );
}
