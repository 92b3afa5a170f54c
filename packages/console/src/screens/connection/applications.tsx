import { itemsOf, ok } from '../../api';
import { useState } from 'preact/hooks';
import { ErrorMessage, Loading, Notice, useLoad } from '../../components/ui';
import { FieldError } from '../../components/field-error';
import { useCan, useConsole } from '../../context';
import { usePatch, type SectionProps } from './section';
import type { Client } from '../applications-data';


/** `enabled_clients`: the applications that may start logins with this connection (a PATCH replaces the list). */
export function EnabledApplications({ connection, confirm, reload, canUpdate }: SectionProps) {
  const { api, settings } = useConsole();
  const can = useCan();
  const { refusal, patch, notice, saved } = usePatch(connection, reload);
  const clients = useLoad(async () => (can('read:clients') ? itemsOf<Client>(await ok(api.GET('/api/v2/clients', { params: { query: { per_page: 100 } } })), 'clients') : []), []);
  const [enabled, setEnabled] = useState<string[]>(connection.enabled_clients);
  const known = clients.data ?? [];
  // Enabled ids the list does not show (no read:clients, or beyond its first page) stay as they are.
  const shown = [...known, ...connection.enabled_clients.filter((id) => !known.some((c) => c.client_id === id)).map((id) => ({ client_id: id, name: id }))];
  const nameOf = (id: string) => shown.find((c) => c.client_id === id)?.name ?? id;
  const added = enabled.filter((id) => !connection.enabled_clients.includes(id));
  const removed = connection.enabled_clients.filter((id) => !enabled.includes(id));

  return (
    <section class="card" aria-labelledby="enabled-title">
      <h2 id="enabled-title">Applications</h2>
      {clients.error ? (
        <ErrorMessage error={clients.error} />
      ) : clients.loading ? (
        <Loading what="applications" />
      ) : (
        <form
          class="stack"
          onSubmit={(e) => {
            e.preventDefault();
            confirm({
              title: `Change which applications use ${connection.name}?`,
              effect: (
                <ul>
                  {added.map((id) => (
                    <li key={id}>
                      <strong>{nameOf(id)}</strong> can sign users in with {connection.name} from now on.
                    </li>
                  ))}
                  {removed.map((id) => (
                    <li key={id}>
                      <strong>{nameOf(id)}</strong> can no longer start logins with {connection.name}
                      {id === settings.client_id ? ': it is this console, so operators can no longer sign in to the console with this connection' : ''}.
                    </li>
                  ))}
                </ul>
              ),
              action: 'Apply',
              run: () => patch({ enabled_clients: enabled }),
              done: () => saved('Applications saved.'),
            });
          }}
        >
          <fieldset disabled={!canUpdate}>
            <legend>Applications that may use this connection</legend>
            <FieldError error={refusal} path="enabled_clients" id="enabled-clients-error" />
            {shown.map((client) => (
              <label key={client.client_id} class="check">
                <input
                  type="checkbox"
                  checked={enabled.includes(client.client_id)}
                  onChange={(e) =>
                    setEnabled((e.target as HTMLInputElement).checked ? [...enabled, client.client_id] : enabled.filter((id) => id !== client.client_id))
                  }
                />{' '}
                {client.name}
                {'app_type' in client && client.app_type ? <span class="detail"> ({client.app_type})</span> : null}
              </label>
            ))}
          </fieldset>
          {canUpdate && (
            <button type="submit" class="primary" disabled={!added.length && !removed.length}>
              Save applications…
            </button>
          )}
          {notice && <Notice>{notice}</Notice>}
        </form>
      )}
    </section>
  );
}
