import { useMemo, useState } from 'preact/hooks';
import { ok } from '../api';
import { ErrorMessage, formatDate, Loading, percent, useConfirm, useLoad, type Confirm } from '../components/ui';
import { useCan, useConsole } from '../context';
import { periodOf, smsStats, totalsByKey } from '../stats';
import { blocksOf, smsConnections, type Connection, type FraudBlock } from './fraud-data';

const MODES = {
  off: 'Off: the guard counts nothing and blocks nothing.',
  monitor: 'Monitor: the guard judges prefixes and logs what it would block, but every code is sent.',
  block: 'Block: a prefix whose conversion falls below the threshold gets no code until its block expires.',
} as const;

export function FraudGuard() {
  const { api } = useConsole();
  const connections = useLoad(() => smsConnections(api), []);
  return (
    <section aria-labelledby="fraud-title">
      <h1 id="fraud-title">Fraud guard</h1>
      <p>
        Per SMS connection, the fraud guard watches the share of codes sent to each number prefix that are later verified, and blocks a prefix whose
        conversion falls below the connection's threshold (SMS pumping sends many codes nobody enters).
      </p>
      {connections.loading ? (
        <Loading what="connections" />
      ) : connections.error ? (
        <ErrorMessage error={connections.error} />
      ) : connections.data!.length === 0 ? (
        <p>No SMS connection yet.</p>
      ) : (
        connections.data!.map((c) => <ConnectionGuard key={c.id} connection={c} reloadConnections={connections.reload} />)
      )}
    </section>
  );
}

function ConnectionGuard({ connection, reloadConnections }: { connection: Connection; reloadConnections: () => void }) {
  const { api } = useConsole();
  const can = useCan();
  const [confirm, dialog] = useConfirm();
  const canReadBlocks = can('read:sms_fraud_blocks');
  const canUnblock = can('delete:sms_fraud_blocks');
  const blocks = useLoad(() => (canReadBlocks ? blocksOf(api, connection) : Promise.resolve([])), [connection.id]);
  const period = useMemo(() => periodOf('24h'), []);
  const canStats = can('read:stats');
  const prefixes = useLoad(
    () => (canStats ? smsStats(api, period, 'prefix') : Promise.resolve([])),
    [connection.id],
  );
  const guard = connection.options.sms_fraud_guard;
  const mode = guard?.mode ?? 'off';
  const safeList = connection.options.sms_safe_list ?? [];
  const canUpdate = can('update:connections');
  const headingId = `guard-${connection.id}`;

  const unblock = (block: FraudBlock) =>
    confirm({
      title: `Unblock ${block.prefix}?`,
      effect: (
        <p>
          Numbers starting with <strong>{block.prefix}</strong> on <strong>{connection.name}</strong> get codes again at once (the block would have lifted itself at{' '}
          {formatDate(block.blocked_until)}). The prefix's send and verification counts start again from zero, so the guard blocks it again only after{' '}
          {guard?.min_sends ?? 'the minimum'} new sends with conversion below {percent(guard?.min_conversion)}.
        </p>
      ),
      action: `Unblock ${block.prefix}`,
      run: () => ok(api.DELETE('/api/v2/connections/{id}/sms-fraud-blocks/{prefix}', { params: { path: { id: connection.id, prefix: block.prefix } } })),
      done: () => blocks.reload(),
    });

  const blockedSet = new Set((blocks.data ?? []).map((b) => b.prefix));
  const prefixRows = totalsByKey(prefixes.data ?? []);

  return (
    <section class="card" aria-labelledby={headingId}>
      <h2 id={headingId}>{connection.name}</h2>
      {dialog}
      <p>
        Mode: <strong data-testid="guard-mode">{mode}</strong>. {MODES[mode]}
        {guard && (
          <>
            {' '}
            Judged after {guard.min_sends} sends in {guard.window_minutes} minutes to a prefix of {connection.options.sms_prefix_digits ?? 4} digits; blocked below{' '}
            {percent(guard.min_conversion)} conversion, for {guard.block_minutes} minutes.
          </>
        )}
      </p>
      {canUpdate && <ModeForm connection={connection} current={mode} confirm={confirm} done={reloadConnections} />}

      <h3>Blocked prefixes</h3>
      {!canReadBlocks ? (
        <p>Your role cannot read the fraud guard's blocks.</p>
      ) : blocks.loading ? (
        <Loading what="blocked prefixes" />
      ) : blocks.error ? (
        <ErrorMessage error={blocks.error} />
      ) : blocks.data!.length === 0 ? (
        <p>None now.</p>
      ) : (
        <div class="table-scroll" tabIndex={0}>
          <table data-testid="blocked-prefixes">
            <caption class="visually-hidden">Prefixes blocked on {connection.name}</caption>
            <thead>
              <tr>
                <th scope="col">Prefix</th>
                <th scope="col">Sends</th>
                <th scope="col">Verified</th>
                <th scope="col">Blocked until</th>
                {canUnblock && <th scope="col">Action</th>}
              </tr>
            </thead>
            <tbody>
              {blocks.data!.map((b) => (
                <tr key={b.prefix}>
                  <th scope="row">{b.prefix}</th>
                  <td>{b.sends}</td>
                  <td>{b.verified}</td>
                  <td>{formatDate(b.blocked_until)}</td>
                  {canUnblock && (
                    <td>
                      <button type="button" onClick={() => unblock(b)}>
                        Unblock {b.prefix}
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      {canStats && (
        <>
          <h3>Prefixes in the last 24 hours</h3>
          {prefixes.error ? (
            <ErrorMessage error={prefixes.error} />
          ) : prefixRows.length === 0 ? (
            <p>No SMS in the last 24 hours.</p>
          ) : (
            <div class="table-scroll" tabIndex={0}>
              <table data-testid="prefix-stats">
                <caption class="visually-hidden">Sends and conversion by prefix, all connections, last 24 hours</caption>
                <thead>
                  <tr>
                    <th scope="col">Prefix</th>
                    <th scope="col">Sent</th>
                    <th scope="col">Verified</th>
                    <th scope="col">Conversion</th>
                    <th scope="col">Refused</th>
                    <th scope="col">Status</th>
                  </tr>
                </thead>
                <tbody>
                  {prefixRows.map((r) => (
                    <tr key={r.key}>
                      <th scope="row">{r.key}</th>
                      <td>{r.sent}</td>
                      <td>{r.verified}</td>
                      <td>{percent(r.conversion)}</td>
                      <td>{r.refused}</td>
                      <td>{blockedSet.has(r.key) ? 'blocked' : 'open'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}

      <h3>Safe list</h3>
      <p>Numbers on the safe list always get codes: the guard, the country rules and the velocity limits never refuse them.</p>
      {safeList.length === 0 ? (
        <p>Empty.</p>
      ) : (
        <ul>
          {safeList.map((n) => (
            <li key={n}>
              {n}{' '}
              {canUpdate && (
                <button
                  type="button"
                  class="link"
                  onClick={() =>
                    confirm({
                      title: `Remove ${n} from the safe list?`,
                      effect: <p>{n} will be judged by the connection's SMS policy and the fraud guard like any other number.</p>,
                      action: 'Remove',
                      danger: true,
                      run: () => ok(api.PATCH('/api/v2/connections/{id}', { params: { path: { id: connection.id } }, body: { options: { sms_safe_list: safeList.filter((x) => x !== n) } } })),
                      done: reloadConnections,
                    })
                  }
                >
                  Remove {n}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {canUpdate && <SafeListForm connection={connection} safeList={safeList} confirm={confirm} done={reloadConnections} />}
    </section>
  );
}

function ModeForm({ connection, current, confirm, done }: { connection: Connection; current: keyof typeof MODES; confirm: Confirm; done: () => void }) {
  const { api } = useConsole();
  const [mode, setMode] = useState(current);
  const id = `mode-${connection.id}`;
  return (
    <form
      class="inline"
      onSubmit={(e) => {
        e.preventDefault();
        confirm({
          title: `Set the fraud guard of ${connection.name} to ${mode}?`,
          effect: (
            <p>
              From {current} to <strong>{mode}</strong>. {MODES[mode]}
              {mode !== 'block' && current === 'block' && ' Prefixes blocked now stay blocked until they expire or are unblocked.'}
            </p>
          ),
          action: `Set mode to ${mode}`,
          run: () => ok(api.PATCH('/api/v2/connections/{id}', { params: { path: { id: connection.id } }, body: { options: { sms_fraud_guard: { mode } } } })),
          done,
        });
      }}
    >
      <label for={id}>Mode</label>
      <select id={id} value={mode} onChange={(e) => setMode((e.target as HTMLSelectElement).value as keyof typeof MODES)}>
        <option value="off">off</option>
        <option value="monitor">monitor</option>
        <option value="block">block</option>
      </select>
      <button type="submit" disabled={mode === current}>
        Change mode…
      </button>
    </form>
  );
}

function SafeListForm({ connection, safeList, confirm, done }: { connection: Connection; safeList: string[]; confirm: Confirm; done: () => void }) {
  const { api } = useConsole();
  const [number, setNumber] = useState('');
  const id = `safe-${connection.id}`;
  return (
    <form
      class="inline"
      onSubmit={(e) => {
        e.preventDefault();
        const value = number.trim();
        if (!value) return;
        confirm({
          title: `Add ${value} to the safe list of ${connection.name}?`,
          effect: <p>{value} will always get codes on {connection.name}: no country rule, velocity limit or fraud-guard block will refuse it.</p>,
          action: 'Add to the safe list',
          run: () => ok(api.PATCH('/api/v2/connections/{id}', { params: { path: { id: connection.id } }, body: { options: { sms_safe_list: [...safeList, value] } } })),
          done: () => {
            setNumber('');
            done();
          },
        });
      }}
    >
      <label for={id}>Number (E.164)</label>
      <input id={id} type="tel" inputMode="tel" autoComplete="off" placeholder="+14155552671" value={number} onInput={(e) => setNumber((e.target as HTMLInputElement).value)} />
      <button type="submit">Add to the safe list…</button>
    </form>
  );
}
