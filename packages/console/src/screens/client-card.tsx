import { useState } from 'preact/hooks';
import { ok } from '../api';
import { DeleteButton, FormActions, toggled } from '../components/form';
import { Notice, useConfirm, useFocusOnMount, type Confirm } from '../components/ui';
import { useCan, useConsole } from '../context';
import { difference, GRANT_TYPES, grantTypeWords, lines, type Client, type ClientGrant, type GrantType, type ResourceServer } from './applications-data';
import { ClientGrants } from './client-grants';

/** One application: what it is, and (as the operator's scopes allow) its URLs, grant types, API access, deletion. */
export function ClientCard({ client, grants, apis, reload, reloadGrants }: { client: Client; grants: ClientGrant[]; apis: ResourceServer[]; reload: () => void; reloadGrants: () => void }) {
  const { api, settings } = useConsole();
  const can = useCan();
  const [confirm, dialog] = useConfirm();
  const [editing, setEditing] = useState<'urls' | 'grant-types' | undefined>();
  const [message, setMessage] = useState('');
  const id = `client-${client.client_id}`;
  const saved = (text: string) => () => {
    setEditing(undefined);
    setMessage(text);
    reload();
  };
  const isConsole = client.client_id === settings.client_id;
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
        <dd>{(client.grant_types ?? []).map(grantTypeWords).join(', ') || '—'}</dd>
        <dt>Callbacks</dt>
        <dd>{(client.callbacks ?? []).join(', ') || '—'}</dd>
        <dt>Web origins</dt>
        <dd>{(client.web_origins ?? []).join(', ') || '—'}</dd>
      </dl>
      <ClientGrants client={client} grants={grants} apis={apis} confirm={confirm} done={reloadGrants} />
      {!editing && (
        <div class="actions">
          {can('update:clients') && (
            <>
              <button type="button" onClick={() => setEditing('urls')}>
                Edit URLs of {client.name}
              </button>
              <button type="button" onClick={() => setEditing('grant-types')}>
                Change grant types of {client.name}
              </button>
            </>
          )}
          {can('delete:clients') && (
            <DeleteButton
              confirm={confirm}
              kind="application"
              name={client.name}
              effect={
                <>
                  <p>
                    {client.name} ({client.client_id}) is deleted for good: its credentials stop working at once, and its refresh tokens, pending sign-ins and
                    codes, its access to APIs (client grants) and its place on connections are deleted, so its users must sign in again when their access token
                    expires. Access tokens it already holds stay valid until they expire.
                  </p>
                  {isConsole && (
                    <p>
                      <strong>This is the console's own application: the console stops working</strong> (its configuration answers console_client_missing)
                      until another one is registered.
                    </p>
                  )}
                </>
              }
              run={() => ok(api.DELETE('/api/v2/clients/{id}', { params: { path: { id: client.client_id } } }))}
              done={() => {
                reload();
                reloadGrants();
              }}
            />
          )}
        </div>
      )}
      {editing === 'urls' && <UrlsForm id={id} client={client} confirm={confirm} close={() => setEditing(undefined)} done={saved('Saved.')} />}
      {editing === 'grant-types' && <GrantTypesForm id={id} client={client} confirm={confirm} close={() => setEditing(undefined)} done={saved('Grant types saved.')} />}
    </section>
  );
}

function UrlsForm({ id, client, confirm, close, done }: { id: string; client: Client; confirm: Confirm; close: () => void; done: () => void }) {
  const { api } = useConsole();
  const [callbacks, setCallbacks] = useState((client.callbacks ?? []).join('\n'));
  const [origins, setOrigins] = useState((client.web_origins ?? []).join('\n'));
  return (
    <form
      class="stack"
      onSubmit={(e) => {
        e.preventDefault();
        const body = { callbacks: lines(callbacks), web_origins: lines(origins) };
        confirm({
          title: `Change the URLs of ${client.name}?`,
          effect: (
            <p>
              Callbacks become {body.callbacks.join(', ') || 'none'}; web origins become {body.web_origins.join(', ') || 'none'}. A sign-in returning anywhere else
              is refused from now on.
            </p>
          ),
          action: 'Save',
          run: () => ok(api.PATCH('/api/v2/clients/{id}', { params: { path: { id: client.client_id } }, body: body })),
          done,
        });
      }}
    >
      <label for={`${id}-callbacks`}>Callback URLs (one a line)</label>
      <textarea id={`${id}-callbacks`} rows={3} value={callbacks} onInput={(e) => setCallbacks((e.target as HTMLTextAreaElement).value)} />
      <label for={`${id}-origins`}>Web origins (one a line)</label>
      <textarea id={`${id}-origins`} rows={2} value={origins} onInput={(e) => setOrigins((e.target as HTMLTextAreaElement).value)} />
      <FormActions close={close} submit="Save…" />
    </form>
  );
}

/** The client's `grant_types`; the API refuses combinations its type cannot have (shown in its words). */
function GrantTypesForm({ id, client, confirm, close, done }: { id: string; client: Client; confirm: Confirm; close: () => void; done: () => void }) {
  const { api } = useConsole();
  const [chosen, setChosen] = useState(new Set(client.grant_types ?? []));
  const form = useFocusOnMount<HTMLFormElement>();
  return (
    <form
      ref={form}
      tabIndex={-1}
      aria-label={`Grant types of ${client.name}`}
      class="stack"
      onSubmit={(e) => {
        e.preventDefault();
        const grantTypes = GRANT_TYPES.map(([value]) => value).filter((value) => chosen.has(value));
        const { added, removed } = difference(client.grant_types ?? [], grantTypes);
        confirm({
          title: `Change the grant types of ${client.name}?`,
          effect: (
            <>
              <ul>
                {added.map((g) => (
                  <li key={g}>Allowed from now on: {grantTypeWords(g)}</li>
                ))}
                {removed.map((g) => (
                  <li key={g}>Refused from now on: {grantTypeWords(g)}</li>
                ))}
                {added.length + removed.length === 0 && <li>No change.</li>}
              </ul>
              <p>identity checks the grant types at each token request: a grant taken away is refused from the next request (with refresh_token, renewing too). Tokens already issued stay valid until they expire.</p>
            </>
          ),
          action: 'Save',
          run: () => ok(api.PATCH('/api/v2/clients/{id}', { params: { path: { id: client.client_id } }, body: { grant_types: grantTypes as GrantType[] } })),
          done,
        });
      }}
    >
      <fieldset>
        <legend>Grant types of {client.name}</legend>
        {GRANT_TYPES.map(([value, words]) => (
          <label class="check" key={value}>
            <input
              type="checkbox"
              name={`${id}-grant-types`}
              checked={chosen.has(value)}
              onChange={(e) => setChosen(toggled(chosen, value, (e.target as HTMLInputElement).checked))}
            />
            {words}
          </label>
        ))}
      </fieldset>
      <FormActions close={close} submit="Save…" />
    </form>
  );
}
