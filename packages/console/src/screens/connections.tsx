import { useEffect, useState } from 'preact/hooks';
import { apiErrorOf, seg } from '../api';
import { ErrorMessage, Loading, Notice, useConfirm, useLoad } from '../components/ui';
import { useCan, useConsole } from '../context';
import { href } from '../router';
import { smsConnections, type Connection } from './fraud-data';

interface TemplateTest {
  body: string;
  encoding: 'GSM-7' | 'UCS-2';
  characters: number;
  segments: number;
  fits_one_segment: boolean;
}

export function Connections({ route }: { route: string[] }) {
  const { api } = useConsole();
  const can = useCan();
  const list = useLoad(() => smsConnections(api), []);
  if (route[0] === 'new') return <NewConnection />;
  if (route[0]) {
    // After a save the list reloads: the form stays on screen with the connection as it was until then.
    if (!list.data && !list.error) return <Loading what="the connection" />;
    const connection = list.data?.find((c) => c.id === route[0]);
    if (!connection) return <ErrorMessage error={list.error ?? new Error(`No SMS connection ${route[0]}`)} />;
    return <EditConnection connection={connection} reload={list.reload} />;
  }
  return (
    <section aria-labelledby="connections-title">
      <h1 id="connections-title">Connections</h1>
      {can('create:connections') && (
        <p>
          <a class="button" href={href('connections', 'new')}>
            New SMS connection
          </a>
        </p>
      )}
      {list.loading ? (
        <Loading what="connections" />
      ) : list.error ? (
        <ErrorMessage error={list.error} />
      ) : (
        <div class="table-scroll" tabIndex={0}>
          <table>
            <caption class="visually-hidden">SMS connections</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Fraud guard</th>
                <th scope="col">Applications</th>
              </tr>
            </thead>
            <tbody>
              {list.data!.map((c) => (
                <tr key={c.id}>
                  <th scope="row">
                    <a href={href('connections', c.id)}>{c.name}</a>
                  </th>
                  <td>{c.options.sms_fraud_guard?.mode ?? 'off'}</td>
                  <td>{c.enabled_clients.length}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function NewConnection() {
  const { api } = useConsole();
  const [confirm, dialog] = useConfirm();
  const [name, setName] = useState('');
  const [gatewayUrl, setGatewayUrl] = useState('');
  return (
    <section aria-labelledby="new-connection-title">
      <p>
        <a href={href('connections')}>Connections</a> › New
      </p>
      <h1 id="new-connection-title">New SMS connection</h1>
      {dialog}
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          confirm({
            title: `Create the connection ${name}?`,
            effect: (
              <p>
                A new SMS connection <strong>{name}</strong> delivering through {gatewayUrl}, with the default SMS policy (mobile numbers only, prefixes of 4 digits,
                the fraud guard blocking). No application uses it until you enable it for one.
              </p>
            ),
            action: 'Create',
            run: async () => {
              const created = await api.post<Connection>('/connections', { name, strategy: 'sms', options: { provider: 'sms_gateway', gateway_url: gatewayUrl } });
              location.hash = href('connections', created.id);
            },
          });
        }}
      >
        <label for="conn-name">Name</label>
        <input id="conn-name" required value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        <label for="conn-gateway">Gateway URL</label>
        <input id="conn-gateway" type="url" required value={gatewayUrl} onInput={(e) => setGatewayUrl((e.target as HTMLInputElement).value)} placeholder="https://sms-gateway.example.com/sms" />
        <button type="submit" class="primary">
          Create…
        </button>
      </form>
    </section>
  );
}

const listOf = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((s) => s.trim().toUpperCase())
    .filter(Boolean);

function EditConnection({ connection, reload }: { connection: Connection; reload: () => void }) {
  const { api, settings } = useConsole();
  const can = useCan();
  const [confirm, dialog] = useConfirm();
  const o = connection.options;
  const [template, setTemplate] = useState(String(o.template ?? ''));
  const [allowed, setAllowed] = useState((o.allowed_countries ?? []).join(', '));
  const [denied, setDenied] = useState((o.denied_countries ?? []).join(', '));
  const [prefixDigits, setPrefixDigits] = useState(String(o.sms_prefix_digits ?? 4));
  const guard = o.sms_fraud_guard;
  const [minSends, setMinSends] = useState(String(guard?.min_sends ?? 50));
  const [minConversion, setMinConversion] = useState(String(Math.round((guard?.min_conversion ?? 0.1) * 100)));
  const [preview, setPreview] = useState<TemplateTest | undefined>();
  const [previewError, setPreviewError] = useState<unknown>();
  const [testNumber, setTestNumber] = useState('');
  const [message, setMessage] = useState('');
  const canUpdate = can('update:connections');

  // The live preview: rendered by identity exactly as a start would send it, without saving.
  useEffect(() => {
    const timer = setTimeout(() => {
      api.post<TemplateTest>(`/connections/${seg(connection.id)}/sms-template/test`, template ? { template } : {}).then(
        (answer) => {
          setPreview(answer);
          setPreviewError(undefined);
        },
        (err: unknown) => setPreviewError(err),
      );
    }, 300);
    return () => clearTimeout(timer);
  }, [template, connection.id]);

  const changes: Record<string, unknown> = {};
  if (template !== String(o.template ?? '')) changes.template = template;
  if (listOf(allowed).join() !== (o.allowed_countries ?? []).join()) changes.allowed_countries = listOf(allowed).length ? listOf(allowed) : null;
  if (listOf(denied).join() !== (o.denied_countries ?? []).join()) changes.denied_countries = listOf(denied).length ? listOf(denied) : null;
  if (Number(prefixDigits) !== (o.sms_prefix_digits ?? 4)) changes.sms_prefix_digits = Number(prefixDigits);
  const guardChanges: Record<string, number> = {};
  if (Number(minSends) !== (guard?.min_sends ?? 50)) guardChanges.min_sends = Number(minSends);
  if (Number(minConversion) / 100 !== (guard?.min_conversion ?? 0.1)) guardChanges.min_conversion = Number(minConversion) / 100;
  if (Object.keys(guardChanges).length) changes.sms_fraud_guard = guardChanges;

  return (
    <section aria-labelledby="connection-title">
      <p>
        <a href={href('connections')}>Connections</a> › {connection.name}
      </p>
      <h1 id="connection-title">{connection.name}</h1>
      {dialog}
      {message && <Notice>{message}</Notice>}
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          confirm({
            title: `Save ${Object.keys(changes).length} change(s) to ${connection.name}?`,
            effect: (
              <ul>
                {Object.entries(changes).map(([field, value]) => (
                  <li key={field}>
                    <code>{field}</code>: {JSON.stringify(value)}
                  </li>
                ))}
              </ul>
            ),
            action: 'Save',
            run: () => api.patch(`/connections/${seg(connection.id)}`, { options: changes }),
            done: () => {
              setMessage('Saved.');
              reload();
            },
          });
        }}
      >
        <fieldset disabled={!canUpdate}>
          <legend>Message</legend>
          <label for="template">Template ({String(o.syntax ?? 'md_with_macros')})</label>
          <textarea id="template" rows={3} value={template} onInput={(e) => setTemplate((e.target as HTMLTextAreaElement).value)} />
          <div class="preview" aria-live="polite" data-testid="template-preview">
            {previewError ? (
              <ErrorMessage error={previewError} />
            ) : preview ? (
              <>
                <p class="sms">{preview.body}</p>
                <p>
                  {preview.encoding}, {preview.characters} characters, <strong>{preview.segments} segment{preview.segments === 1 ? '' : 's'}</strong>
                  {preview.fits_one_segment ? '' : ' (billed as several SMS)'}
                </p>
              </>
            ) : (
              <Loading what="the preview" />
            )}
          </div>
        </fieldset>
        <fieldset disabled={!canUpdate}>
          <legend>SMS policy</legend>
          <label for="allowed">Allowed countries (ISO codes, empty: all)</label>
          <input id="allowed" value={allowed} onInput={(e) => setAllowed((e.target as HTMLInputElement).value)} placeholder="US, GB" />
          <label for="denied">Denied countries</label>
          <input id="denied" value={denied} onInput={(e) => setDenied((e.target as HTMLInputElement).value)} />
          <label for="prefix-digits">Prefix digits after the country code</label>
          <input id="prefix-digits" type="number" min={1} max={10} value={prefixDigits} onInput={(e) => setPrefixDigits((e.target as HTMLInputElement).value)} />
          <label for="min-sends">Fraud guard: sends before a prefix is judged</label>
          <input id="min-sends" type="number" min={1} value={minSends} onInput={(e) => setMinSends((e.target as HTMLInputElement).value)} />
          <label for="min-conversion">Fraud guard: block below this conversion (%)</label>
          <input id="min-conversion" type="number" min={0} max={100} value={minConversion} onInput={(e) => setMinConversion((e.target as HTMLInputElement).value)} />
        </fieldset>
        {canUpdate && (
          <button type="submit" class="primary" disabled={Object.keys(changes).length === 0}>
            Save changes…
          </button>
        )}
      </form>

      {canUpdate && (
        <form
          class="inline"
          onSubmit={(e) => {
            e.preventDefault();
            confirm({
              title: `Send a test code to ${testNumber}?`,
              effect: <p>A real SMS with a sign-in code goes to {testNumber} through {connection.name} (counted by its rate limits and the fraud guard like any start).</p>,
              action: 'Send the code',
              run: async () => {
                const response = await fetch(`${settings.domain}/passwordless/start`, {
                  method: 'POST',
                  headers: { 'content-type': 'application/json' },
                  body: JSON.stringify({ client_id: settings.client_id, connection: connection.name, phone_number: testNumber, send: 'code' }),
                });
                if (!response.ok) throw await apiErrorOf(response);
              },
              done: () => setMessage(`A code was sent to ${testNumber}.`),
            });
          }}
        >
          <label for="test-number">Send a test code to</label>
          <input id="test-number" type="tel" required value={testNumber} onInput={(e) => setTestNumber((e.target as HTMLInputElement).value)} placeholder="+14155552671" />
          <button type="submit">Send…</button>
        </form>
      )}
    </section>
  );
}
