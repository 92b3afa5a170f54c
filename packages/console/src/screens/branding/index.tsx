import { useState } from 'preact/hooks';
import { ok } from '../../api';
import { ErrorMessage, Loading, useConfirm, useLoad } from '../../components/ui';
import { useCan, useConsole } from '../../context';
import { BrandForm } from './brand-form';
import { brandDraftOf, LANGUAGES, previewRequestOf, type BrandDraft, type Language, type PreviewScreen, type Prompt, type PromptTexts } from './branding-data';
import { LanguagesForm } from './languages-form';
import { Preview } from './preview';
import { TextsForm } from './texts-form';

const isLanguage = (tag: string): tag is Language => (LANGUAGES as readonly string[]).includes(tag);

/**
 * The hosted pages' brand, languages and texts, with a live preview of the login page made of
 * the drafts (each part saved on its own, after a dialog listing what it changes).
 */
export function Branding() {
  const { api } = useConsole();
  const can = useCan();
  const [confirm, dialog] = useConfirm();
  const branding = useLoad(() => ok(api.GET('/api/v2/branding')), []);
  const settings = useLoad(() => (can('read:tenant_settings') ? ok(api.GET('/api/v2/tenants/settings')) : Promise.resolve(undefined)), []);
  const [brandDraft, setBrandDraft] = useState<BrandDraft | undefined>();
  const [drafts, setDrafts] = useState<ReadonlyMap<string, PromptTexts>>(new Map());
  const [textLanguage, setTextLanguage] = useState<Language | undefined>();
  const [prompt, setPrompt] = useState<Prompt>('login-passwordless');
  const [previewLanguage, setPreviewLanguage] = useState<Language | undefined>();
  const [previewScreen, setPreviewScreen] = useState<PreviewScreen>('phone');

  if (branding.error) return <Page dialog={dialog}><ErrorMessage error={branding.error} /></Page>;
  if (settings.error) return <Page dialog={dialog}><ErrorMessage error={settings.error} /></Page>;
  // First load only: a reload after a save keeps the forms (and their notices) on the screen.
  if (!branding.data || (settings.data === undefined && settings.loading)) return <Page dialog={dialog}><Loading what="the brand" /></Page>;
  // Without read:tenant_settings the enabled languages are unknown: every language is offered.
  const enabled = (settings.data?.enabled_locales ?? [...LANGUAGES]).filter(isLanguage);
  const defaultLanguage = enabled[0] ?? 'en';
  const brand = brandDraft ?? brandDraftOf(branding.data);
  const language = textLanguage && enabled.includes(textLanguage) ? textLanguage : defaultLanguage;
  const shownLanguage = previewLanguage && enabled.includes(previewLanguage) ? previewLanguage : language;
  const setDraft = (key: string, draft: PromptTexts | undefined) =>
    setDrafts((all) => {
      const next = new Map(all);
      if (draft) next.set(key, draft);
      else next.delete(key);
      return next;
    });

  return (
    <Page dialog={dialog}>
      <div class="branding-layout">
        <div class="editors">
          <BrandForm
            saved={branding.data}
            draft={brand}
            setDraft={setBrandDraft}
            confirm={confirm}
            // The draft stays: saved, it equals the saved brand, so the preview never flickers back to the old one.
            reload={branding.reload}
            canUpdate={can('update:branding')}
          />
          {settings.data && (
            <LanguagesForm saved={(settings.data.enabled_locales ?? []).filter(isLanguage)} confirm={confirm} reload={settings.reload} canUpdate={can('update:tenant_settings')} />
          )}
          {can('read:prompts') && (
            <TextsForm
              languages={enabled}
              language={language}
              setLanguage={(l) => {
                setTextLanguage(l);
                // The preview follows the language being written.
                setPreviewLanguage(l);
              }}
              prompt={prompt}
              setPrompt={setPrompt}
              drafts={drafts}
              setDraft={setDraft}
              confirm={confirm}
              canUpdate={can('update:prompts')}
            />
          )}
        </div>
        <Preview
          request={previewRequestOf(previewScreen, shownLanguage, brand, drafts)}
          languages={enabled}
          setLanguage={setPreviewLanguage}
          setScreen={setPreviewScreen}
        />
      </div>
    </Page>
  );
}

function Page({ dialog, children }: { dialog: preact.ComponentChildren; children: preact.ComponentChildren }) {
  return (
    <section aria-labelledby="branding-title">
      <h1 id="branding-title">Branding</h1>
      <p class="detail">What the hosted login and logout pages look like, the languages they speak and the texts they show.</p>
      {dialog}
      {children}
    </section>
  );
}
