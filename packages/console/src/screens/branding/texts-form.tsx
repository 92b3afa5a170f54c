import { ok } from '../../api';
import { FieldError } from '../../components/field-error';
import { ErrorMessage, Loading, useLoad, type Confirm } from '../../components/ui';
import { useConsole } from '../../context';
import { SettingsForm } from '../connection/settings-form';
import { keysOf, languageName, PROMPT_SCREENS, textChanges, textsBodyOf, textsKey, type Language, type Prompt, type PromptTexts } from './branding-data';
import { changeSentence, useSave } from './save';

const PROMPT_NAMES: Record<Prompt, string> = {
  'login-id': 'login-id: the phone page',
  'login-passwordless': 'login-passwordless: the code page',
  passkeys: 'passkeys: the passkey offer',
  common: 'common: on every page',
  logout: 'logout: the logout pages',
  smsauth: 'smsauth: the pages Auth0 has no name for',
};

/**
 * A prompt's texts in one language: every key the pages have for its screens, their own text as
 * the placeholder and the custom text as the value; saving PUTs the prompt's texts for that
 * language, and an emptied field removes its custom text.
 */
export function TextsForm({
  languages,
  language,
  setLanguage,
  prompt,
  setPrompt,
  drafts,
  setDraft,
  confirm,
  canUpdate,
}: {
  languages: string[];
  language: Language;
  setLanguage: (language: Language) => void;
  prompt: Prompt;
  setPrompt: (prompt: Prompt) => void;
  drafts: ReadonlyMap<string, PromptTexts>;
  /** A draft of this language and prompt (undefined: none, the saved texts again). */
  setDraft: (key: string, draft: PromptTexts | undefined) => void;
  confirm: Confirm;
  canUpdate: boolean;
}) {
  const { api } = useConsole();
  const { refusal, save, notice, saved: announce } = useSave();
  const path = { params: { path: { prompt, language } } };
  const texts = useLoad(
    async () => {
      const [saved, defaults] = await Promise.all([ok(api.GET('/api/v2/prompts/{prompt}/custom-text/{language}', path)), ok(api.GET('/api/v2/prompts/{prompt}/default-text/{language}', path))]);
      return { saved: saved as PromptTexts, defaults: defaults as PromptTexts };
    },
    [prompt, language],
  );
  const key = textsKey(language, prompt);
  const saved = texts.data?.saved ?? {};
  const draft = drafts.get(key) ?? saved;
  const changes = texts.data ? textChanges(prompt, saved, draft) : [];
  const edit = (screen: keyof PromptTexts, textKey: string, text: string) => setDraft(key, { ...draft, [screen]: { ...draft[screen], [textKey]: text } });
  return (
    <SettingsForm
      id="texts"
      heading="Texts"
      question={`Change the ${prompt} texts in ${languageName(language)}?`}
      effects={changes.map(changeSentence)}
      apply={() => save(() => ok(api.PUT('/api/v2/prompts/{prompt}/custom-text/{language}', { ...path, body: textsBodyOf(prompt, draft) })))}
      applied={() => {
        setDraft(key, undefined);
        announce('Texts saved: the hosted pages show them within 5 seconds.');
        texts.reload();
      }}
      save="Save the texts…"
      notice={notice}
      confirm={confirm}
      canUpdate={canUpdate}
    >
      <div class="pickers">
        <div>
          <label for="texts-language">Language</label>
          <select id="texts-language" value={language} onChange={(e) => setLanguage((e.target as HTMLSelectElement).value as Language)}>
            {languages.map((l) => (
              <option key={l} value={l}>
                {languageName(l)}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="texts-prompt">Prompt</label>
          <select id="texts-prompt" value={prompt} onChange={(e) => setPrompt((e.target as HTMLSelectElement).value as Prompt)}>
            {(Object.keys(PROMPT_SCREENS) as Prompt[]).map((p) => (
              <option key={p} value={p}>
                {PROMPT_NAMES[p]}
              </option>
            ))}
          </select>
        </div>
      </div>
      <ErrorMessage error={texts.error} />
      {!texts.data && !texts.error && <Loading what="the texts" />}
      {texts.data &&
        PROMPT_SCREENS[prompt].map((screen) => {
          const keys = keysOf(texts.data!.defaults[screen], saved[screen]);
          return (
            <fieldset key={screen} disabled={!canUpdate}>
              <legend>
                Screen <code>{screen}</code>
              </legend>
              {keys.length === 0 && <p class="detail">The pages show no text of this screen under this name.</p>}
              {keys.map((textKey) => {
                const id = `text-${screen}-${textKey}`;
                const placeholder = texts.data!.defaults[screen]?.[textKey];
                return (
                  <div class="text-field" key={textKey}>
                    <label for={id}>
                      <code>{textKey}</code>
                      {placeholder === undefined && <span class="detail"> (not used by the pages)</span>}
                    </label>
                    <input id={id} dir="auto" lang={language} value={draft[screen]?.[textKey] ?? ''} placeholder={placeholder} maxLength={2000} onInput={(e) => edit(screen, textKey, (e.target as HTMLInputElement).value)} />
                  </div>
                );
              })}
            </fieldset>
          );
        })}
      <FieldError error={refusal} path="" id="texts-error" />
    </SettingsForm>
  );
}
