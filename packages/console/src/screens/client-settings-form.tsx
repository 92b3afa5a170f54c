import { useState } from 'preact/hooks';
import { ok } from '../api';
import { toggled } from '../components/form';
import { ErrorMessage, type Confirm } from '../components/ui';
import { useConsole } from '../context';
import { APP_TYPES, GRANT_TYPES, type Client, type ResourceServer } from './applications-data';
import { AUTH_METHODS, clientChanges, clientFormOf, LOGOUT_INITIATORS, type Change, type ClientForm } from './client-settings';

/** The changes a dialog lists before they are saved. */
export function ChangeList({ changes }: { changes: Change[] }) {
  return (
    <ul data-testid="changes">
      {changes.map((c) => (
        <li key={c.field}>
          <strong>{c.label}</strong>: {c.from} → {c.to}
        </li>
      ))}
    </ul>
  );
}

/**
 * Every setting PATCH /clients/{id} accepts, in one form: Save… lists each changed field with its
 * old and new value, and sends only those (a refusal is shown in the dialog in the API's words).
 */
export function ClientSettingsForm({
  client,
  apis,
  confirm,
  readOnly,
  saved,
}: {
  client: Client;
  apis: ResourceServer[];
  confirm: Confirm;
  readOnly: boolean;
  saved: (changed: string) => void;
}) {
  const { api } = useConsole();
  const [form, setForm] = useState<ClientForm>(() => clientFormOf(client));
  const [problem, setProblem] = useState<unknown>();
  const set = <K extends keyof ClientForm>(key: K, value: ClientForm[K]) => setForm((f) => ({ ...f, [key]: value }));
  const text = (key: keyof ClientForm) => (e: Event) => set(key, (e.target as HTMLInputElement).value as never);
  const check = (key: keyof ClientForm) => (e: Event) => set(key, (e.target as HTMLInputElement).checked as never);
  const id = (key: string) => `client-${key}`;
  // Plain functions, not components: a component defined here would be a new type each render, and its input remounted (focus lost).
  const Text = ({ field, label, type = 'text' }: { field: keyof ClientForm; label: string; type?: string }) => (
    <>
      <label for={id(field)}>{label}</label>
      <input id={id(field)} type={type} value={form[field] as string} onInput={text(field)} />
    </>
  );
  const Lines = ({ field, label }: { field: keyof ClientForm; label: string }) => (
    <>
      <label for={id(field)}>{label} (one a line)</label>
      <textarea id={id(field)} rows={3} value={form[field] as string} onInput={text(field)} />
    </>
  );
  const Check = ({ field, label }: { field: keyof ClientForm; label: string }) => (
    <label class="check">
      <input type="checkbox" checked={form[field] as boolean} onChange={check(field)} /> {label}
    </label>
  );
  const privateKeyJwt = client.token_endpoint_auth_method === null;
  return (
    <form
      class="settings-grid"
      aria-label={`Settings of ${client.name}`}
      onSubmit={(e) => {
        e.preventDefault();
        setProblem(undefined);
        let diff: ReturnType<typeof clientChanges>;
        try {
          diff = clientChanges(client, form);
        } catch (err) {
          setProblem(err);
          return;
        }
        if (diff.changes.length === 0) {
          setProblem(new Error('Nothing changed.'));
          return;
        }
        confirm({
          title: `Save ${diff.changes.length} change(s) to ${client.name}?`,
          effect: (
            <>
              <ChangeList changes={diff.changes} />
              <p>They apply from the next sign-in or token request; tokens already issued keep what they carry until they expire.</p>
            </>
          ),
          action: 'Save',
          run: () => ok(api.PATCH('/api/v2/clients/{id}', { params: { path: { id: client.client_id } }, body: diff.patch })),
          done: () => saved(diff.changes.map((c) => c.label).join(', ')),
        });
      }}
    >
      <fieldset class="card stack" disabled={readOnly}>
        <legend>Application</legend>
        {Text({ field: 'name', label: 'Name' })}
        {Text({ field: 'description', label: 'Description (at most 140 characters)' })}
        <label for={id('app_type')}>Type</label>
        <select id={id('app_type')} value={form.app_type} disabled={client.built_in} onChange={text('app_type')}>
          {APP_TYPES.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
        {Check({ field: 'oidc_conformant', label: 'OIDC conformant (stored and shown: every client here behaves conformant)' })}
      </fieldset>
      <fieldset class="card stack" disabled={readOnly}>
        <legend>URLs</legend>
        {Lines({ field: 'callbacks', label: 'Callback URLs' })}
        {Lines({ field: 'allowed_logout_urls', label: 'Allowed logout URLs' })}
        {Lines({ field: 'allowed_origins', label: 'Allowed origins' })}
        {Lines({ field: 'web_origins', label: 'Web origins' })}
        {Text({ field: 'initiate_login_uri', label: 'Initiate login URI (https, optional)', type: 'url' })}
      </fieldset>
      <fieldset class="card stack" disabled={readOnly}>
        <legend>Tokens</legend>
        <label for={id('token_endpoint_auth_method')}>Token endpoint authentication</label>
        <select id={id('token_endpoint_auth_method')} value={form.token_endpoint_auth_method} onChange={text('token_endpoint_auth_method')}>
          {privateKeyJwt && <option value="">private_key_jwt (keys registered through the API: unchanged)</option>}
          {AUTH_METHODS.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
        <fieldset>
          <legend>Grant types</legend>
          {GRANT_TYPES.map(([value, words]) => (
            <label class="check" key={value}>
              <input type="checkbox" checked={form.grant_types.includes(value)} onChange={(e) => set('grant_types', [...toggled(new Set(form.grant_types), value, (e.target as HTMLInputElement).checked)])} />
              {words}
            </label>
          ))}
        </fieldset>
        <label for={id('default_audience')}>Default audience (the API a token is for when the request names none)</label>
        <select id={id('default_audience')} value={form.default_audience} onChange={text('default_audience')}>
          <option value="">None</option>
          {form.default_audience && !apis.some((a) => a.identifier === form.default_audience) && <option value={form.default_audience}>{form.default_audience}</option>}
          {apis.map((a) => (
            <option key={a.identifier} value={a.identifier}>
              {a.name} ({a.identifier})
            </option>
          ))}
        </select>
        {Text({ field: 'id_token_lifetime', label: 'ID token lifetime in seconds (empty: 36000)', type: 'number' })}
      </fieldset>
      <fieldset class="card stack" disabled={readOnly}>
        <legend>Refresh tokens</legend>
        <label for={id('rotation_type')}>Rotation</label>
        <select id={id('rotation_type')} value={form.rotation_type} onChange={text('rotation_type')}>
          <option value="rotating">Rotating: each use answers a new refresh token</option>
          <option value="non-rotating">Non-rotating: the same token keeps working</option>
        </select>
        {Text({ field: 'leeway', label: 'Reuse leeway in seconds (a rotated token presented again within it is not reuse; 0–60)', type: 'number' })}
        <label for={id('expiration_type')}>Expiration</label>
        <select id={id('expiration_type')} value={form.expiration_type} onChange={text('expiration_type')}>
          <option value="expiring">Expiring</option>
          <option value="non-expiring">Non-expiring</option>
        </select>
        {Text({ field: 'token_lifetime', label: 'Absolute lifetime in seconds (from the sign-in)', type: 'number' })}
        {Check({ field: 'infinite_token_lifetime', label: 'No absolute lifetime' })}
        {Text({ field: 'idle_token_lifetime', label: 'Idle lifetime in seconds (unused for that long, it expires)', type: 'number' })}
        {Check({ field: 'infinite_idle_token_lifetime', label: 'No idle lifetime' })}
      </fieldset>
      <fieldset class="card stack" disabled={readOnly}>
        <legend>Logout notifications (OpenID Connect)</legend>
        {Text({ field: 'backchannel_logout_url', label: 'Back-channel logout URL (a logout_token is POSTed there; https)', type: 'url' })}
        <label for={id('backchannel_mode')}>Back-channel logout sent for</label>
        <select id={id('backchannel_mode')} value={form.backchannel_mode} onChange={text('backchannel_mode')}>
          <option value="custom">The application's own logouts, and the events chosen below</option>
          <option value="all">Every session-ending event</option>
        </select>
        {form.backchannel_mode === 'custom' && (
          <fieldset>
            <legend>Also sent when</legend>
            {LOGOUT_INITIATORS.filter(([value]) => value !== 'rp-logout').map(([value, words]) => (
              <label class="check" key={value}>
                <input
                  type="checkbox"
                  checked={form.backchannel_initiators.includes(value)}
                  onChange={(e) => set('backchannel_initiators', [...toggled(new Set(form.backchannel_initiators), value, (e.target as HTMLInputElement).checked)])}
                />
                {words}
              </label>
            ))}
          </fieldset>
        )}
        {Text({ field: 'frontchannel_logout_url', label: 'Front-channel logout URL (framed by the logout page; https)', type: 'url' })}
        {Check({ field: 'frontchannel_logout_session_required', label: 'The front-channel URL gets iss and sid in its query' })}
      </fieldset>
      <fieldset class="card stack" disabled={readOnly}>
        <legend>Embedded login</legend>
        {Check({ field: 'cross_origin_authentication', label: 'Cross-origin authentication (sign in from the application’s own pages)' })}
        {Text({ field: 'cross_origin_loc', label: 'Cross-origin verification page (optional)', type: 'url' })}
      </fieldset>
      <fieldset class="card stack" disabled={readOnly}>
        <legend>Other Auth0 settings (stored and shown, nothing here acts on them)</legend>
        <label for={id('other_settings')}>As JSON (logo_uri, is_first_party, client_metadata, sso, mobile, addons…)</label>
        <textarea id={id('other_settings')} rows={4} class="code" value={form.other_settings} onInput={text('other_settings')} />
      </fieldset>
      <ErrorMessage error={problem} />
      {!readOnly && (
        <div class="actions">
          <button type="button" onClick={() => (setForm(clientFormOf(client)), setProblem(undefined))}>
            Undo changes
          </button>
          <button type="submit" class="primary">
            Save…
          </button>
        </div>
      )}
    </form>
  );
}
