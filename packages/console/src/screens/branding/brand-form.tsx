import { ok } from '../../api';
import { FieldError, refusedField } from '../../components/field-error';
import type { Confirm } from '../../components/ui';
import { useConsole } from '../../context';
import { SettingsForm } from '../connection/settings-form';
import { brandChanges, brandUpdateOf, colorInputValue, type Branding, type BrandDraft } from './branding-data';
import { changeSentence, useSave } from './save';

const value = (e: Event) => (e.target as HTMLInputElement).value;

/** Logo, favicon, font and the two colours: PATCH /branding with the changed fields (emptied: removed). */
export function BrandForm({
  saved,
  draft,
  setDraft,
  confirm,
  reload,
  canUpdate,
}: {
  saved: Branding;
  draft: BrandDraft;
  setDraft: (draft: BrandDraft) => void;
  confirm: Confirm;
  reload: () => void;
  canUpdate: boolean;
}) {
  const { api } = useConsole();
  const { refusal, save, notice, saved: announce } = useSave();
  const changes = brandChanges(saved, draft);
  const set = (key: keyof BrandDraft) => (e: Event) => setDraft({ ...draft, [key]: value(e) });
  const url = (key: 'logo_url' | 'favicon_url' | 'font_url', path: string, label: string, hint: string) => (
    <>
      <label for={`brand-${key}`}>{label}</label>
      <input
        id={`brand-${key}`}
        type="url"
        value={draft[key]}
        placeholder={hint}
        onInput={set(key)}
        {...refusedField(refusal, path, `brand-${key}-error`)}
      />
      <FieldError error={refusal} path={path} id={`brand-${key}-error`} />
    </>
  );
  const colour = (key: 'primary' | 'page_background', path: string, label: string, example: string) => (
    <>
      <label for={`brand-${key}`}>{label} (#rrggbb; empty: the built-in one)</label>
      <span class="colour">
        <input type="color" aria-label={`${label}, picker`} value={colorInputValue(draft[key])} onInput={set(key)} />
        <input id={`brand-${key}`} value={draft[key]} placeholder={example} maxLength={7} onInput={set(key)} {...refusedField(refusal, path, `brand-${key}-error`)} />
      </span>
      <FieldError error={refusal} path={path} id={`brand-${key}-error`} />
    </>
  );
  return (
    <SettingsForm
      id="brand"
      heading="Brand"
      question="Change the hosted pages' brand?"
      effects={changes.map(changeSentence)}
      apply={() => save(() => ok(api.PATCH('/api/v2/branding', { body: brandUpdateOf(saved, draft) })))}
      applied={() => {
        announce('Brand saved: the hosted pages show it within 5 seconds.');
        reload();
      }}
      save="Save the brand…"
      notice={notice}
      confirm={confirm}
      canUpdate={canUpdate}
    >
      <fieldset disabled={!canUpdate}>
        <legend>Images and font (https URLs)</legend>
        {url('logo_url', 'logo_url', 'Logo URL', 'https://cdn.example.com/logo.svg')}
        {url('favicon_url', 'favicon_url', 'Favicon URL', 'https://cdn.example.com/favicon.png')}
        {url('font_url', 'font.url', 'Font file URL (woff2, woff, ttf)', 'https://cdn.example.com/brand.woff2')}
      </fieldset>
      <fieldset disabled={!canUpdate}>
        <legend>Colours</legend>
        {colour('primary', 'colors.primary', 'Primary colour', '#0059d6')}
        {colour('page_background', 'colors.page_background', 'Page background', '#f4f4f8')}
      </fieldset>
      <FieldError error={refusal} path="colors" exact id="brand-colors-error" />
      <FieldError error={refusal} path="" exact id="brand-error" />
    </SettingsForm>
  );
}
