import {
  CUSTOM_TEXT_SCREENS,
  DEFAULT_PROMPT_SETTINGS,
  type CustomText,
  type CustomTextPrompt,
  type PromptSettings,
  type PromptSettingsUpdate,
} from '@smsauth/contracts';
import type { IdentityStore, StoredScreenTexts } from '../../store';
import { invalidField } from '../management/validation';

/** Auth0's `GET /api/v2/prompts`: what was set over Auth0's values for a new tenant. */
export async function getPromptSettings(store: IdentityStore): Promise<PromptSettings> {
  return { ...DEFAULT_PROMPT_SETTINGS, ...((await store.tenantSettings.find())?.prompt_settings ?? {}) } as PromptSettings;
}

/** The fields given replace the stored ones (null: false, as at Auth0). */
export async function updatePromptSettings(tx: IdentityStore, update: PromptSettingsUpdate, now: Date): Promise<PromptSettings> {
  const stored = (await tx.tenantSettings.find())?.prompt_settings ?? {};
  const given = Object.fromEntries(Object.entries(update).map(([field, value]) => [field, value ?? false]));
  const row = await tx.tenantSettings.update({ prompt_settings: { ...stored, ...given } }, now);
  return { ...DEFAULT_PROMPT_SETTINGS, ...row.prompt_settings } as PromptSettings;
}

/** A prompt's texts in a language; `{}` when none were set, and for Auth0's prompts the pages do not have. */
export async function getCustomText(store: IdentityStore, prompt: string, language: string): Promise<StoredScreenTexts> {
  return (await store.promptCustomTexts.find(prompt, language)) ?? {};
}

/** A prompt's texts as stored: the screens given, each checked to be one of the prompt's (`path` names a refused one). */
export function promptTexts(prompt: CustomTextPrompt, texts: CustomText, path: (screen: string) => string = (screen) => screen): StoredScreenTexts {
  const screens: readonly string[] = CUSTOM_TEXT_SCREENS[prompt];
  const given = Object.entries(texts).filter((entry): entry is [string, Record<string, string>] => entry[1] !== undefined);
  for (const [screen] of given) {
    if (!screens.includes(screen)) throw invalidField(path(screen), `is not a screen of the ${prompt} prompt (its screens: ${screens.join(', ')})`);
  }
  return Object.fromEntries(given);
}

/** Replaces the prompt's texts in the language (`{}` removes them); a screen of another prompt is refused. */
export async function replaceCustomText(tx: IdentityStore, prompt: CustomTextPrompt, language: string, texts: CustomText, now: Date): Promise<StoredScreenTexts> {
  const stored = promptTexts(prompt, texts);
  await tx.promptCustomTexts.replace(prompt, language, stored, now);
  return stored;
}
