import { useState } from 'preact/hooks';
import { FieldError, refusedField } from '../../components/field-error';
import { inputValue, usePatch, type SectionProps } from './section';
import { SettingsForm } from './settings-form';
import type { Connection } from '../fraud-data';

type WebOtp = NonNullable<Connection['options']['webotp']>;

const words = (text: string) => text.split(/[\s,]+/).filter(Boolean);

/** The host the SMS line names (`@login.example.com`); what was typed when it is no URL (the API then refuses it). */
function hostOf(origin: string): string {
  try {
    return new URL(origin).host;
  } catch {
    return origin;
  }
}

/** The code itself (length, lifetime), the login page's preselected country and domain-bound codes (`webotp`). */
export function CodeSettings({ connection, confirm, reload, canUpdate }: SectionProps) {
  const { refusal, patch, notice, saved } = usePatch(connection, reload);
  const o = connection.options;
  const totp = (o.totp ?? {}) as { length?: number; time_step?: number };
  const storedLength = totp.length ?? 6;
  const storedLifetime = totp.time_step ?? 300;
  const storedCountry = String(o.default_country ?? '');
  const webotp = o.webotp as WebOtp | undefined;
  const [length, setLength] = useState(String(storedLength));
  const [lifetime, setLifetime] = useState(String(storedLifetime));
  const [country, setCountry] = useState(storedCountry);
  const [origin, setOrigin] = useState(webotp?.origin ?? '');
  const [hashes, setHashes] = useState((webotp?.app_hashes ?? []).join('\n'));

  const changes: Record<string, unknown> = {};
  const effects: string[] = [];
  const totpChanges: Record<string, number> = {};
  if (Number(length) !== storedLength) {
    totpChanges.length = Number(length);
    effects.push(`Codes sent from now on have ${length} digits (now ${storedLength}).`);
  }
  if (Number(lifetime) !== storedLifetime) {
    totpChanges.time_step = Number(lifetime);
    effects.push(`Codes sent from now on can be used for ${lifetime} seconds (now ${storedLifetime}).`);
  }
  if (Object.keys(totpChanges).length) changes.totp = totpChanges;
  if (country.trim().toUpperCase() !== storedCountry) {
    const code = country.trim().toUpperCase();
    changes.default_country = code || null;
    effects.push(
      code
        ? `The hosted login page preselects ${code}, so people there can type their national number.`
        : 'The hosted login page preselects the country of the browser language, else none.',
    );
  }
  const newHashes = words(hashes);
  if (origin.trim() !== (webotp?.origin ?? '') || newHashes.join() !== (webotp?.app_hashes ?? []).join()) {
    changes.webotp = origin.trim() ? { origin: origin.trim(), app_hashes: newHashes } : null;
    effects.push(
      origin.trim()
        ? `Each SMS ends with the line “@${hostOf(origin.trim())} #<code>”${newHashes.length ? ` and the Android app hash${newHashes.length > 1 ? 'es' : ''} ${newHashes.join(', ')}` : ''}: browsers and phones offer the code only on that site (and apps).`
        : 'SMS no longer carry the domain-bound line: any site can be offered the code.',
    );
  }

  return (
    <SettingsForm
      id="code"
      heading="Code and login page"
      question={`Change the code settings of ${connection.name}?`}
      effects={effects}
      apply={() => patch({ options: changes })}
      applied={() => saved('Code settings saved.')}
      save="Save code settings…"
      notice={notice}
      confirm={confirm}
      canUpdate={canUpdate}
    >
      <fieldset disabled={!canUpdate}>
        <legend>The code</legend>
        <label for="code-length">Code length (digits, 4 to 10)</label>
        <input id="code-length" type="number" min={4} max={10} required value={length} onInput={(e) => setLength(inputValue(e))} {...refusedField(refusal, 'options.totp.length', 'code-length-error')} />
        <FieldError error={refusal} path="options.totp.length" id="code-length-error" />
        <label for="code-lifetime">Code lifetime (seconds, 30 to 3600)</label>
        <input id="code-lifetime" type="number" min={30} max={3600} required value={lifetime} onInput={(e) => setLifetime(inputValue(e))} {...refusedField(refusal, 'options.totp.time_step', 'code-lifetime-error')} />
        <FieldError error={refusal} path="options.totp.time_step" id="code-lifetime-error" />
      </fieldset>
      <fieldset disabled={!canUpdate}>
        <legend>Login page</legend>
        <label for="default-country">Preselected country (ISO code such as GB; empty: the browser language's)</label>
        <input id="default-country" value={country} maxLength={2} onInput={(e) => setCountry(inputValue(e))} {...refusedField(refusal, 'options.default_country', 'default-country-error')} />
        <FieldError error={refusal} path="options.default_country" id="default-country-error" />
      </fieldset>
      <fieldset disabled={!canUpdate}>
        <legend>Domain-bound codes (WebOTP, iOS autofill, Android SMS Retriever)</legend>
        <label for="webotp-origin">Origin the code is for (https, no path; empty: off)</label>
        <input id="webotp-origin" type="url" value={origin} onInput={(e) => setOrigin(inputValue(e))} placeholder="https://login.example.com" {...refusedField(refusal, 'options.webotp.origin', 'webotp-origin-error')} />
        <FieldError error={refusal} path="options.webotp.origin" id="webotp-origin-error" />
        <label for="webotp-hashes">Android app hashes (11 characters each, one a line, at most 5)</label>
        <textarea id="webotp-hashes" rows={2} value={hashes} onInput={(e) => setHashes((e.target as HTMLTextAreaElement).value)} {...refusedField(refusal, 'options.webotp.app_hashes', 'webotp-hashes-error')} />
        <FieldError error={refusal} path="options.webotp.app_hashes" id="webotp-hashes-error" />
        <FieldError error={refusal} path="options.webotp" exact id="webotp-error" />
      </fieldset>
    </SettingsForm>
  );
}
