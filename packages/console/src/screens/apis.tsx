import { useState } from 'preact/hooks';
import { itemsOf, ok } from '../api';
import { FormActions, FormOpener } from '../components/form';
import { ErrorMessage, Loading, useConfirm, useFocusOnMount, useLoad, type Confirm } from '../components/ui';
import { useCan, useConsole } from '../context';
import { href } from '../router';
import { ApiDetail } from './api-detail';
import type { ResourceServer } from './applications-data';
import { scopesOf } from './client-settings';
import { Roles } from './roles';

/** `#/apis`: the APIs (resource servers) and the roles; `#/apis/<id>`: that API's page. */
export function Apis({ route }: { route: string[] }) {
  return route[0] ? <ApiDetail id={route[0]} /> : <ApiList />;
}

function ApiList() {
  const { api } = useConsole();
  const can = useCan();
  const [confirm, dialog] = useConfirm();
  const readable = can('read:resource_servers');
  const apis = useLoad(
    () => (readable ? ok(api.GET('/api/v2/resource-servers', { params: { query: { per_page: 100 } } })).then((a) => itemsOf<ResourceServer>(a, 'resource_servers')) : Promise.resolve([])),
    [],
  );
  return (
    <section aria-labelledby="apis-title">
      <h1 id="apis-title">APIs and roles</h1>
      {dialog}
      {readable && <h2>APIs</h2>}
      {readable && can('create:resource_servers') && (
        <FormOpener label="New API…" done={apis.reload}>
          {(close, done) => <ApiForm confirm={confirm} close={close} done={done} />}
        </FormOpener>
      )}
      {!readable ? null : apis.error ? (
        <ErrorMessage error={apis.error} />
      ) : !apis.data ? (
        <Loading what="APIs" />
      ) : (
        <>
          <div class="table-scroll" tabIndex={0} role="region" aria-label="APIs table">
            <table data-testid="apis">
              <caption class="visually-hidden">APIs (resource servers)</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Identifier (audience)</th>
                  <th scope="col">Scopes</th>
                </tr>
              </thead>
              <tbody>
                {apis.data.map((r) => (
                  <tr key={r.id}>
                    <th scope="row">
                      <a href={href('apis', r.id)}>{r.name}</a>
                    </th>
                    <td>
                      <code>{r.identifier}</code>
                    </td>
                    <td>{r.is_system ? 'management API' : (r.scopes ?? []).map((s) => s.value).join(', ') || '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
      {can('read:roles') && <Roles apis={apis.data ?? []} />}
    </section>
  );
}

function ApiForm({ confirm, close, done }: { confirm: Confirm; close: () => void; done: () => void }) {
  const { api } = useConsole();
  const [name, setName] = useState('');
  const [identifier, setIdentifier] = useState('');
  const [scopes, setScopes] = useState('');
  const first = useFocusOnMount<HTMLInputElement>();
  return (
    <form
      class="stack card"
      aria-label="New API"
      onSubmit={(e) => {
        e.preventDefault();
        const body = { name, identifier, scopes: scopesOf(scopes) };
        confirm({
          title: `Create the API ${name}?`,
          effect: (
            <p>
              Applications may then ask for tokens whose audience is {identifier} (exactly: a trailing slash is another API), with the scopes{' '}
              {body.scopes.map((s) => s.value).join(' ') || '(none)'}. The identifier cannot be changed later.
            </p>
          ),
          action: 'Create',
          run: () => ok(api.POST('/api/v2/resource-servers', { body: body })),
          done,
        });
      }}
    >
      <h3>New API</h3>
      <label for="api-name">Name</label>
      <input ref={first} id="api-name" required value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
      <label for="api-identifier">Identifier (the audience, usually the API's URL)</label>
      <input id="api-identifier" required value={identifier} onInput={(e) => setIdentifier((e.target as HTMLInputElement).value)} placeholder="https://api.example.com/" />
      <label for="api-scopes">Scopes (one a line: the scope, then an optional description)</label>
      <textarea id="api-scopes" rows={3} value={scopes} onInput={(e) => setScopes((e.target as HTMLTextAreaElement).value)} placeholder="read:flights Read flights" />
      <FormActions close={close} submit="Create…" />
    </form>
  );
}
