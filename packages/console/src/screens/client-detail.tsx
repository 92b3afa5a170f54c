import { useState } from 'preact/hooks';
import { itemsOf, ok } from '../api';
import { DeleteButton } from '../components/form';
import { ErrorMessage, Loading, Notice, useConfirm, useLoad, type Confirm } from '../components/ui';
import { useCan, useConsole } from '../context';
import { href } from '../router';
import { APP_TYPES, CONFIDENTIAL_TYPES, type Client, type ClientGrant, type ResourceServer } from './applications-data';
import { ClientGrants } from './client-grants';
import { ClientSettingsForm } from './client-settings-form';

/** `#/applications/<client_id>`: every setting of one application, its secret, its API access, and deleting it (not a built-in one). */
export function ClientDetail({ clientId }: { clientId: string }) {
  const { api } = useConsole();
  const can = useCan();
  const [confirm, dialog] = useConfirm();
  const [message, setMessage] = useState('');
  const client = useLoad(() => ok(api.GET('/api/v2/clients/{id}', { params: { path: { id: clientId } } })) as Promise<Client>, [clientId]);
  const apis = useLoad(
    () => (can('read:resource_servers') ? ok(api.GET('/api/v2/resource-servers', { params: { query: { per_page: 100 } } })).then((a) => itemsOf<ResourceServer>(a, 'resource_servers')) : Promise.resolve([])),
    [],
  );
  const grants = useLoad(
    () =>
      can('read:client_grants')
        ? ok(api.GET('/api/v2/client-grants', { params: { query: { client_id: clientId, per_page: 100 } } })).then((a) => itemsOf<ClientGrant>(a, 'client_grants'))
        : Promise.resolve([]),
    [clientId],
  );
  if (client.error)
    return (
      <section aria-labelledby="client-title">
        <h1 id="client-title">Application {clientId}</h1>
        <ErrorMessage error={client.error} />
        <p>
          <a href={href('applications')}>All applications</a>
        </p>
      </section>
    );
  if (!client.data) return <Loading what="the application" />;
  const c = client.data;
  return (
    <section aria-labelledby="client-title">
      <p>
        <a href={href('applications')}>← All applications</a>
      </p>
      <h1 id="client-title">{c.name}</h1>
      {dialog}
      {message && <Notice>{message}</Notice>}
      <dl class="facts">
        <dt>Client id</dt>
        <dd>
          <code>{c.client_id}</code>
        </dd>
        <dt>Type</dt>
        <dd>{APP_TYPES.find(([v]) => v === c.app_type)?.[2] ?? c.app_type}</dd>
      </dl>
      {c.built_in && (
        <p class="notice" data-testid="built-in">
          Built in: identity keeps this application itself (the bootstrap admin of ADMIN_CLIENT_ID, or the console's own client, created again at each
          start), so it is not deleted here, and its type does not change.
        </p>
      )}
      <ClientSettingsForm
        key={JSON.stringify(c)}
        client={c}
        apis={apis.data ?? []}
        confirm={confirm}
        readOnly={!can('update:clients')}
        saved={(changed) => {
          setMessage(`Saved: ${changed}.`);
          client.reload();
        }}
      />
      {CONFIDENTIAL_TYPES.has(c.app_type) && can('update:clients') && <RotateSecret client={c} confirm={confirm} />}
      <section class="card" aria-labelledby="client-access">
        <h2 id="client-access">API access</h2>
        {grants.error ? (
          <ErrorMessage error={grants.error} />
        ) : !grants.data ? (
          <Loading what="its API access" />
        ) : (
          <ClientGrants client={c} grants={grants.data} apis={apis.data ?? []} confirm={confirm} done={grants.reload} />
        )}
      </section>
      {can('delete:clients') && !c.built_in && (
        <section class="card danger-zone" aria-labelledby="client-delete">
          <h2 id="client-delete">Delete</h2>
          <DeleteButton
            confirm={confirm}
            kind="application"
            name={c.name}
            effect={
              <p>
                {c.name} ({c.client_id}) is deleted for good: its credentials stop working at once, and its refresh tokens, pending sign-ins and codes, its
                access to APIs (client grants) and its place on connections are deleted, so its users must sign in again when their access token expires.
                Access tokens it already holds stay valid until they expire.
              </p>
            }
            run={() => ok(api.DELETE('/api/v2/clients/{id}', { params: { path: { id: c.client_id } } }))}
            done={() => (location.hash = href('applications'))}
          />
        </section>
      )}
    </section>
  );
}

/** A new secret, shown once; the API keeps no grace period: the old secret stops working at once. */
function RotateSecret({ client, confirm }: { client: Client; confirm: Confirm }) {
  const { api } = useConsole();
  const [secret, setSecret] = useState<string | undefined>();
  return (
    <section class="card" aria-labelledby="client-secret">
      <h2 id="client-secret">Client secret</h2>
      {secret ? (
        <div class="notice secret" role="alert" data-testid="rotated-secret">
          <p>
            <strong>Copy the new client secret now: it is shown this once.</strong> The console and the API never show it again. Keep it out of source code,
            chat and logs.
          </p>
          <label for="rotated-secret">New client secret of {client.name}</label>
          <input id="rotated-secret" readOnly value={secret} onFocus={(e) => (e.target as HTMLInputElement).select()} />
          <p>
            <button type="button" onClick={() => setSecret(undefined)}>
              I have copied the secret
            </button>
          </p>
        </div>
      ) : (
        <button
          type="button"
          onClick={() =>
            confirm({
              title: `Rotate the client secret of ${client.name}?`,
              effect: (
                <p>
                  identity makes a new secret and shows it once. <strong>The old secret stops working at once</strong> (the API keeps no grace period for it):
                  every server using it is refused until it has the new one.
                </p>
              ),
              action: 'Rotate the secret',
              danger: true,
              run: async () => setSecret((await ok(api.POST('/api/v2/clients/{id}/rotate-secret', { params: { path: { id: client.client_id } } }))).client_secret),
            })
          }
        >
          Rotate the secret of {client.name}…
        </button>
      )}
    </section>
  );
}
