import { useState } from 'preact/hooks';
import { Notice } from '../../components/ui';
import { FieldError, refusedField } from '../../components/field-error';
import { inputValue, usePatch, type SectionProps } from './section';
import type { Connection } from '../fraud-data';

type StoredAuthentication = NonNullable<Connection['options']['gateway_authentication']>;

/**
 * Where codes are delivered and how identity proves itself to the gateway. The secret is
 * write-only: the API never answers it, so an empty field keeps the stored one.
 */
export function GatewaySettings({ connection, confirm, reload, canUpdate }: SectionProps) {
  const { refusal, patch, notice, saved } = usePatch(connection, reload);
  const o = connection.options;
  const storedUrl = String(o.gateway_url ?? '');
  const stored = o.gateway_authentication as StoredAuthentication | undefined;
  const [url, setUrl] = useState(storedUrl);
  const [bearer, setBearer] = useState(Boolean(stored));
  const [subject, setSubject] = useState(stored?.subject ?? '');
  const [audience, setAudience] = useState(stored?.audience ?? '');
  const [secret, setSecret] = useState('');
  const [base64, setBase64] = useState(stored?.secret_base64_encoded ?? false);

  const changes: Record<string, unknown> = {};
  if (url !== storedUrl) changes.gateway_url = url;
  if (!bearer && stored) changes.gateway_authentication = null;
  if (bearer) {
    const auth: Record<string, unknown> = {};
    if (!stored) auth.method = 'bearer';
    if (subject !== (stored?.subject ?? '')) auth.subject = subject;
    if (audience !== (stored?.audience ?? '')) auth.audience = audience;
    if (secret) auth.secret = secret;
    if (base64 !== (stored?.secret_base64_encoded ?? false)) auth.secret_base64_encoded = base64;
    if (Object.keys(auth).length) changes.gateway_authentication = auth;
  }
  const authChanged = 'gateway_authentication' in changes;

  return (
    <section class="card" aria-labelledby="gateway-title">
      <h2 id="gateway-title">Delivery gateway</h2>
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          // What the API warns about the new settings (no authentication, say), announced with the save.
          let warnings: string[] = [];
          confirm({
            title: `Change where and how ${connection.name} delivers codes?`,
            effect: (
              <ul>
                {'gateway_url' in changes && (
                  <li>
                    From the next start, codes go to <code>{url}</code> instead of <code>{storedUrl}</code>.
                  </li>
                )}
                {authChanged &&
                  (bearer ? (
                    <li>
                      Each delivery carries a bearer token (HS256) with subject <code>{subject}</code> and audience <code>{audience}</code>, signed with{' '}
                      {secret ? 'the secret you entered (stored, never shown again)' : 'the stored secret'}
                      {base64 ? ', read as base64' : ''}. A gateway that expects other values refuses every delivery.
                    </li>
                  ) : (
                    <li>Deliveries carry no bearer token any more: a gateway that checks one refuses every delivery, and every start fails.</li>
                  ))}
              </ul>
            ),
            action: 'Apply',
            run: async () => {
              warnings = (await patch({ options: changes })).warnings ?? [];
              setSecret('');
            },
            done: () => saved(['Delivery settings saved.', ...warnings].join(' ')),
          });
        }}
      >
        <fieldset disabled={!canUpdate}>
          <legend>Where codes go</legend>
          <label for="gateway-url">Gateway URL</label>
          <input id="gateway-url" type="url" required value={url} onInput={(e) => setUrl(inputValue(e))} {...refusedField(refusal, 'options.gateway_url', 'gateway-url-error')} />
          <FieldError error={refusal} path="options.gateway_url" id="gateway-url-error" />
        </fieldset>
        <fieldset disabled={!canUpdate}>
          <legend>Gateway authentication</legend>
          <label class="check">
            <input type="checkbox" checked={bearer} onChange={(e) => setBearer((e.target as HTMLInputElement).checked)} /> Send a bearer token (HS256) with each delivery
          </label>
          {bearer && (
            <>
              <label for="gateway-subject">Token subject</label>
              <input id="gateway-subject" required value={subject} onInput={(e) => setSubject(inputValue(e))} {...refusedField(refusal, 'options.gateway_authentication.subject', 'gateway-subject-error')} />
              <FieldError error={refusal} path="options.gateway_authentication.subject" id="gateway-subject-error" />
              <label for="gateway-audience">Token audience</label>
              <input id="gateway-audience" required value={audience} onInput={(e) => setAudience(inputValue(e))} {...refusedField(refusal, 'options.gateway_authentication.audience', 'gateway-audience-error')} />
              <FieldError error={refusal} path="options.gateway_authentication.audience" id="gateway-audience-error" />
              <label for="gateway-secret">{stored ? 'New signing secret (write-only; empty keeps the stored one)' : 'Signing secret (write-only: never shown again)'}</label>
              <input
                id="gateway-secret"
                type="password"
                autoComplete="new-password"
                required={!stored}
                value={secret}
                onInput={(e) => setSecret(inputValue(e))}
                {...refusedField(refusal, 'options.gateway_authentication.secret', 'gateway-secret-error')}
              />
              <FieldError error={refusal} path="options.gateway_authentication.secret" id="gateway-secret-error" />
              <label class="check">
                <input type="checkbox" checked={base64} onChange={(e) => setBase64((e.target as HTMLInputElement).checked)} /> The secret is base64 (decoded before signing)
              </label>
            </>
          )}
          <FieldError error={refusal} path="options.gateway_authentication" exact id="gateway-auth-error" />
        </fieldset>
        {canUpdate && (
          <button type="submit" class="primary" disabled={Object.keys(changes).length === 0}>
            Save delivery settings…
          </button>
        )}
        {notice && <Notice>{notice}</Notice>}
        </form>
    </section>
  );
}
