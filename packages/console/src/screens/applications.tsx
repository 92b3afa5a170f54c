import { useState } from 'preact/hooks';
import { seg } from '../api';
import { ErrorMessage, Loading, Notice, useConfirm, useLoad } from '../components/ui';
import { useCan, useConsole } from '../context';
import { itemsOf } from './fraud-data';

interface Client {
  client_id: string;
  name: string;
  app_type?: string;
  callbacks?: string[];
  web_origins?: string[];
  allowed_logout_urls?: string[];
  grant_types?: string[];
}
interface ResourceServer {
  id: string;
  name: string;
  identifier: string;
  scopes?: Array<{ value: string }>;
  is_system?: boolean;
}
interface ClientGrant {
  id: string;
  client_id: string;
  audience: string;
  scope: string[];
}

const lines = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);

export function Applications() {
  const { api } = useConsole();
  const can = useCan();
  const clients = useLoad(() => api.get<unknown>('/clients', { per_page: 100 }).then((a) => itemsOf<Client>(a, 'clients')), []);
  const apis = useLoad(
    () => (can('read:resource_servers') ? api.get<unknown>('/resource-servers', { per_page: 100 }).then((a) => itemsOf<ResourceServer>(a, 'resource_servers')) : Promise.resolve([])),
    [],
  );
  const grants = useLoad(
    () => (can('read:client_grants') ? api.get<unknown>('/client-grants', { per_page: 100 }).then((a) => itemsOf<ClientGrant>(a, 'client_grants')) : Promise.resolve([])),
    [],
  );
  return (
    <section aria-labelledby="apps-title">
      <h1 id="apps-title">Applications and APIs</h1>
      <h2>Applications</h2>
      {/* While reloading after a change the cards stay (keeping their "Saved." notice); only the first load shows Loading. */}
      {clients.error ? (
        <ErrorMessage error={clients.error} />
      ) : !clients.data ? (
        <Loading what="applications" />
      ) : (
        clients.data.map((c) => <ClientCard key={c.client_id} client={c} grants={(grants.data ?? []).filter((g) => g.client_id === c.client_id)} reload={clients.reload} />)
      )}
      <h2>APIs</h2>
      {apis.loading ? (
        <Loading what="APIs" />
      ) : apis.error ? (
        <ErrorMessage error={apis.error} />
      ) : (
        <div class="table-scroll" tabIndex={0}>
          <table>
            <caption class="visually-hidden">APIs (resource servers)</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Identifier (audience)</th>
                <th scope="col">Scopes</th>
              </tr>
            </thead>
            <tbody>
              {apis.data!.map((r) => (
                <tr key={r.id}>
                  <th scope="row">{r.name}</th>
                  <td>
                    <code>{r.identifier}</code>
                  </td>
                  <td>{r.is_system ? 'management API' : (r.scopes ?? []).map((s) => s.value).join(', ') || '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function ClientCard({ client, grants, reload }: { client: Client; grants: ClientGrant[]; reload: () => void }) {
  const { api } = useConsole();
  const can = useCan();
  const [confirm, dialog] = useConfirm();
  const [editing, setEditing] = useState(false);
  const [callbacks, setCallbacks] = useState((client.callbacks ?? []).join('\n'));
  const [origins, setOrigins] = useState((client.web_origins ?? []).join('\n'));
  const [message, setMessage] = useState('');
  const id = `client-${client.client_id}`;
  return (
    <section class="card" aria-labelledby={id}>
      <h3 id={id}>{client.name}</h3>
      {dialog}
      {message && <Notice>{message}</Notice>}
      <dl class="facts">
        <dt>Client id</dt>
        <dd>
          <code>{client.client_id}</code>
        </dd>
        <dt>Type</dt>
        <dd>{client.app_type ?? '—'}</dd>
        <dt>Grants</dt>
        <dd>{(client.grant_types ?? []).join(', ') || '—'}</dd>
        <dt>Callbacks</dt>
        <dd>{(client.callbacks ?? []).join(', ') || '—'}</dd>
        <dt>Web origins</dt>
        <dd>{(client.web_origins ?? []).join(', ') || '—'}</dd>
        <dt>API access</dt>
        <dd>{grants.length ? grants.map((g) => `${g.audience} (${g.scope.join(' ')})`).join('; ') : '—'}</dd>
      </dl>
      {can('update:clients') && !editing && (
        <button type="button" onClick={() => setEditing(true)}>
          Edit URLs of {client.name}
        </button>
      )}
      {editing && (
        <form
          class="stack"
          onSubmit={(e) => {
            e.preventDefault();
            const body = { callbacks: lines(callbacks), web_origins: lines(origins) };
            confirm({
              title: `Change the URLs of ${client.name}?`,
              effect: (
                <p>
                  Callbacks become {body.callbacks.join(', ') || 'none'}; web origins become {body.web_origins.join(', ') || 'none'}. A sign-in returning anywhere
                  else is refused from now on.
                </p>
              ),
              action: 'Save',
              run: () => api.patch(`/clients/${seg(client.client_id)}`, body),
              done: () => {
                setEditing(false);
                setMessage('Saved.');
                reload();
              },
            });
          }}
        >
          <label for={`${id}-callbacks`}>Callback URLs (one a line)</label>
          <textarea id={`${id}-callbacks`} rows={3} value={callbacks} onInput={(e) => setCallbacks((e.target as HTMLTextAreaElement).value)} />
          <label for={`${id}-origins`}>Web origins (one a line)</label>
          <textarea id={`${id}-origins`} rows={2} value={origins} onInput={(e) => setOrigins((e.target as HTMLTextAreaElement).value)} />
          <div class="actions">
            <button type="button" onClick={() => setEditing(false)}>
              Cancel
            </button>
            <button type="submit" class="primary">
              Save…
            </button>
          </div>
        </form>
      )}
    </section>
  );
}
