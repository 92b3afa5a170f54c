import { CUSTOM_TEXT_PROMPTS, type BrandingPreview, type CustomTextPrompt } from '@smsauth/contracts';
import type { IdentityStore } from '../../store';
import { applicationNameOf } from '../authorize/transaction';
import { notFound } from '../management/validation';
import { draftBranding } from './branding-settings';
import type { LoginBranding } from './login-appearance';
import { promptTexts } from './prompts';
import { flattenCustomTexts, loginBrandingOf } from './store-appearance';

/** The application name a preview shows when no client is named. */
export const PREVIEW_APP_NAME = 'Example App';

/** What a preview of the hosted pages shows of the tenant: the saved appearance with the drafts over it. */
export interface PreviewAppearance {
  branding: LoginBranding;
  /** The texts of the preview's language, keyed as the pages' translation files are. */
  customText: Record<string, string>;
  /** The tenant's saved languages (the language switcher's choices). */
  enabledLocales: readonly string[];
  appName: string;
}

/**
 * The draft brand merged over the saved one as PATCH /branding would merge it, and the saved
 * texts of the language with each prompt of the draft replacing its own, as PUT custom-text
 * would. Reads only: nothing of the draft is written.
 */
export async function previewAppearance(store: IdentityStore, preview: BrandingPreview): Promise<PreviewAppearance> {
  const draftPrompts = Object.entries(preview.custom_text ?? {})
    .filter((entry): entry is [CustomTextPrompt, NonNullable<(typeof entry)[1]>] => entry[1] !== undefined && CUSTOM_TEXT_PROMPTS.includes(entry[0] as CustomTextPrompt))
    .map(([prompt, texts]) => ({ prompt, texts: promptTexts(prompt, texts, (screen) => `custom_text.${prompt}.${screen}`) }));
  const [branding, saved, settings, clientName] = await Promise.all([
    draftBranding(store, preview.branding ?? {}),
    store.promptCustomTexts.forLanguage(preview.language),
    store.tenantSettings.find(),
    preview.client_id === undefined ? Promise.resolve(PREVIEW_APP_NAME) : applicationNameOf(store, preview.client_id),
  ]);
  if (clientName === undefined) throw notFound('Client');
  const drafted = new Set(draftPrompts.map((draft) => draft.prompt));
  return {
    branding: loginBrandingOf(branding),
    customText: flattenCustomTexts([...saved.filter((row) => !drafted.has(row.prompt as CustomTextPrompt)), ...draftPrompts]),
    enabledLocales: settings?.enabled_locales ?? [],
    appName: clientName,
  };
}
