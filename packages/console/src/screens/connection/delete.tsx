import { ok } from '../../api';
import { useConsole } from '../../context';
import { href } from '../../router';
import type { SectionProps } from './section';

/**
 * Deleting a connection deletes what belongs to it (the database cascades): its users with their
 * sessions, refresh tokens, passkeys and roles, codes in flight, the fraud guard's counters and
 * blocks. The confirmation counts the users first, so the operator sees what goes.
 */
export function DeleteConnection({ connection, confirm }: Pick<SectionProps, 'connection' | 'confirm'>) {
  const { api, settings, operator } = useConsole();
  const usersOf = async (): Promise<string> => {
    if (!operator.scopes.has('read:users')) return 'all its users';
    const answer = await ok(api.GET('/api/v2/users', { params: { query: { q: `identities.connection:"${connection.name}"`, include_totals: 'true', per_page: 1 } } }));
    const total = Array.isArray(answer) ? answer.length : answer.total;
    return total === 1 ? 'its 1 user' : `its ${total} users`;
  };
  return (
    <section class="card danger-zone" aria-labelledby="delete-title">
      <h2 id="delete-title">Delete this connection</h2>
      <p>Deleting cannot be undone; the confirmation says what goes with it.</p>
      <button
        type="button"
        class="danger"
        onClick={async () => {
          const users = await usersOf().catch(() => 'all its users');
          confirm({
            title: `Delete the connection ${connection.name}?`,
            danger: true,
            effect: (
              <>
                <p>
                  This deletes <strong>{connection.name}</strong> at once, with <strong>{users}</strong> and everything of theirs: sessions, refresh tokens (their apps are signed out at the next
                  refresh), passkeys and roles; codes not used yet; the fraud guard's counters and blocked prefixes. The tenant logs stay.
                </p>
                <p>
                  {connection.enabled_clients.length
                    ? `The ${connection.enabled_clients.length} application(s) using it can no longer start logins with ${connection.name}.`
                    : 'No application uses it.'}
                  {connection.enabled_clients.includes(settings.client_id) ? ' This console is one of them: operators who sign in with this connection lose their access.' : ''}
                </p>
                <p>It cannot be undone: a connection created again with the same name starts without users.</p>
              </>
            ),
            action: 'Delete the connection',
            run: () => ok(api.DELETE('/api/v2/connections/{id}', { params: { path: { id: connection.id } } })),
            done: () => {
              location.hash = href('connections');
            },
          });
        }}
      >
        Delete {connection.name}…
      </button>
    </section>
  );
}
