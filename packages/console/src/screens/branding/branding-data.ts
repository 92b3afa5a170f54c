import type { Schema } from '../../api';
import type { paths } from '../../generated/identity-api';

/**
 * The Branding screen's state without the screen: the drafts an operator edits (brand, languages,
 * texts), what saving one would change (the confirmation lists it), the body each save sends, and
 * the preview request made of the drafts (nothing saved).
 */

export type Branding = Schema<'Branding'>;
export type BrandingUpdate = Schema<'BrandingUpdate'>;
export type CustomText = Schema<'CustomText'>;

/** The hosted pages' languages (the API's `language` of custom text; the type check keeps both lists equal). */
export type Language = paths['/api/v2/prompts/{prompt}/custom-text/{language}']['put']['parameters']['path']['language'];
export type Prompt = paths['/api/v2/prompts/{prompt}/custom-text/{language}']['put']['parameters']['path']['prompt'];
export type Screen = keyof CustomText & string;

export const LANGUAGES = [
  'en', 'ar', 'cs', 'da', 'de', 'el', 'es', 'fa', 'fi', 'fr', 'he', 'hi', 'hu', 'id', 'it', 'ja',
  'ko', 'nb', 'nl', 'pl', 'pt-BR', 'pt-PT', 'ro', 'ru', 'sv', 'th', 'tr', 'uk', 'ur', 'vi', 'zh-CN', 'zh-TW',
] as const satisfies readonly Language[];
// Every language of the API is in the list: a language added to identity fails this line until it is added here.
const everyLanguage: Exclude<Language, (typeof LANGUAGES)[number]> extends never ? true : never = true;
void everyLanguage;

/** The screens of each prompt whose texts can be set (the API refuses a screen of another prompt). */
export const PROMPT_SCREENS: Record<Prompt, readonly Screen[]> = {
  'login-id': ['login-id'],
  'login-passwordless': ['login-passwordless-sms-otp'],
  passkeys: ['passkey-enrollment-local'],
  logout: ['logout', 'logout-aborted', 'logout-complete'],
  common: ['common'],
  smsauth: ['common', 'phone', 'code', 'errors', 'passkey-offer', 'signed-in', 'logout', 'co-verify', 'error-page'],
};

/** "French (français)": the name in English, then in the language itself, as the browser knows them. */
export function languageName(tag: string): string {
  const english = displayName(tag, 'en');
  const own = displayName(tag, tag);
  return own && own !== english ? `${english} (${own})` : english;
}

function displayName(tag: string, inLanguage: string): string {
  try {
    return new Intl.DisplayNames([inLanguage], { type: 'language' }).of(tag) ?? tag;
  } catch {
    return tag;
  }
}

/** One field a save changes: its name as the API spells it, before and after ('' is none). */
export interface Change {
  field: string;
  from: string;
  to: string;
}

// ---- Brand ----

/** The brand form's fields, each a string ('' is none). */
export interface BrandDraft {
  logo_url: string;
  favicon_url: string;
  primary: string;
  page_background: string;
  font_url: string;
}

const BRAND_FIELDS: Array<[keyof BrandDraft, string]> = [
  ['logo_url', 'logo_url'],
  ['favicon_url', 'favicon_url'],
  ['primary', 'colors.primary'],
  ['page_background', 'colors.page_background'],
  ['font_url', 'font.url'],
];

export function brandDraftOf(saved: Branding): BrandDraft {
  return {
    logo_url: saved.logo_url ?? '',
    favicon_url: saved.favicon_url ?? '',
    primary: saved.colors?.primary ?? '',
    page_background: saved.colors?.page_background ?? '',
    font_url: saved.font?.url ?? '',
  };
}

/** The fields the draft changes (trimmed; a colour compared in lower case, as the API stores it). */
export function brandChanges(saved: Branding, draft: BrandDraft): Change[] {
  const before = brandDraftOf(saved);
  const same = (key: keyof BrandDraft, a: string, b: string) => (key === 'primary' || key === 'page_background' ? a.toLowerCase() === b.toLowerCase() : a === b);
  return BRAND_FIELDS.flatMap(([key, field]) => {
    const to = draft[key].trim();
    return same(key, before[key], to) ? [] : [{ field, from: before[key], to }];
  });
}

/** PATCH /branding's body: only the changed fields; an emptied one is null (removed). */
export function brandUpdateOf(saved: Branding, draft: BrandDraft): BrandingUpdate {
  const changed = new Set(brandChanges(saved, draft).map((c) => c.field));
  const value = (key: keyof BrandDraft) => draft[key].trim() || null;
  const body: BrandingUpdate = {};
  if (changed.has('logo_url')) body.logo_url = value('logo_url');
  if (changed.has('favicon_url')) body.favicon_url = value('favicon_url');
  if (changed.has('font.url')) body.font = value('font_url') === null ? null : { url: value('font_url') };
  const colors: NonNullable<BrandingUpdate['colors']> = {};
  if (changed.has('colors.primary')) colors.primary = value('primary');
  if (changed.has('colors.page_background')) colors.page_background = value('page_background');
  if (Object.keys(colors).length) body.colors = colors;
  return body;
}

/** The whole draft as the preview takes it (same shape as PATCH; none means the built-in look). */
export function brandPreviewOf(draft: BrandDraft): BrandingUpdate {
  const value = (key: keyof BrandDraft) => draft[key].trim() || null;
  return {
    logo_url: value('logo_url'),
    favicon_url: value('favicon_url'),
    font: value('font_url') === null ? null : { url: value('font_url') },
    colors: { primary: value('primary'), page_background: value('page_background') },
  };
}

/** `#rgb` or `#rrggbb` as the colour input's `#rrggbb` (it takes nothing else); black otherwise. */
export function colorInputValue(text: string): string {
  const t = text.trim().toLowerCase();
  if (/^#[0-9a-f]{6}$/.test(t)) return t;
  if (/^#[0-9a-f]{3}$/.test(t)) return `#${[...t.slice(1)].map((c) => c + c).join('')}`;
  return '#000000';
}

// ---- Languages ----

/**
 * `enabled_locales` from the checked languages and the default: the default first, then the
 * others in their saved order, then those newly checked in the list's order.
 */
export function enabledLocalesOf(saved: readonly Language[], checked: ReadonlySet<string>, defaultLanguage: Language): Language[] {
  const rest = [...saved.filter((l) => checked.has(l)), ...LANGUAGES.filter((l) => checked.has(l) && !saved.includes(l))].filter((l) => l !== defaultLanguage);
  return [defaultLanguage, ...rest];
}

export function localeChanges(saved: readonly string[], next: readonly string[]): Change[] {
  const changes: Change[] = [];
  if (saved[0] !== next[0]) changes.push({ field: 'default language', from: saved[0] ? languageName(saved[0]) : '', to: next[0] ? languageName(next[0]) : '' });
  const added = next.filter((l) => !saved.includes(l));
  const removed = saved.filter((l) => !next.includes(l));
  if (added.length) changes.push({ field: 'languages added', from: '', to: added.map(languageName).join(', ') });
  if (removed.length) changes.push({ field: 'languages removed', from: removed.map(languageName).join(', '), to: '' });
  return changes;
}

// ---- Texts ----

/** One prompt's texts in one language, by screen then key ('' or absent: no custom text). */
export type PromptTexts = Partial<Record<Screen, Record<string, string>>>;

/** Where a draft of texts belongs: a language and a prompt. */
export const textsKey = (language: string, prompt: Prompt) => `${language}/${prompt}`;

/** The PUT body: every non-empty text of the prompt's screens ({} removes them all). */
export function textsBodyOf(prompt: Prompt, draft: PromptTexts): CustomText {
  const body: Record<string, Record<string, string>> = {};
  for (const screen of PROMPT_SCREENS[prompt]) {
    const texts = Object.entries(draft[screen] ?? {}).filter(([, text]) => text.trim() !== '');
    if (texts.length) body[screen] = Object.fromEntries(texts);
  }
  return body as CustomText;
}

/** The texts a save changes, named `screen.key` ('' is the page's own text). */
export function textChanges(prompt: Prompt, saved: PromptTexts, draft: PromptTexts): Change[] {
  const before = textsBodyOf(prompt, saved) as PromptTexts;
  const after = textsBodyOf(prompt, draft) as PromptTexts;
  return PROMPT_SCREENS[prompt].flatMap((screen) => {
    const keys = [...new Set([...Object.keys(before[screen] ?? {}), ...Object.keys(after[screen] ?? {})])];
    return keys.flatMap((key) => {
      const from = before[screen]?.[key] ?? '';
      const to = after[screen]?.[key] ?? '';
      return from === to ? [] : [{ field: `${screen}.${key}`, from, to }];
    });
  });
}

/** The keys a screen's editor shows: the pages' own (their defaults) then any saved key they do not use. */
export function keysOf(defaults: Record<string, string> | undefined, saved: Record<string, string> | undefined): string[] {
  const own = Object.keys(defaults ?? {});
  return [...own, ...Object.keys(saved ?? {}).filter((k) => !own.includes(k))];
}

/** The preview's `custom_text`: the drafts of the preview's language, each a whole prompt (it replaces the saved one for the page). */
export function previewTextsOf(drafts: ReadonlyMap<string, PromptTexts>, language: string): Partial<Record<Prompt, CustomText>> {
  const texts: Partial<Record<Prompt, CustomText>> = {};
  for (const prompt of Object.keys(PROMPT_SCREENS) as Prompt[]) {
    const draft = drafts.get(textsKey(language, prompt));
    if (draft) texts[prompt] = textsBodyOf(prompt, draft);
  }
  return texts;
}

// ---- Preview ----

export type PreviewRequest = Schema<'BrandingPreview'>;
export type PreviewScreen = PreviewRequest['screen'];

/** The states of the login page the preview offers, in words. */
export const PREVIEW_SCREENS = [
  ['phone', 'Phone number'],
  ['phone-error', 'Phone number, refused'],
  ['code', 'Code'],
  ['code-error', 'Code, wrong'],
  ['code-resend-wait', 'Code, just sent again'],
  ['passkey-offer', 'Passkey offer'],
  ['passkey-error', 'Passkey refused'],
  ['signed-in', 'Signed in'],
  ['signed-out', 'Signed out'],
  ['error', 'Error page'],
  ['front-channel-logout', 'Logging out of the applications'],
  ['co-verify', 'Embedded login: verifying across sites'],
] as const satisfies ReadonlyArray<readonly [PreviewScreen, string]>;
// Every state of the API is offered: a state added to identity fails this line until it is added here.
const everyScreen: Exclude<PreviewScreen, (typeof PREVIEW_SCREENS)[number][0]> extends never ? true : never = true;
void everyScreen;

export const PREVIEW_WIDTHS = { phone: { pixels: 390, label: 'Phone (390 px)' }, desktop: { pixels: 1280, label: 'Desktop (1280 px)' } } as const;
export type PreviewWidth = keyof typeof PREVIEW_WIDTHS;

/** The preview request of the drafts: the whole brand draft and the preview language's text drafts. */
export function previewRequestOf(screen: PreviewScreen, language: Language, brand: BrandDraft, drafts: ReadonlyMap<string, PromptTexts>): PreviewRequest {
  const customText = previewTextsOf(drafts, language);
  return { screen, language, branding: brandPreviewOf(brand), ...(Object.keys(customText).length ? { custom_text: customText } : {}) };
}

/**
 * A preview page without its `<style>` elements, and their CSS. A srcdoc frame inherits the
 * console's Content-Security-Policy, whose `style-src 'self'` refuses inline styles (the preview
 * inlines the draft's brand stylesheet); the console gives the CSS to the frame's document as a
 * constructed stylesheet instead (CSSOM, which the policy does not govern), after the page's own
 * stylesheets, where the `<style>` was.
 */
export function withoutInlineStyles(html: string): { html: string; css: string[] } {
  const css: string[] = [];
  const stripped = html.replace(/<style\b[^>]*>([\s\S]*?)<\/style>/gi, (_all, text: string) => {
    css.push(text);
    return '';
  });
  return { html: stripped, css };
}
