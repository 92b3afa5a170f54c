import { useEffect, useState } from 'preact/hooks';
import { identityApi, ok, type Schema } from '../api';
import { ErrorMessage, Loading, Notice, useConfirm, useLoad } from '../components/ui';
import { useCan, useConsole } from '../context';
import { href } from '../router';
import { EnabledApplications } from './connection/applications';
import { ChannelSettings } from './connection/channels';
import { CodeSettings } from './connection/code';
import { DeleteConnection } from './connection/delete';
import { GatewaySettings } from './connection/gateway';
import { PasskeySettings } from './connection/passkeys';
import { smsConnections, type Connection } from './fraud-data';

type TemplateTest = Schema<'SmsTemplateTestResponse'>;

export function Connections({ route }: { route: string[] }) {
  const { api } = useConsole();
  const can = useCan();
  // Loaded again on each route: a connection just created is in the list its page looks it up in.
  const list = useLoad(() => smsConnections(api), [route[0]]);
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

/** contracts' DEFAULT_MESSAGE_TEMPLATE, word for word (test/connections.test.ts holds them equal). */
export const SHIPPED_MESSAGE_TEMPLATE = 'Your @@application.name@@ verification code is: @@password@@';

function NewConnection() {
  const { api } = useConsole();
  const [confirm, dialog] = useConfirm();
  const [name, setName] = useState('');
  const [gatewayUrl, setGatewayUrl] = useState('');
  // The API requires a template (md_with_macros: it must contain @@password@@). Kept as shipped,
  // the connection sends the built-in message in the user's language (docs/sms-templates.md).
  const [newTemplate, setNewTemplate] = useState(SHIPPED_MESSAGE_TEMPLATE);
  const [subject, setSubject] = useState('');
  const [audience, setAudience] = useState('');
  const [secret, setSecret] = useState('');
  // All three or none: a gateway that checks a bearer token needs each of them.
  const authenticated = Boolean(subject || audience || secret);
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
                A new SMS connection <strong>{name}</strong> delivering through {gatewayUrl} the message “{newTemplate}”, with the default SMS policy (mobile numbers only, prefixes of 4 digits,
                the fraud guard blocking).{' '}
                {authenticated
                  ? `Each delivery carries a bearer token (HS256) with subject ${subject} and audience ${audience}, signed with the secret you entered (stored, never shown again).`
                  : 'Deliveries carry no bearer token: a gateway that checks one refuses every delivery.'}{' '}
                No application uses it until you enable it for one.
              </p>
            ),
            action: 'Create',
            run: async () => {
              const options: Schema<'ConnectionCreate'>['options'] = { provider: 'sms_gateway', gateway_url: gatewayUrl, template: newTemplate };
              if (authenticated) options.gateway_authentication = { method: 'bearer', subject, audience, secret };
              const created = await ok(api.POST('/api/v2/connections', { body: { name, strategy: 'sms', options } }));
              location.hash = href('connections', created.id);
            },
          });
        }}
      >
        <label for="conn-name">Name</label>
        <input id="conn-name" required value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        <label for="conn-gateway">Gateway URL</label>
        <input id="conn-gateway" type="url" required value={gatewayUrl} onInput={(e) => setGatewayUrl((e.target as HTMLInputElement).value)} placeholder="https://sms-gateway.example.com/sms" />
        <label for="conn-template">Template (@@password@@ is the code)</label>
        <textarea id="conn-template" rows={2} required value={newTemplate} onInput={(e) => setNewTemplate((e.target as HTMLTextAreaElement).value)} />
        <fieldset>
          <legend>Gateway authentication (bearer token; leave empty for none)</legend>
          <label for="conn-subject">Subject</label>
          <input id="conn-subject" required={authenticated} value={subject} onInput={(e) => setSubject((e.target as HTMLInputElement).value)} />
          <label for="conn-audience">Audience</label>
          <input id="conn-audience" required={authenticated} value={audience} onInput={(e) => setAudience((e.target as HTMLInputElement).value)} />
          <label for="conn-secret">Secret (write-only: never shown again)</label>
          <input id="conn-secret" type="password" autoComplete="new-password" required={authenticated} value={secret} onInput={(e) => setSecret((e.target as HTMLInputElement).value)} />
        </fieldset>
        <button type="submit" class="primary">
          Create…
        </button>
      </form>
    </section>
  );
}

/** libphonenumber's number types (packages/contracts SMS_NUMBER_TYPES); the console does not import the contracts package. */
const NUMBER_TYPES = ['MOBILE', 'FIXED_LINE_OR_MOBILE', 'FIXED_LINE', 'PREMIUM_RATE', 'TOLL_FREE', 'SHARED_COST', 'VOIP', 'PERSONAL_NUMBER', 'PAGER', 'UAN', 'VOICEMAIL', 'UNKNOWN'];

type TestNumber = NonNullable<Connection['options']['sms_test_numbers']>[number];

/** "+14155550123 123456" a line: the API checks each number and code and names the bad one. */
function testNumbersOf(text: string): TestNumber[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const [phone_number = '', code = ''] = line.split(/[\s,]+/);
      return { phone_number, code };
    });
}

/** An empty field is "no limit" (null); anything else goes to the API as a number, which checks it. */
const limitOf = (text: string): number | null => (text.trim() === '' ? null : Number(text));

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
  const [windowMinutes, setWindowMinutes] = useState(String(guard?.window_minutes ?? 60));
  const [blockMinutes, setBlockMinutes] = useState(String(guard?.block_minutes ?? 1440));
  const velocity = (o.sms_velocity_limits ?? {}) as { per_country_per_hour?: number | null; per_prefix_per_hour?: number | null };
  const [perCountry, setPerCountry] = useState(velocity.per_country_per_hour == null ? '' : String(velocity.per_country_per_hour));
  const [perPrefix, setPerPrefix] = useState(velocity.per_prefix_per_hour == null ? '' : String(velocity.per_prefix_per_hour));
  // Not set: every type may receive codes (the policy checks no type).
  const storedTypes = (o.allowed_number_types as string[] | undefined) ?? NUMBER_TYPES;
  const [numberTypes, setNumberTypes] = useState<string[]>(storedTypes);
  const storedTestNumbers = (o.sms_test_numbers as TestNumber[] | undefined) ?? [];
  const [testNumbers, setTestNumbers] = useState(storedTestNumbers.map((t) => `${t.phone_number} ${t.code}`).join('\n'));
  const [preview, setPreview] = useState<TemplateTest | undefined>();
  const [previewError, setPreviewError] = useState<unknown>();
  const [testNumber, setTestNumber] = useState('');
  const [message, setMessage] = useState('');
  const canUpdate = can('update:connections');
  // What each further part of the page gets: the one dialog, and the reload after a change.
  const section = {
    connection,
    confirm,
    canUpdate,
    reload,
  };

  // The live preview: rendered by identity exactly as a start would send it, without saving.
  useEffect(() => {
    const timer = setTimeout(() => {
      ok(api.POST('/api/v2/connections/{id}/sms-template/test', { params: { path: { id: connection.id } }, body: template ? { template } : {} })).then(
        (answer) => {
          setPreview(answer);
          setPreviewError(undefined);
        },
        (err: unknown) => setPreviewError(err),
      );
    }, 300);
    return () => clearTimeout(timer);
    // The saved code length and domain-bound line are part of the message: a save elsewhere on the page renders it again.
  }, [template, connection.id, JSON.stringify([o.totp, o.webotp])]);

  const changes: Record<string, unknown> = {};
  if (template !== String(o.template ?? '')) changes.template = template;
  if (listOf(allowed).join() !== (o.allowed_countries ?? []).join()) changes.allowed_countries = listOf(allowed).length ? listOf(allowed) : null;
  if (listOf(denied).join() !== (o.denied_countries ?? []).join()) changes.denied_countries = listOf(denied).length ? listOf(denied) : null;
  if (Number(prefixDigits) !== (o.sms_prefix_digits ?? 4)) changes.sms_prefix_digits = Number(prefixDigits);
  const guardChanges: Record<string, number> = {};
  if (Number(minSends) !== (guard?.min_sends ?? 50)) guardChanges.min_sends = Number(minSends);
  if (Number(minConversion) / 100 !== (guard?.min_conversion ?? 0.1)) guardChanges.min_conversion = Number(minConversion) / 100;
  if (Number(windowMinutes) !== (guard?.window_minutes ?? 60)) guardChanges.window_minutes = Number(windowMinutes);
  if (Number(blockMinutes) !== (guard?.block_minutes ?? 1440)) guardChanges.block_minutes = Number(blockMinutes);
  if (Object.keys(guardChanges).length) changes.sms_fraud_guard = guardChanges;
  const velocityChanges: Record<string, number | null> = {};
  if (limitOf(perCountry) !== (velocity.per_country_per_hour ?? null)) velocityChanges.per_country_per_hour = limitOf(perCountry);
  if (limitOf(perPrefix) !== (velocity.per_prefix_per_hour ?? null)) velocityChanges.per_prefix_per_hour = limitOf(perPrefix);
  if (Object.keys(velocityChanges).length) changes.sms_velocity_limits = velocityChanges;
  const chosenTypes = NUMBER_TYPES.filter((t) => numberTypes.includes(t));
  if (chosenTypes.join() !== NUMBER_TYPES.filter((t) => storedTypes.includes(t)).join()) changes.allowed_number_types = chosenTypes;
  const parsedTestNumbers = testNumbersOf(testNumbers);
  if (JSON.stringify(parsedTestNumbers) !== JSON.stringify(storedTestNumbers)) changes.sms_test_numbers = parsedTestNumbers.length ? parsedTestNumbers : null;

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
            run: () => ok(api.PATCH('/api/v2/connections/{id}', { params: { path: { id: connection.id } }, body: { options: changes } })),
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
          <label for="window-minutes">Fraud guard: window judged (minutes)</label>
          <input id="window-minutes" type="number" min={1} max={10080} value={windowMinutes} onInput={(e) => setWindowMinutes((e.target as HTMLInputElement).value)} />
          <label for="block-minutes">Fraud guard: a block lasts (minutes)</label>
          <input id="block-minutes" type="number" min={1} max={43200} value={blockMinutes} onInput={(e) => setBlockMinutes((e.target as HTMLInputElement).value)} />
          <label for="per-country">Velocity limit: starts per hour to one country (empty: no limit)</label>
          <input id="per-country" type="number" min={1} value={perCountry} onInput={(e) => setPerCountry((e.target as HTMLInputElement).value)} />
          <label for="per-prefix">Velocity limit: starts per hour to one prefix (empty: no limit)</label>
          <input id="per-prefix" type="number" min={1} value={perPrefix} onInput={(e) => setPerPrefix((e.target as HTMLInputElement).value)} />
        </fieldset>
        <fieldset disabled={!canUpdate}>
          <legend>Number types that may receive codes</legend>
          {NUMBER_TYPES.map((type) => (
            <label key={type} class="check">
              <input
                type="checkbox"
                checked={numberTypes.includes(type)}
                onChange={(e) => setNumberTypes((e.target as HTMLInputElement).checked ? [...numberTypes, type] : numberTypes.filter((t) => t !== type))}
              />{' '}
              {type}
            </label>
          ))}
        </fieldset>
        <fieldset disabled={!canUpdate}>
          <legend>Test numbers</legend>
          <label for="test-numbers">Test numbers and their fixed codes ("+14155550123 123456", one a line; no SMS is sent to them)</label>
          <textarea id="test-numbers" rows={3} value={testNumbers} onInput={(e) => setTestNumbers((e.target as HTMLTextAreaElement).value)} />
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
                // As the console's client, without the operator's token: the start any application makes.
                await ok(identityApi(settings.domain).POST('/passwordless/start', { body: { client_id: settings.client_id, connection: connection.name, phone_number: testNumber, send: 'code' } }));
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
      <GatewaySettings {...section} />
      <ChannelSettings {...section} />
      <CodeSettings {...section} />
      <PasskeySettings {...section} />
      <EnabledApplications {...section} />
      {can('delete:connections') && <DeleteConnection connection={connection} confirm={confirm} />}
    </section>
  );
}
