import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { itemsOf, ok } from '../api';
import { DeleteButton, FormActions, FormOpener } from '../components/form';
import { ErrorMessage, Loading, Notice, useConfirm, useFocusOnMount, useLoad, type Confirm } from '../components/ui';
import { useCan, useConsole } from '../context';
import { difference, inChunks, listRoles, type Permission, type ResourceServer, type Role } from './applications-data';
import { roleChanges } from './client-settings';
import { ChangeList } from './client-settings-form';
import { ScopeChecks } from './scope-checks';

/**
 * Roles (docs/rbac.md): each with its permissions (scopes of APIs); created, their permissions
 * changed, and deleted (not the built-in ones) as the operator's scopes allow. Who holds a role
 * is changed on the user's page.
 */
export function Roles({ apis }: { apis: ResourceServer[] }) {
  const { api } = useConsole();
  const can = useCan();
  const [confirm, dialog] = useConfirm();
  const roles = useLoad(() => listRoles(api), []);
  return (
    <section aria-labelledby="roles-title">
      <h2 id="roles-title">Roles</h2>
      {dialog}
      <p>A role holds permissions (scopes of APIs); an operator's token carries the management scopes their roles hold. Give roles on a user's page.</p>
      {can('create:roles') && (
        <FormOpener label="New role…" done={roles.reload}>
          {(close, done) => <RoleForm confirm={confirm} close={close} done={done} />}
        </FormOpener>
      )}
      {roles.error ? (
        <ErrorMessage error={roles.error} />
      ) : !roles.data ? (
        <Loading what="roles" />
      ) : (
        roles.data.map((r) => <RoleCard key={r.id} role={r} apis={apis} confirm={confirm} reload={roles.reload} />)
      )}
    </section>
  );
}

function RoleForm({ confirm, close, done }: { confirm: Confirm; close: () => void; done: () => void }) {
  const { api } = useConsole();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const first = useFocusOnMount<HTMLInputElement>();
  return (
    <form
      class="stack card"
      aria-label="New role"
      onSubmit={(e) => {
        e.preventDefault();
        confirm({
          title: `Create the role ${name}?`,
          effect: <p>A role with no permission yet: give it permissions here, then give it to users on their page.</p>,
          action: 'Create',
          run: () => ok(api.POST('/api/v2/roles', { body: description ? { name, description } : { name } })),
          done,
        });
      }}
    >
      <h3>New role</h3>
      <label for="role-name">Name</label>
      <input ref={first} id="role-name" required maxLength={50} value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
      <label for="role-description">Description (optional)</label>
      <input id="role-description" maxLength={140} value={description} onInput={(e) => setDescription((e.target as HTMLInputElement).value)} />
      <FormActions close={close} submit="Create…" />
    </form>
  );
}

function RoleCard({ role, apis, confirm, reload }: { role: Role; apis: ResourceServer[]; confirm: Confirm; reload: () => void }) {
  const { api } = useConsole();
  const can = useCan();
  const permissions = useLoad(() => ok(api.GET('/api/v2/roles/{id}/permissions', { params: { path: { id: role.id }, query: { per_page: 100 } } })).then((a) => itemsOf<Permission>(a, 'permissions')), [role.id]);
  const [editing, setEditing] = useState<'permissions' | 'name' | false>(false);
  const [message, setMessage] = useState('');
  const id = `role-${role.id}`;
  const byApi = new Map<string, string[]>();
  for (const p of permissions.data ?? []) byApi.set(p.resource_server_identifier, [...(byApi.get(p.resource_server_identifier) ?? []), p.permission_name]);
  const nameOf = (identifier: string) => apis.find((a) => a.identifier === identifier)?.name ?? identifier;
  return (
    <section class="card" aria-labelledby={id}>
      <h3 id={id}>
        {role.name}
        {role.built_in ? <span class="detail"> (built-in)</span> : null}
      </h3>
      {role.description && <p>{role.description}</p>}
      {message && <Notice>{message}</Notice>}
      {permissions.error ? (
        <ErrorMessage error={permissions.error} />
      ) : !permissions.data ? (
        <Loading what={`the permissions of ${role.name}`} />
      ) : byApi.size === 0 ? (
        <p>No permission.</p>
      ) : (
        <dl class="facts" data-testid="role-permissions">
          {[...byApi].map(([identifier, names]) => (
            <Fragment key={identifier}>
              <dt>{nameOf(identifier)}</dt>
              <dd>{names.join(' ')}</dd>
            </Fragment>
          ))}
        </dl>
      )}
      {!editing && (
        <div class="actions">
          {can('update:roles') && (
            <button type="button" onClick={() => setEditing('name')}>
              Rename or describe {role.name}…
            </button>
          )}
          {can('update:roles') && apis.length > 0 && permissions.data && (
            <button type="button" onClick={() => setEditing('permissions')}>
              Edit permissions of {role.name}…
            </button>
          )}
          {can('delete:roles') && !role.built_in && (
            <DeleteButton
              confirm={confirm}
              kind="role"
              name={role.name}
              effect={
                <p>
                  The role is deleted for good: the users holding it lose its permissions from their next token (at the latest when the current one is
                  renewed); an access token already issued keeps them until it expires.
                </p>
              }
              run={() => ok(api.DELETE('/api/v2/roles/{id}', { params: { path: { id: role.id } } }))}
              done={reload}
            />
          )}
        </div>
      )}
      {editing === 'name' && (
        <RoleNameForm
          role={role}
          confirm={confirm}
          close={() => setEditing(false)}
          done={() => {
            setEditing(false);
            setMessage('Saved.');
            reload();
          }}
        />
      )}
      {editing === 'permissions' && permissions.data && (
        <PermissionsForm
          role={role}
          held={permissions.data}
          apis={apis}
          confirm={confirm}
          close={() => setEditing(false)}
          done={() => {
            setEditing(false);
            setMessage('Permissions saved.');
            permissions.reload();
          }}
        />
      )}
    </section>
  );
}

/** The role's name and description (`PATCH /roles/{id}`); the dialog lists what changes. */
function RoleNameForm({ role, confirm, close, done }: { role: Role; confirm: Confirm; close: () => void; done: () => void }) {
  const { api } = useConsole();
  const [name, setName] = useState(role.name);
  const [description, setDescription] = useState(role.description);
  const first = useFocusOnMount<HTMLInputElement>();
  const formId = `rename-${role.id}`;
  return (
    <form
      class="stack"
      aria-label={`Name and description of ${role.name}`}
      onSubmit={(e) => {
        e.preventDefault();
        const { patch, changes } = roleChanges(role, { name, description });
        if (changes.length === 0) return close();
        confirm({
          title: `Save ${changes.length} change(s) to the role ${role.name}?`,
          effect: (
            <>
              <ChangeList changes={changes} />
              <p>Who holds the role and its permissions stay as they are.</p>
            </>
          ),
          action: 'Save',
          run: () => ok(api.PATCH('/api/v2/roles/{id}', { params: { path: { id: role.id } }, body: patch })),
          done,
        });
      }}
    >
      <label for={`${formId}-name`}>Name</label>
      <input ref={first} id={`${formId}-name`} required maxLength={50} value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
      <label for={`${formId}-description`}>Description</label>
      <input id={`${formId}-description`} maxLength={140} value={description} onInput={(e) => setDescription((e.target as HTMLInputElement).value)} />
      <FormActions close={close} submit="Save…" />
    </form>
  );
}

/** One API's scopes as checkboxes; saving adds and removes the difference (the API refuses changing Admin's: shown in its words). */
function PermissionsForm({ role, held, apis, confirm, close, done }: { role: Role; held: Permission[]; apis: ResourceServer[]; confirm: Confirm; close: () => void; done: () => void }) {
  const { api } = useConsole();
  const heldOn = (identifier: string) => new Set(held.filter((p) => p.resource_server_identifier === identifier).map((p) => p.permission_name));
  // Where the role already holds permissions, else the management API (the console's roles are mostly operators').
  const [identifier, setIdentifier] = useState(
    held.find((p) => apis.some((a) => a.identifier === p.resource_server_identifier))?.resource_server_identifier ?? (apis.find((a) => a.is_system) ?? apis[0]!).identifier,
  );
  const [chosen, setChosen] = useState(heldOn(identifier));
  const target = apis.find((a) => a.identifier === identifier)!;
  const formId = `perm-${role.id}`;
  const first = useFocusOnMount<HTMLSelectElement>();
  return (
    <form
      class="stack"
      aria-label={`Permissions of ${role.name}`}
      onSubmit={(e) => {
        e.preventDefault();
        const { added, removed } = difference(heldOn(identifier), chosen);
        const permissionsOf = (names: string[]) => names.map((permission_name) => ({ resource_server_identifier: identifier, permission_name }));
        confirm({
          title: `Change the permissions of ${role.name} on ${target.name}?`,
          effect: (
            <>
              <ul>
                <li>Given: {added.join(' ') || 'none'}</li>
                <li>Taken away: {removed.join(' ') || 'none'}</li>
              </ul>
              <p>The users holding {role.name} get the change from their next token (at the latest when the current one is renewed).</p>
            </>
          ),
          action: 'Save',
          run: async () => {
            for (const chunk of inChunks(permissionsOf(added))) await ok(api.POST('/api/v2/roles/{id}/permissions', { params: { path: { id: role.id } }, body: { permissions: chunk } }));
            for (const chunk of inChunks(permissionsOf(removed))) await ok(api.DELETE('/api/v2/roles/{id}/permissions', { params: { path: { id: role.id } }, body: { permissions: chunk } }));
          },
          done,
        });
      }}
    >
      <label for={`${formId}-api`}>API</label>
      <select
        ref={first}
        id={`${formId}-api`}
        value={identifier}
        onChange={(e) => {
          const next = (e.target as HTMLSelectElement).value;
          setIdentifier(next);
          setChosen(heldOn(next));
        }}
      >
        {apis.map((a) => (
          <option key={a.identifier} value={a.identifier}>
            {a.name} ({a.identifier})
          </option>
        ))}
      </select>
      <ScopeChecks api={target} chosen={chosen} onChange={setChosen} />
      <FormActions close={close} submit="Save…" />
    </form>
  );
}
