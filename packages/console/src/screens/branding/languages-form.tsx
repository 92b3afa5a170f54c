import { useEffect, useState } from 'preact/hooks';
import { ok } from '../../api';
import { FieldError } from '../../components/field-error';
import { toggled } from '../../components/form';
import type { Confirm } from '../../components/ui';
import { useConsole } from '../../context';
import { SettingsForm } from '../connection/settings-form';
import { enabledLocalesOf, LANGUAGES, languageName, localeChanges, type Language } from './branding-data';
import { changeSentence, useSave } from './save';

/** The languages the pages may speak and the default (the first): PATCH /tenants/settings enabled_locales. */
export function LanguagesForm({ saved, confirm, reload, canUpdate }: { saved: Language[]; confirm: Confirm; reload: () => void; canUpdate: boolean }) {
  const { api } = useConsole();
  const { refusal, save, notice, saved: announce } = useSave();
  const [checked, setChecked] = useState(() => new Set(saved));
  const [defaultLanguage, setDefault] = useState<Language>(saved[0] ?? 'en');
  useEffect(() => {
    setChecked(new Set(saved));
    setDefault(saved[0] ?? 'en');
  }, [saved.join()]);
  const next = enabledLocalesOf(saved, checked, defaultLanguage);
  return (
    <SettingsForm
      id="languages"
      heading="Languages"
      question="Change the hosted pages' languages?"
      effects={localeChanges(saved, next).map(changeSentence)}
      apply={() => save(() => ok(api.PATCH('/api/v2/tenants/settings', { body: { enabled_locales: next } })))}
      applied={() => {
        announce('Languages saved.');
        reload();
      }}
      save="Save the languages…"
      notice={notice}
      confirm={confirm}
      canUpdate={canUpdate}
    >
      <label for="default-language">Default language (a browser asking for none of the enabled ones gets it)</label>
      <select id="default-language" value={defaultLanguage} disabled={!canUpdate} onChange={(e) => {
        const language = (e.target as HTMLSelectElement).value as Language;
        setDefault(language);
        setChecked(toggled(checked, language, true));
      }}>
        {LANGUAGES.filter((l) => checked.has(l)).map((l) => (
          <option key={l} value={l}>
            {languageName(l)}
          </option>
        ))}
      </select>
      <fieldset class="languages" disabled={!canUpdate}>
        <legend>Enabled languages</legend>
        {LANGUAGES.map((l) => (
          <label class="check" key={l}>
            <input
              type="checkbox"
              checked={checked.has(l)}
              disabled={l === defaultLanguage}
              onChange={(e) => setChecked(toggled(checked, l, (e.target as HTMLInputElement).checked))}
            />
            {languageName(l)} <code>{l}</code>
          </label>
        ))}
      </fieldset>
      <FieldError error={refusal} path="enabled_locales" id="languages-error" />
    </SettingsForm>
  );
}
