import { useState } from 'preact/hooks';
import { ok } from '../api';
import { DeleteButton, FormActions, FormOpener } from '../components/form';
import { useConfirm, useFocusOnMount, type Confirm } from '../components/ui';
import { useCan, useConsole } from '../context';
import type { ResourceServer } from './applications-data';

/** "scope description words" a line: the scope, then an optional description. */
function scopesOf(text: string): Array<{ value: string; description: string }> {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const [value, ...words] = line.split(/\s+/);
      return { value: value!, description: words.join(' ') };
    });
}

/** The APIs (resource servers): listed; created and deleted as the operator's scopes allow (never the management API). */
export function Apis({ apis, reload }: { apis: ResourceServer[]; reload: () => void }) {
  const { api } = useConsole();
  const can = useCan();
  const [confirm, dialog] = useConfirm();
  const deletable = can('delete:resource_servers');
  return (
    <>
      {dialog}
      {can('create:resource_servers') && (
        <FormOpener label="New API…" done={reload}>
          {(close, done) => <ApiForm confirm={confirm} close={close} done={done} />}
        </FormOpener>
      )}
      <div class="table-scroll" tabIndex={0}>
        <table data-testid="apis">
          <caption class="visually-hidden">APIs (resource servers)</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Identifier (audience)</th>
              <th scope="col">Scopes</th>
              {deletable && (
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {apis.map((r) => (
              <tr key={r.id}>
                <th scope="row">{r.name}</th>
                <td>
                  <code>{r.identifier}</code>
                </td>
                <td>{r.is_system ? 'management API' : (r.scopes ?? []).map((s) => s.value).join(', ') || '—'}</td>
                {deletable && (
                  <td>
                    {!r.is_system && (
                      <DeleteButton
                        confirm={confirm}
                        kind="API"
                        name={r.name}
                        effect={
                          <p>
                            identity issues no more tokens for {r.identifier}: every application's access to it (client grants) and every role's and user's
                            permissions on it are deleted. Tokens already issued for it stay valid at the API until they expire. It cannot be undone.
                          </p>
                        }
                        run={() => ok(api.DELETE('/api/v2/resource-servers/{id}', { params: { path: { id: r.id } } }))}
                        done={reload}
                      />
                    )}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
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
