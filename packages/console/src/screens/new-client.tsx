import { ok, type Schema } from '../api';
import { useState } from 'preact/hooks';
import { FormActions, FormOpener } from '../components/form';
import { useFocusOnMount, type Confirm } from '../components/ui';
import { useConsole } from '../context';
import { APP_TYPES, CONFIDENTIAL_TYPES, lines, type Client } from './applications-data';

/** Create an application: name, type and (for sign-in types) callbacks; a confidential one's secret is shown once, after. */
export function NewClient({ confirm, created }: { confirm: Confirm; created: (client: Client) => void }) {
  return <FormOpener label="New application…">{(close) => <ClientForm confirm={confirm} created={created} close={close} />}</FormOpener>;
}

function ClientForm({ confirm, created, close }: { confirm: Confirm; created: (client: Client) => void; close: () => void }) {
  const { api } = useConsole();
  const [name, setName] = useState('');
  const [type, setType] = useState<Schema<'ClientCreate'>['app_type']>('spa');
  const [callbacks, setCallbacks] = useState('');
  const first = useFocusOnMount<HTMLInputElement>();
  const signsIn = type !== 'non_interactive';
  const kind = APP_TYPES.find(([v]) => v === type)![2];
  return (
    <form
      class="stack card"
      aria-label="New application"
      onSubmit={(e) => {
        e.preventDefault();
        const body: Schema<'ClientCreate'> = { name, app_type: type };
        if (signsIn && lines(callbacks).length) body.callbacks = lines(callbacks);
        confirm({
          title: `Create the application ${name}?`,
          effect: (
            <>
              <p>
                A new client id for a {kind}, with the API's default grant types for that type
                {signsIn ? `; callbacks: ${lines(callbacks).join(', ') || 'none yet'}` : ''}.
              </p>
              {CONFIDENTIAL_TYPES.has(type) && <p>Its client secret is shown once, right after: copy it then.</p>}
            </>
          ),
          action: 'Create',
          run: async () => created(await ok(api.POST('/api/v2/clients', { body }))),
          done: close,
        });
      }}
    >
      <h3>New application</h3>
      <label for="client-name">Name</label>
      <input ref={first} id="client-name" required value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
      <label for="client-type">Type</label>
      <select id="client-type" value={type} onChange={(e) => setType((e.target as HTMLSelectElement).value as Schema<'ClientCreate'>['app_type'])}>
        {APP_TYPES.map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
      {signsIn && (
        <>
          <label for="client-callbacks">Callback URLs (one a line, optional)</label>
          <textarea id="client-callbacks" rows={2} value={callbacks} onInput={(e) => setCallbacks((e.target as HTMLTextAreaElement).value)} />
        </>
      )}
      <FormActions close={close} submit="Create…" />
    </form>
  );
}

/** The secret of a client just created: shown this once (the API never answers it again), with a clear warning. */
export function CreatedClient({ client, dismiss }: { client: Client; dismiss: () => void }) {
  // Focused (and so selected) as it appears: ready to copy.
  const secret = useFocusOnMount<HTMLInputElement>();
  return (
    <section class="card" aria-labelledby="created-client" data-testid="created-client">
      <h3 id="created-client">{client.name} is created</h3>
      <dl class="facts">
        <dt>Client id</dt>
        <dd>
          <code>{client.client_id}</code>
        </dd>
      </dl>
      {client.client_secret ? (
        <div class="notice secret" role="alert">
          <p>
            <strong>Copy the client secret now: it is shown this once.</strong> The console and the API never show it again; if it is lost, rotate it (the
            old one then stops working). Keep it out of source code, chat and logs.
          </p>
          <label for="created-secret">Client secret of {client.name}</label>
          <input ref={secret} id="created-secret" readOnly value={client.client_secret} onFocus={(e) => (e.target as HTMLInputElement).select()} />
        </div>
      ) : (
        <p>A public application: it has no client secret.</p>
      )}
      <button type="button" onClick={dismiss}>
        {client.client_secret ? 'I have copied the secret' : 'Close'}
      </button>
    </section>
  );
}
