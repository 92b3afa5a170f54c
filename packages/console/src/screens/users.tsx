import { useState } from 'preact/hooks';
import { itemsOf, ok, type Schema } from '../api';
import { ErrorMessage, Loading, Notice, useConfirm, useLoad, When } from '../components/ui';
import { useCan, useConsole } from '../context';
import { href } from '../router';
import { Timeline, type TenantLog } from './timeline';
import { completeTimeline, countryOfNumber, deviceOf } from './user-data';

export type User = Schema<'UserRecord'>;

/** What the search box holds: a phone number, a user id, or a name. */
function queryOf(text: string): { kind: 'phone' | 'id' | 'name'; value: string } {
  const value = text.trim();
  if (/^\+?[\d\s().-]{4,}$/.test(value)) return { kind: 'phone', value: value.startsWith('+') ? value.replace(/[\s().-]/g, '') : `+${value.replace(/[\s().-]/g, '')}` };
  if (/^[a-z0-9-]+\|/i.test(value)) return { kind: 'id', value };
  return { kind: 'name', value };
}

const quoted = (value: string) => `"${value.replace(/(["\\])/g, '\\$1')}"`;

export function Users({ route }: { route: string[] }) {
  if (route[0]) return <UserDetail userId={route[0]} />;
  return <FindLogin />;
}

function FindLogin() {
  const { api } = useConsole();
  const can = useCan();
  const initial = new URLSearchParams(location.hash.split('?')[1] ?? '').get('q') ?? '';
  const [text, setText] = useState(initial);
  const [search, setSearch] = useState(initial);
  const result = useLoad(async () => {
    if (!search) return undefined;
    const q = queryOf(search);
    const users: User[] =
      q.kind === 'id'
        ? [(await ok(api.GET('/api/v2/users/{id}', { params: { path: { id: q.value } } }))) as User]
        : itemsOf<User>(await ok(api.GET('/api/v2/users', { params: { query: { q: q.kind === 'phone' ? `phone_number:${quoted(q.value)}` : `name:${quoted(q.value)}`, per_page: 50 } } })), 'users');
    // A number that never became a user has logs all the same; their failure is shown apart from the users found.
    let logs: TenantLog[] | undefined;
    let logsError: unknown;
    if (q.kind === 'phone' && can('read:logs')) {
      try {
        logs = itemsOf<TenantLog>(await ok(api.GET('/api/v2/logs', { params: { query: { q: `phone_number:${quoted(q.value)}`, per_page: 100, sort: 'date:-1' } } })), 'logs');
      } catch (err) {
        logsError = err;
      }
    }
    return { q, users, logs, logsError };
  }, [search]);

  return (
    <section aria-labelledby="users-title">
      <h1 id="users-title">Find a login</h1>
      <form
        role="search"
        class="inline"
        onSubmit={(e) => {
          e.preventDefault();
          history.replaceState(null, '', `#/users?q=${encodeURIComponent(text)}`);
          setSearch(text.trim());
        }}
      >
        <label for="user-search">Phone number, name or user id</label>
        <input id="user-search" type="search" value={text} onInput={(e) => setText((e.target as HTMLInputElement).value)} placeholder="+14155552671" />
        <button type="submit" class="primary">
          Search
        </button>
      </form>
      {!search ? (
        <p>Search for a number even if it never became a user: its log events say what happened (code sent, refused, wrong code, blocked).</p>
      ) : result.loading ? (
        <Loading what="results" />
      ) : result.error ? (
        <ErrorMessage error={result.error} />
      ) : (
        <>
          <h2>Users</h2>
          {result.data!.users.length === 0 ? (
            <p>No user matches {result.data!.q.value}.</p>
          ) : (
            <ul data-testid="user-results">
              {result.data!.users.map((u) => (
                <li key={u.user_id}>
                  <a href={href('users', u.user_id)}>{u.phone_number ?? u.name ?? u.user_id}</a> <code>{u.user_id}</code>
                  {u.blocked && <span class="badge">blocked</span>}
                </li>
              ))}
            </ul>
          )}
          {(result.data!.logs || result.data!.logsError) && (
            <>
              <h2>What happened to {result.data!.q.value}</h2>
              {result.data!.logs ? <Timeline logs={result.data!.logs} label={`Log events of ${result.data!.q.value}`} /> : <ErrorMessage error={result.data!.logsError} />}
            </>
          )}
        </>
      )}
    </section>
  );
}

type Session = Schema<'SessionRecord'>;
type Passkey = Schema<'AuthenticationMethodRecord'>;
type Role = Schema<'RoleRecord'>;

function UserDetail({ userId }: { userId: string }) {
  const { api } = useConsole();
  const can = useCan();
  const [confirm, dialog] = useConfirm();
  const [message, setMessage] = useState('');
  const user = useLoad(async () => (await ok(api.GET('/api/v2/users/{id}', { params: { path: { id: userId } } }))) as User, [userId]);
  // The user's records and their number's: the codes sent before sign-up carry the number only.
  // Loaded once the user is (null until then), so that the number's records are asked for once.
  const phoneNumber = user.data ? (user.data.phone_number ?? '') : undefined;
  const logs = useLoad(async () => {
    if (!can('read:logs')) return undefined;
    if (phoneNumber === undefined) return null;
    const userLogs = ok(api.GET('/api/v2/users/{id}/logs', { params: { path: { id: userId }, query: { per_page: 100, sort: 'date:-1' } } })).then((a) => itemsOf<TenantLog>(a, 'logs'));
    const numberLogs = phoneNumber
      ? ok(api.GET('/api/v2/logs', { params: { query: { q: `phone_number:${quoted(phoneNumber)}`, per_page: 100, sort: 'date:-1' } } })).then((a) => itemsOf<TenantLog>(a, 'logs'))
      : Promise.resolve([]);
    return completeTimeline(await userLogs, await numberLogs);
  }, [userId, phoneNumber]);
  const sessions = useLoad(() => (can('read:sessions') ? ok(api.GET('/api/v2/users/{id}/sessions', { params: { path: { id: userId } } })).then((a) => itemsOf<Session>(a, 'sessions')) : Promise.resolve(undefined)), [userId]);
  const passkeys = useLoad(() => ok(api.GET('/api/v2/users/{id}/authentication-methods', { params: { path: { id: userId } } })).then((a) => itemsOf<Passkey>(a, 'authenticators')), [userId]);
  const roles = useLoad(() => (can('read:role_members') ? ok(api.GET('/api/v2/users/{id}/roles', { params: { path: { id: userId } } })).then((a) => itemsOf<Role>(a, 'roles')) : Promise.resolve(undefined)), [userId]);

  if (user.loading) return <Loading what="the user" />;
  if (user.error)
    return (
      <section>
        <h1>User {userId}</h1>
        <ErrorMessage error={user.error} />
        <a href={href('users')}>Back to the search</a>
      </section>
    );
  const u = user.data!;
  const who = u.phone_number ?? u.name ?? u.user_id;
  const country = countryOfNumber(u.phone_number);
  const done = (text: string) => () => {
    setMessage(text);
    user.reload();
    sessions.reload();
    logs.reload();
  };

  return (
    <section aria-labelledby="user-title">
      <p>
        <a href={href('users')}>Find a login</a> › {who}
      </p>
      <h1 id="user-title">{who}</h1>
      {dialog}
      {message && <Notice>{message}</Notice>}
      <dl class="facts">
        <dt>User id</dt>
        <dd>
          <code>{u.user_id}</code>
        </dd>
        <dt>Phone</dt>
        <dd>
          {u.phone_number ?? '—'} {u.phone_verified ? '(verified)' : ''}
        </dd>
        <dt>Status</dt>
        <dd data-testid="user-status">{u.blocked ? 'Blocked' : 'Active'}</dd>
        <dt>Country</dt>
        <dd>{country ? `${country.name} (${country.code}, from the number)` : '—'}</dd>
        <dt>Created</dt>
        <dd>
          <When iso={u.created_at} />
        </dd>
        <dt>Last login</dt>
        <dd>
          <When iso={u.last_login} />
        </dd>
        <dt>Logins</dt>
        <dd>{u.logins_count ?? 0}</dd>
      </dl>

      <div class="actions">
        {can('update:users') &&
          (u.blocked ? (
            <button
              type="button"
              onClick={() =>
                confirm({
                  title: `Unblock ${who}?`,
                  effect: <p>{who} will be able to sign in again.</p>,
                  action: 'Unblock',
                  run: () => ok(api.PATCH('/api/v2/users/{id}', { params: { path: { id: userId } }, body: { blocked: false } })),
                  done: done(`${who} is unblocked.`),
                })
              }
            >
              Unblock…
            </button>
          ) : (
            <button
              type="button"
              class="danger"
              onClick={() =>
                confirm({
                  title: `Block ${who}?`,
                  effect: <p>{who} will be refused at every sign-in until unblocked. Tokens already issued stay valid until they expire; revoke the sessions too to end the web sessions.</p>,
                  action: 'Block',
                  danger: true,
                  run: () => ok(api.PATCH('/api/v2/users/{id}', { params: { path: { id: userId } }, body: { blocked: true } })),
                  done: done(`${who} is blocked.`),
                })
              }
            >
              Block…
            </button>
          ))}
        {can('delete:user_blocks') && u.phone_number && (
          <button
            type="button"
            onClick={() =>
              confirm({
                title: `Lift the brute-force blocks of ${who}?`,
                effect: <p>Every IP address blocked for {who} after wrong codes, and a locked number, may try again at once.</p>,
                action: 'Lift the blocks',
                run: () => ok(api.DELETE('/api/v2/user-blocks/{id}', { params: { path: { id: u.user_id } } })),
                done: done(`The brute-force blocks of ${who} are lifted.`),
              })
            }
          >
            Lift brute-force blocks…
          </button>
        )}
        {can('delete:sessions') && (
          <button
            type="button"
            class="danger"
            onClick={() =>
              confirm({
                title: `Revoke every session of ${who}?`,
                effect: <p>{who} is signed out of the hosted login on every device ({sessions.data?.length ?? 'all'} sessions); their applications must sign them in again.</p>,
                action: 'Revoke the sessions',
                danger: true,
                run: () => ok(api.DELETE('/api/v2/users/{id}/sessions', { params: { path: { id: userId } } })),
                done: done(`The sessions of ${who} are revoked.`),
              })
            }
          >
            Revoke sessions…
          </button>
        )}
        {can('delete:users') && (
          <button
            type="button"
            class="danger"
            onClick={() =>
              confirm({
                title: `Delete ${who}?`,
                effect: <p>The user, their refresh tokens, sessions and passkeys are deleted for good. The number may sign up again as a new user.</p>,
                action: 'Delete the user',
                danger: true,
                run: () => ok(api.DELETE('/api/v2/users/{id}', { params: { path: { id: userId } } })),
                done: () => {
                  location.hash = href('users');
                },
              })
            }
          >
            Delete…
          </button>
        )}
      </div>

      <section aria-labelledby="timeline-title">
        <h2 id="timeline-title">Timeline</h2>
        {logs.loading || logs.data === null ? <Loading what="log events" /> : logs.error ? <ErrorMessage error={logs.error} /> : logs.data ? <Timeline logs={logs.data} label={`Log events of ${who}`} /> : <p>Your role cannot read logs.</p>}
      </section>

      <section aria-labelledby="sessions-title">
        <h2 id="sessions-title">Sessions</h2>
        {sessions.loading ? (
          <Loading what="sessions" />
        ) : sessions.error ? (
          <ErrorMessage error={sessions.error} />
        ) : !sessions.data ? (
          <p>Your role cannot read sessions.</p>
        ) : sessions.data.length === 0 ? (
          <p>No active session.</p>
        ) : (
          <ul>
            {sessions.data.map((s) => (
              <li key={s.id}>
                <strong>{deviceOf(s.device?.initial_user_agent) ?? 'Unknown device'}</strong>
                {s.device?.initial_ip ? ` · ${s.device.initial_ip}` : ''}
                {country ? ` · ${country.name} (by the number)` : ''}
                <br />
                Since <When iso={s.created_at} />, last used <When iso={s.last_interacted_at} />, ends <When iso={s.expires_at} />
              </li>
            ))}
          </ul>
        )}
      </section>

      <section aria-labelledby="passkeys-title">
        <h2 id="passkeys-title">Passkeys</h2>
        {passkeys.loading ? (
          <Loading what="passkeys" />
        ) : passkeys.error ? (
          <ErrorMessage error={passkeys.error} />
        ) : passkeys.data!.length === 0 ? (
          <p>No passkey.</p>
        ) : (
          <ul>
            {passkeys.data!.map((p) => (
              <li key={p.id}>
                <strong>{p.name}</strong> ({p.credential_device_type === 'multi_device' ? 'synced' : 'this device only'})
                {deviceOf(p.user_agent) ? ` · made on ${deviceOf(p.user_agent)}` : ''}
                <br />
                Added <When iso={p.created_at} />, last used <When iso={p.last_auth_at} />
              </li>
            ))}
          </ul>
        )}
      </section>

      <section aria-labelledby="roles-title">
        <h2 id="roles-title">Roles</h2>
        {roles.loading ? (
          <Loading what="roles" />
        ) : roles.error ? (
          <ErrorMessage error={roles.error} />
        ) : !roles.data ? (
          <p>Your role cannot read roles.</p>
        ) : (
          <>
            {roles.data.length === 0 ? (
              <p>No role: this user cannot open the console.</p>
            ) : (
              <ul data-testid="user-roles">
                {roles.data.map((r) => (
                  <li key={r.id}>
                    {r.name}
                    {r.description ? ` — ${r.description}` : ''}{' '}
                    {can('delete:role_members') && (
                      <button
                        type="button"
                        class="link"
                        onClick={() =>
                          confirm({
                            title: `Take the role ${r.name} from ${who}?`,
                            effect: <p>From their next token (at the latest when the current one is renewed), {who} no longer has the permissions of {r.name}.</p>,
                            action: `Take ${r.name}`,
                            danger: true,
                            run: () => ok(api.DELETE('/api/v2/users/{id}/roles', { params: { path: { id: userId } }, body: { roles: [r.id] } })),
                            done: roles.reload,
                          })
                        }
                      >
                        Take the role {r.name}
                      </button>
                    )}
                  </li>
                ))}
              </ul>
            )}
            {can('create:role_members') && can('read:roles') && <GiveRole userId={userId} who={who} held={roles.data} confirm={confirm} done={roles.reload} />}
          </>
        )}
      </section>
    </section>
  );
}

function GiveRole({ userId, who, held, confirm, done }: { userId: string; who: string; held: Role[]; confirm: ReturnType<typeof useConfirm>[0]; done: () => void }) {
  const { api } = useConsole();
  const all = useLoad(() => ok(api.GET('/api/v2/roles', { params: { query: { per_page: 100 } } })).then((a) => itemsOf<Role>(a, 'roles')), []);
  const [roleId, setRoleId] = useState('');
  const choices = (all.data ?? []).filter((r) => !held.some((h) => h.id === r.id));
  if (all.error) return <ErrorMessage error={all.error} />;
  if (choices.length === 0) return null;
  const chosen = choices.find((r) => r.id === roleId) ?? choices[0]!;
  return (
    <form
      class="inline"
      onSubmit={(e) => {
        e.preventDefault();
        confirm({
          title: `Give ${who} the role ${chosen.name}?`,
          effect: <p>From their next sign-in or token renewal, {who} holds the permissions of {chosen.name}{chosen.description ? ` (${chosen.description})` : ''}.</p>,
          action: `Give ${chosen.name}`,
          run: () => ok(api.POST('/api/v2/users/{id}/roles', { params: { path: { id: userId } }, body: { roles: [chosen.id] } })),
          done,
        });
      }}
    >
      <label for="give-role">Role</label>
      <select id="give-role" value={chosen.id} onChange={(e) => setRoleId((e.target as HTMLSelectElement).value)}>
        {choices.map((r) => (
          <option key={r.id} value={r.id}>
            {r.name}
          </option>
        ))}
      </select>
      <button type="submit">Give the role…</button>
    </form>
  );
}
