import { itemsOf, ok } from '../api';
import { useState } from 'preact/hooks';
import { ErrorMessage, Loading, useConfirm, useLoad } from '../components/ui';
import { useCan, useConsole } from '../context';
import { Apis } from './apis';
import type { Client, ClientGrant, ResourceServer } from './applications-data';
import { ClientCard } from './client-card';
import { CreatedClient, NewClient } from './new-client';
import { Roles } from './roles';

/** Applications (clients) with their grants and API access, the APIs, and the roles that hold permissions on them. */
export function Applications() {
  const { api } = useConsole();
  const can = useCan();
  const [confirm, dialog] = useConfirm();
  // A client just created: its secret is shown this once, until dismissed.
  const [created, setCreated] = useState<Client | undefined>();
  const clients = useLoad(() => ok(api.GET('/api/v2/clients', { params: { query: { per_page: 100 } } })).then((a) => itemsOf<Client>(a, 'clients')), []);
  const apis = useLoad(
    () => (can('read:resource_servers') ? ok(api.GET('/api/v2/resource-servers', { params: { query: { per_page: 100 } } })).then((a) => itemsOf<ResourceServer>(a, 'resource_servers')) : Promise.resolve([])),
    [],
  );
  const grants = useLoad(
    () => (can('read:client_grants') ? ok(api.GET('/api/v2/client-grants', { params: { query: { per_page: 100 } } })).then((a) => itemsOf<ClientGrant>(a, 'client_grants')) : Promise.resolve([])),
    [],
  );
  return (
    <section aria-labelledby="apps-title">
      <h1 id="apps-title">Applications and APIs</h1>
      {dialog}
      <h2>Applications</h2>
      {created && <CreatedClient client={created} dismiss={() => setCreated(undefined)} />}
      {can('create:clients') && (
        <NewClient
          confirm={confirm}
          created={(client) => {
            setCreated(client);
            clients.reload();
          }}
        />
      )}
      {/* While reloading after a change the cards stay (keeping their "Saved." notice); only the first load shows Loading. */}
      {clients.error ? (
        <ErrorMessage error={clients.error} />
      ) : !clients.data ? (
        <Loading what="applications" />
      ) : (
        clients.data.map((c) => (
          <ClientCard
            key={c.client_id}
            client={c}
            grants={(grants.data ?? []).filter((g) => g.client_id === c.client_id)}
            apis={apis.data ?? []}
            reload={clients.reload}
            reloadGrants={grants.reload}
          />
        ))
      )}
      <h2>APIs</h2>
      {apis.error ? <ErrorMessage error={apis.error} /> : !apis.data ? <Loading what="APIs" /> : (
        <Apis
          apis={apis.data}
          reload={() => {
            apis.reload();
            grants.reload();
          }}
        />
      )}
      {can('read:roles') && <Roles apis={apis.data ?? []} />}
    </section>
  );
}
