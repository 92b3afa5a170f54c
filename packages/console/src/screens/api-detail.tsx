import { useState } from 'preact/hooks';
import { ok } from '../api';
import { DeleteButton } from '../components/form';
import { ErrorMessage, Loading, Notice, useConfirm, useLoad, type Confirm } from '../components/ui';
import { useCan, useConsole } from '../context';
import { href } from '../router';
import type { ResourceServer } from './applications-data';
import { apiChanges, apiFormOf, type ApiForm } from './client-settings';
import { ChangeList } from './client-settings-form';

/** `#/apis/<id>`: an API's name, scopes, RBAC settings and token lifetime; deleting it (not the management API, whose name and scopes do not change either). */
export function ApiDetail({ id }: { id: string }) {
  const { api } = useConsole();
  const can = useCan();
  const [confirm, dialog] = useConfirm();
  const [message, setMessage] = useState('');
  const server = useLoad(() => ok(api.GET('/api/v2/resource-servers/{id}', { params: { path: { id } } })) as Promise<ResourceServer>, [id]);
  if (server.error)
    return (
      <section aria-labelledby="api-title">
        <h1 id="api-title">API {id}</h1>
        <ErrorMessage error={server.error} />
        <p>
          <a href={href('apis')}>All APIs</a>
        </p>
      </section>
    );
  if (!server.data) return <Loading what="the API" />;
  const r = server.data;
  return (
    <section aria-labelledby="api-title">
      <p>
        <a href={href('apis')}>← All APIs and roles</a>
      </p>
      <h1 id="api-title">{r.name}</h1>
      {dialog}
      {message && <Notice>{message}</Notice>}
      <dl class="facts">
        <dt>Identifier (audience; never changes)</dt>
        <dd>
          <code>{r.identifier}</code>
        </dd>
        <dt>Signing algorithm</dt>
        <dd>{r.signing_alg} (the only one identity signs with)</dd>
      </dl>
      {r.is_system && (
        <p class="notice" data-testid="built-in">
          The management API: built in. Its name and scopes are identity's own and it is not deleted; its RBAC settings and token lifetime can change.
        </p>
      )}
      <ApiSettingsForm
        key={JSON.stringify(r)}
        server={r}
        confirm={confirm}
        readOnly={!can('update:resource_servers')}
        saved={(changed) => {
          setMessage(`Saved: ${changed}.`);
          server.reload();
        }}
      />
      {can('delete:resource_servers') && !r.is_system && (
        <section class="card danger-zone" aria-labelledby="api-delete">
          <h2 id="api-delete">Delete</h2>
          <DeleteButton
            confirm={confirm}
            kind="API"
            name={r.name}
            effect={
              <p>
                identity issues no more tokens for {r.identifier}: every application's access to it (client grants) and every role's and user's permissions on
                it are deleted. Tokens already issued for it stay valid at the API until they expire. It cannot be undone.
              </p>
            }
            run={() => ok(api.DELETE('/api/v2/resource-servers/{id}', { params: { path: { id: r.id } } }))}
            done={() => (location.hash = href('apis'))}
          />
        </section>
      )}
    </section>
  );
}

function ApiSettingsForm({ server, confirm, readOnly, saved }: { server: ResourceServer; confirm: Confirm; readOnly: boolean; saved: (changed: string) => void }) {
  const { api } = useConsole();
  const [form, setForm] = useState<ApiForm>(() => apiFormOf(server));
  const [problem, setProblem] = useState<unknown>();
  const set = <K extends keyof ApiForm>(key: K, value: ApiForm[K]) => setForm((f) => ({ ...f, [key]: value }));
  return (
    <form
      class="stack card"
      aria-label={`Settings of ${server.name}`}
      onSubmit={(e) => {
        e.preventDefault();
        const diff = apiChanges(server, form);
        if (diff.changes.length === 0) {
          setProblem(new Error('Nothing changed.'));
          return;
        }
        setProblem(undefined);
        confirm({
          title: `Save ${diff.changes.length} change(s) to ${server.name}?`,
          effect: (
            <>
              <ChangeList changes={diff.changes} />
              <p>
                Tokens issued from now on follow them. A scope removed is taken from every client grant and permission that names it; tokens already issued
                keep theirs until they expire.
              </p>
            </>
          ),
          action: 'Save',
          run: () => ok(api.PATCH('/api/v2/resource-servers/{id}', { params: { path: { id: server.id } }, body: diff.patch })),
          done: () => saved(diff.changes.map((c) => c.label).join(', ')),
        });
      }}
    >
      <fieldset class="stack" disabled={readOnly}>
        <legend>Settings</legend>
        <label for="api-detail-name">Name</label>
        <input id="api-detail-name" value={form.name} disabled={server.is_system} onInput={(e) => set('name', (e.target as HTMLInputElement).value)} />
        <label for="api-detail-scopes">Scopes (one a line: the scope, then an optional description)</label>
        <textarea
          id="api-detail-scopes"
          rows={Math.min(12, Math.max(3, (server.scopes ?? []).length + 1))}
          value={form.scopes}
          disabled={server.is_system}
          onInput={(e) => set('scopes', (e.target as HTMLTextAreaElement).value)}
        />
        <label for="api-detail-lifetime">Access token lifetime in seconds (60–2592000)</label>
        <input id="api-detail-lifetime" type="number" min={60} max={2592000} value={form.token_lifetime} onInput={(e) => set('token_lifetime', (e.target as HTMLInputElement).value)} />
        <label class="check">
          <input type="checkbox" checked={form.enforce_policies} onChange={(e) => set('enforce_policies', (e.target as HTMLInputElement).checked)} /> RBAC: a user's token gets only
          the scopes their roles and permissions grant (enforce_policies)
        </label>
        <label for="api-detail-dialect">Token dialect</label>
        <select id="api-detail-dialect" value={form.token_dialect} onChange={(e) => set('token_dialect', (e.target as HTMLSelectElement).value as ApiForm['token_dialect'])}>
          <option value="access_token">access_token: the granted scopes in scope</option>
          <option value="access_token_authz">access_token_authz: also permissions (needs RBAC)</option>
        </select>
      </fieldset>
      <ErrorMessage error={problem} />
      {!readOnly && (
        <div class="actions">
          <button type="submit" class="primary">
            Save…
          </button>
        </div>
      )}
    </form>
  );
}
