import { CUSTOM_TEXT_SCREENS, CustomTextPathSchema, CustomTextSchema, DEFAULT_LOGIN_LANGUAGE, type CustomText, type CustomTextPrompt, type LoginLanguage } from '@smsauth/contracts';
import type { Operation } from '@smsauth/service-kit';
import { bundledMessages } from '../authorize/i18n/messages';
import { managementOperation } from './declare';
import { record } from './responses';

/**
 * The texts the pages show for a prompt's screens when the tenant wrote none, in a language
 * (each key the language's file lacks in English, as the pages fall back): the keys a custom
 * text can replace, which an editor (the console's Branding screen) offers with these as
 * placeholders. Not Auth0's (it documents its defaults instead); read:prompts, like the texts.
 */
export function defaultTexts(prompt: CustomTextPrompt, language: LoginLanguage): CustomText {
  const bundled = { ...bundledMessages(DEFAULT_LOGIN_LANGUAGE), ...bundledMessages(language) };
  const texts: Record<string, Record<string, string>> = {};
  for (const screen of CUSTOM_TEXT_SCREENS[prompt]) {
    const prefix = `${prompt}.${screen}.`;
    for (const [key, text] of Object.entries(bundled)) {
      if (key.startsWith(prefix)) (texts[screen] ??= {})[key.slice(prefix.length)] = text;
    }
  }
  return texts;
}

export function promptDefaultOperations(): Operation[] {
  return [
    managementOperation({
      method: 'get',
      path: '/prompts/:prompt/default-text/:language',
      summary: 'Get the texts the hosted pages show for a prompt\'s screens when no custom text replaces them (smsauth\'s; not Auth0\'s)',
      scope: 'read:prompts',
      params: CustomTextPathSchema,
      paramDescriptions: {
        prompt: 'A prompt whose texts the hosted pages show: login-passwordless, logout, common or smsauth.',
        language: 'A language of the hosted pages (LOGIN_LANGUAGES); a text its file lacks is the English one, as on the pages.',
      },
      status: '200',
      response: record('DefaultText', CustomTextSchema),
      errors: ['400'],
      handle: ({ params }) => defaultTexts(params.prompt, params.language),
    }),
  ];
}
