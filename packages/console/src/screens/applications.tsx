import { useState } from 'preact/hooks';
import { itemsOf, ok } from '../api';
import { ErrorMessage, Loading, useConfirm, useLoad } from '../components/ui';
import { useCan, useConsole } from '../context';
import { href } from '../router';
import { APP_TYPES, type Client } from './applications-data';
import { ClientDetail } from './client-detail';
import { CreatedClient, NewClient } from './new-client';

const PAGE_SIZE = 25;
/** A tenant has a handful of clients: a search reads them all, a page at a time of the API's largest. */
const SEARCH_PAGE = 100;

/** `#/applications`: the list (search, the API's paging); `#/applications/<client_id>`: that application's page. */
export function Applications({ route }: { route: string[] }) {
  return route[0] ? <ClientDetail clientId={route[0]} /> : <ClientList />;
}

const typeWords = (type: string) => APP_TYPES.find(([v]) => v === type)?.[2] ?? type;

async function everyClient(load: (page: number) => Promise<{ clients: Client[]; total: number }>): Promise<Client[]> {
  const all: Client[] = [];
  for (let page = 0; ; page++) {
    const { clients, total } = await load(page);
    all.push(...clients);
    if (clients.length === 0 || all.length >= total) return all;
  }
}

function ClientList() {
  const { api } = useConsole();
  const can = useCan();
  const [confirm, dialog] = useConfirm();
  const [created, setCreated] = useState<Client | undefined>();
  const [page, setPage] = useState(0);
  const [search, setSearch] = useState('');
  const term = search.trim().toLowerCase();
  const load = (p: number, perPage: number) =>
    ok(api.GET('/api/v2/clients', { params: { query: { page: p, per_page: perPage, include_totals: 'true' } } })).then((answer) => {
      const clients = itemsOf<Client>(answer, 'clients');
      return { clients, total: Array.isArray(answer) ? clients.length : ((answer as { total?: number }).total ?? clients.length) };
    });
  // Without a search: one page of the API's; with one: every client, filtered here (the API has no name filter).
  const list = useLoad<{ clients: Client[]; total: number; searched?: number }>(
    () =>
      term
        ? everyClient((p) => load(p, SEARCH_PAGE)).then((all) => {
            const found = all.filter((c) => c.name.toLowerCase().includes(term) || c.client_id.toLowerCase().includes(term));
            return { clients: found, total: found.length, searched: all.length };
          })
        : load(page, PAGE_SIZE),
    [term, page],
  );
  const pages = list.data ? Math.max(1, Math.ceil(list.data.total / PAGE_SIZE)) : 1;
  return (
    <section aria-labelledby="apps-title">
      <h1 id="apps-title">Applications</h1>
      {dialog}
      {created && <CreatedClient client={created} dismiss={() => setCreated(undefined)} />}
      {can('create:clients') && (
        <NewClient
          confirm={confirm}
          created={(client) => {
            setCreated(client);
            list.reload();
          }}
        />
      )}
      <form class="stack" role="search" aria-label="Applications" onSubmit={(e) => e.preventDefault()}>
        <label for="client-search">Search by name or client id</label>
        <input
          id="client-search"
          type="search"
          value={search}
          onInput={(e) => {
            setSearch((e.target as HTMLInputElement).value);
            setPage(0);
          }}
        />
      </form>
      {list.error ? (
        <ErrorMessage error={list.error} />
      ) : !list.data ? (
        <Loading what="applications" />
      ) : (
        <>
          <p role="status">
            {list.data.searched !== undefined
              ? `${list.data.total} of ${list.data.searched} applications match.`
              : `${list.data.total} application${list.data.total === 1 ? '' : 's'}.`}
          </p>
          <div class="table-scroll" tabIndex={0} role="region" aria-label="Applications table">
            <table data-testid="clients">
              <caption class="visually-hidden">Applications</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Type</th>
                  <th scope="col">Client id</th>
                </tr>
              </thead>
              <tbody>
                {list.data.clients.map((c) => (
                  <tr key={c.client_id}>
                    <th scope="row">
                      <a href={href('applications', c.client_id)}>{c.name}</a>
                      {c.built_in ? <span class="detail"> (built in)</span> : null}
                    </th>
                    <td>{typeWords(c.app_type)}</td>
                    <td>
                      <code>{c.client_id}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {list.data.searched === undefined && pages > 1 && (
            <nav class="paging" aria-label="Pages of applications">
              <button type="button" disabled={page === 0} onClick={() => setPage(page - 1)}>
                Previous page
              </button>
              <span>
                Page {page + 1} of {pages}
              </span>
              <button type="button" disabled={page + 1 >= pages} onClick={() => setPage(page + 1)}>
                Next page
              </button>
            </nav>
          )}
        </>
      )}
    </section>
  );
}
