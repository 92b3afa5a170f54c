/**
 * The languages the hosted pages and the default messages are bundled in, as BCP 47 tags
 * spelled the way Auth0's `enabled_locales` and custom-text paths spell them. English is the
 * source language and the default of a tenant that has enabled none.
 */
export const LOGIN_LANGUAGES = [
  'en', 'ar', 'cs', 'da', 'de', 'el', 'es', 'fa', 'fi', 'fr', 'he', 'hi', 'hu', 'id', 'it', 'ja',
  'ko', 'nb', 'nl', 'pl', 'pt-BR', 'pt-PT', 'ro', 'ru', 'sv', 'th', 'tr', 'uk', 'ur', 'vi', 'zh-CN', 'zh-TW',
] as const;

export type LoginLanguage = (typeof LOGIN_LANGUAGES)[number];

export const DEFAULT_LOGIN_LANGUAGE: LoginLanguage = 'en';

/** Written right to left: the pages carry `dir="rtl"` and mirror their layout. */
export const RIGHT_TO_LEFT_LANGUAGES: readonly LoginLanguage[] = ['ar', 'fa', 'he', 'ur'];

export function isLoginLanguage(tag: string): tag is LoginLanguage {
  return (LOGIN_LANGUAGES as readonly string[]).includes(tag);
}
