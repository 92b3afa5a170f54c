import { useState } from 'preact/hooks';
import { ok } from '../api';
import { FormActions } from '../components/form';
import { useFocusOnMount, type Confirm } from '../components/ui';
import { useCan, useConsole } from '../context';
import { difference, type Client, type ClientGrant, type ResourceServer } from './applications-data';
import { ScopeChecks } from './scope-checks';

/**
 * A client's API access (`/client-grants`): which API it may get machine-to-machine tokens for
 * (client credentials), with which scopes; changed, removed or given as the operator's scopes allow.
 */
export function ClientGrants({ client, grants, apis, confirm, done }: { client: Client; grants: ClientGrant[]; apis: ResourceServer[]; confirm: Confirm; done: () => void }) {
  const { api } = useConsole();
  const can = useCan();
  // The grant whose scopes are being changed, 'new' for a new one, or none.
  const [editing, setEditing] = useState<ClientGrant | 'new' | undefined>();
  const nameOf = (audience: string) => apis.find((a) => a.identifier === audience)?.name ?? audience;
  const available = apis.filter((a) => !grants.some((g) => g.audience === a.identifier));
  return (
    <div aria-label={`API access of ${client.name}`} role="group">
      <h4>API access (client credentials)</h4>
      {grants.length === 0 ? (
        <p>None: {client.name} may not get machine-to-machine tokens for any API.</p>
      ) : (
        <ul data-testid="client-grants">
          {grants.map((g) => (
            <li key={g.id}>
              <strong>{nameOf(g.audience)}</strong> <code>{g.audience}</code>: {g.scope.join(' ') || 'no scope'}{' '}
              {can('update:client_grants') && apis.some((a) => a.identifier === g.audience) && (
                <button type="button" class="link" onClick={() => setEditing(g)}>
                  Change scopes for {nameOf(g.audience)}
                </button>
              )}{' '}
              {can('delete:client_grants') && (
                <button
                  type="button"
                  class="link"
                  onClick={() =>
                    confirm({
                      title: `Remove the access of ${client.name} to ${nameOf(g.audience)}?`,
                      effect: (
                        <p>
                          {client.name} can no longer get tokens for {g.audience} with client credentials (the token endpoint refuses it from now on). Tokens it
                          already holds stay valid until they expire.
                        </p>
                      ),
                      action: 'Remove the access',
                      danger: true,
                      run: () => ok(api.DELETE('/api/v2/client-grants/{id}', { params: { path: { id: g.id } } })),
                      done,
                    })
                  }
                >
                  Remove access to {nameOf(g.audience)}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {!editing && can('create:client_grants') && available.length > 0 && (
        <button type="button" onClick={() => setEditing('new')}>
          Give {client.name} access to an API…
        </button>
      )}
      {editing && (
        <GrantForm
          client={client}
          grant={editing === 'new' ? undefined : editing}
          apis={editing === 'new' ? available : apis.filter((a) => a.identifier === editing.audience)}
          confirm={confirm}
          close={() => setEditing(undefined)}
          done={() => {
            setEditing(undefined);
            done();
          }}
        />
      )}
    </div>
  );
}

function GrantForm({ client, grant, apis, confirm, close, done }: { client: Client; grant?: ClientGrant; apis: ResourceServer[]; confirm: Confirm; close: () => void; done: () => void }) {
  const { api } = useConsole();
  const [audience, setAudience] = useState(grant?.audience ?? apis[0]!.identifier);
  const [chosen, setChosen] = useState(new Set(grant?.scope ?? []));
  const target = apis.find((a) => a.identifier === audience) ?? apis[0]!;
  const formId = `grant-${client.client_id}`;
  // The form starts at its first control: the API to choose, or the scopes of the one being changed.
  const form = useFocusOnMount<HTMLFormElement>();
  return (
    <form
      ref={form}
      tabIndex={-1}
      class="stack"
      aria-label={grant ? `Scopes of ${client.name} for ${target.name}` : `Give ${client.name} access to an API`}
      onSubmit={(e) => {
        e.preventDefault();
        const scope = (target.scopes ?? []).map((s) => s.value).filter((s) => chosen.has(s));
        const { added, removed } = difference(grant?.scope ?? [], scope);
        confirm({
          title: grant ? `Change the scopes of ${client.name} for ${target.name}?` : `Give ${client.name} access to ${target.name}?`,
          effect: (
            <>
              <p>
                {client.name} may get tokens for {target.identifier} with client credentials, with the scopes {scope.join(' ') || '(none)'}.
              </p>
              {grant && (
                <p>
                  Added: {added.join(' ') || 'none'}. Taken away: {removed.join(' ') || 'none'} (from its next token; tokens already issued keep theirs until they
                  expire).
                </p>
              )}
              {!(client.grant_types ?? []).includes('client_credentials') && (
                <p>{client.name} does not have the client credentials grant: it cannot use this access until it is given that grant type.</p>
              )}
            </>
          ),
          action: grant ? 'Save' : 'Give access',
          run: () => (grant ? ok(api.PATCH('/api/v2/client-grants/{id}', { params: { path: { id: grant.id } }, body: { scope } })) : ok(api.POST('/api/v2/client-grants', { body: { client_id: client.client_id, audience, scope } }))),
          done,
        });
      }}
    >
      {!grant && (
        <>
          <label for={`${formId}-api`}>API</label>
          <select
            id={`${formId}-api`}
            value={audience}
            onChange={(e) => {
              setAudience((e.target as HTMLSelectElement).value);
              setChosen(new Set());
            }}
          >
            {apis.map((a) => (
              <option key={a.identifier} value={a.identifier}>
                {a.name} ({a.identifier})
              </option>
            ))}
          </select>
        </>
      )}
      <ScopeChecks api={target} chosen={chosen} onChange={setChosen} />
      <FormActions close={close} submit={grant ? 'Save…' : 'Give access…'} />
    </form>
  );
}
