import { BrandingUpdateSchema, CUSTOM_TEXT_PROMPTS, CUSTOM_TEXT_SCREENS, CustomTextSchema, EnabledLocalesSchema, LOGIN_LANGUAGES, type CustomTextPrompt } from '@smsauth/contracts';
import { z } from 'zod';
import { EMPTY_BRANDING, type IdentityStore } from '../../store';
import { brandingChangesOf } from '../branding/branding-settings';
import { replaceCustomText } from '../branding/prompts';
import { canonical, type EntryAction } from './compare';

/*
 * The sections of a tenant file that are one object each rather than a list of entries: the
 * hosted pages' languages, brand and texts, in the shapes of the management API's
 * `PATCH /tenants/settings`, `PATCH /branding` and `PUT /prompts/{prompt}/custom-text/{language}`
 * (docs/branding.md). They are applied after the entries, through the same domain functions.
 */

/** Of `/tenants/settings`, what the pages act on: the languages. Auth0's inert settings stay the API's. */
export const TenantSettingsEntrySchema = z.strictObject({ enabled_locales: EnabledLocalesSchema.optional() });

/**
 * `{prompt: {language: {screen: {key: text}}}}`: each prompt's texts per language, as PUT
 * custom-text takes them; a screen of another prompt is refused here, before anything is written.
 */
export const CustomTextEntrySchema = z
  .partialRecord(
    z.enum(CUSTOM_TEXT_PROMPTS, { message: `identity's pages have custom text for these prompts only: ${CUSTOM_TEXT_PROMPTS.join(', ')}` }),
    z.partialRecord(z.enum(LOGIN_LANGUAGES, { message: `the hosted pages speak these languages only: ${LOGIN_LANGUAGES.join(', ')}` }), CustomTextSchema),
  )
  .superRefine((prompts, ctx) => {
    for (const [prompt, languages] of Object.entries(prompts) as Array<[CustomTextPrompt, Record<string, object> | undefined]>) {
      const screens: readonly string[] = CUSTOM_TEXT_SCREENS[prompt];
      for (const [language, texts] of Object.entries(languages ?? {})) {
        for (const screen of Object.keys(texts).filter((name) => !screens.includes(name))) {
          ctx.addIssue({ code: 'custom', path: [prompt, language, screen], message: `is not a screen of the ${prompt} prompt (its screens: ${screens.join(', ')})` });
        }
      }
    }
  });

export const SETTINGS_SECTIONS = {
  tenant_settings: TenantSettingsEntrySchema,
  branding: BrandingUpdateSchema,
  custom_text: CustomTextEntrySchema,
} as const;
export type SettingsSectionName = keyof typeof SETTINGS_SECTIONS;
export const SETTINGS_SECTION_NAMES = Object.keys(SETTINGS_SECTIONS) as SettingsSectionName[];
export type SettingsDocument = { [S in SettingsSectionName]?: z.output<(typeof SETTINGS_SECTIONS)[S]> };

/** What applying one settings section (or one prompt's texts in a language) did; `label` names the latter. */
export interface AppliedSetting {
  section: SettingsSectionName;
  label?: string;
  action: EntryAction;
}

async function applyLanguages(tx: IdentityStore, entry: z.output<typeof TenantSettingsEntrySchema>, now: Date): Promise<EntryAction> {
  const locales = entry.enabled_locales;
  if (!locales) return 'unchanged';
  const stored = await tx.tenantSettings.find();
  if (stored?.enabled_locales && canonical(stored.enabled_locales) === canonical(locales)) return 'unchanged';
  await tx.tenantSettings.update({ enabled_locales: locales }, now);
  return 'updated';
}

async function applyBranding(tx: IdentityStore, entry: z.output<typeof BrandingUpdateSchema>, now: Date): Promise<EntryAction> {
  const stored = (await tx.branding.find()) ?? EMPTY_BRANDING;
  const changes = Object.fromEntries(
    Object.entries(brandingChangesOf(entry)).filter(([column, value]) => value !== undefined && value !== stored[column as keyof typeof stored]),
  );
  if (Object.keys(changes).length === 0) return 'unchanged';
  await tx.branding.update(changes, now);
  return 'updated';
}

/** A prompt's texts in a language replace the stored ones (as PUT does); prompts and languages the file leaves out keep theirs. */
async function applyCustomTexts(tx: IdentityStore, entry: z.output<typeof CustomTextEntrySchema>, now: Date): Promise<AppliedSetting[]> {
  const applied: AppliedSetting[] = [];
  for (const [prompt, languages] of Object.entries(entry) as Array<[CustomTextPrompt, Record<string, z.output<typeof CustomTextSchema>>]>) {
    for (const [language, texts] of Object.entries(languages ?? {})) {
      const label = `${prompt}.${language}`;
      const given = Object.fromEntries(Object.entries(texts).filter(([, screen]) => screen !== undefined));
      const stored = (await tx.promptCustomTexts.find(prompt, language)) ?? {};
      if (canonical(stored) === canonical(given)) {
        applied.push({ section: 'custom_text', label, action: 'unchanged' });
        continue;
      }
      await replaceCustomText(tx, prompt, language, texts, now);
      applied.push({ section: 'custom_text', label, action: 'updated' });
    }
  }
  return applied;
}

/** Languages first (the texts may be for a language the file enables), then the brand, then the texts. */
export async function applySettings(tx: IdentityStore, document: SettingsDocument, now: Date): Promise<AppliedSetting[]> {
  const applied: AppliedSetting[] = [];
  if (document.tenant_settings) applied.push({ section: 'tenant_settings', action: await applyLanguages(tx, document.tenant_settings, now) });
  if (document.branding) applied.push({ section: 'branding', action: await applyBranding(tx, document.branding, now) });
  if (document.custom_text) applied.push(...(await applyCustomTexts(tx, document.custom_text, now)));
  return applied;
}
