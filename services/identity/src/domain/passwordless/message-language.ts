/**
 * The language of a start's default messages (docs/sms-templates.md, "Default messages"):
 * the hosted login page's language when the start comes from it, else the start's
 * request_language (`x-request-language`, else `Accept-Language`), else the language of the
 * number's country, else English. A tag matches a bundled language by its language subtag,
 * with Chinese split by script (Traditional: zh-TW, Simplified: zh-CN) and Portuguese by
 * region (Brazil: pt-BR, elsewhere pt-PT); a tag naming no bundled language passes to the next rule.
 */
import { DEFAULT_LOGIN_LANGUAGE, isLoginLanguage, LOGIN_LANGUAGES, type LoginLanguage } from '@smsauth/contracts';

/** Norwegian without a written standard, and Hebrew's old code, read as the bundled ones. */
const ALIASES: Readonly<Record<string, LoginLanguage>> = { no: 'nb', nn: 'nb', iw: 'he' };

function maximized(tag: string): Intl.Locale | undefined {
  try {
    return new Intl.Locale(tag).maximize();
  } catch {
    // Not a well-formed BCP 47 tag (a header says anything): it names no language.
    return undefined;
  }
}

/** The bundled language a BCP 47 tag asks for (`fr-CA`: fr, `zh-HK`: zh-TW, `pt`: pt-BR), if any. */
export function matchLoginLanguage(tag: string | null | undefined): LoginLanguage | undefined {
  const trimmed = tag?.trim();
  if (!trimmed) return undefined;
  const exact = LOGIN_LANGUAGES.find((language) => language.toLowerCase() === trimmed.toLowerCase());
  if (exact) return exact;
  const locale = maximized(trimmed);
  if (!locale) return undefined;
  if (locale.language === 'zh') return locale.script === 'Hant' ? 'zh-TW' : 'zh-CN';
  if (locale.language === 'pt') return locale.region === 'BR' ? 'pt-BR' : 'pt-PT';
  const alias = ALIASES[locale.language];
  if (alias) return alias;
  return isLoginLanguage(locale.language) ? locale.language : undefined;
}

/** The bundled language most spoken in a country (ISO 3166 code), by CLDR's likely subtags (BR: pt-BR, IN: hi, KE: none). */
export function languageOfCountry(country: string | undefined): LoginLanguage | undefined {
  if (!country) return undefined;
  const locale = maximized(`und-${country}`);
  return locale ? matchLoginLanguage(locale.toString()) : undefined;
}

export interface MessageLanguageSources {
  /** The hosted login page's language (the start comes from the page). */
  pageLanguage?: string | null | undefined;
  /** The start's request_language. */
  requestLanguage: string | null;
  /** The number's country (libphonenumber's ISO code). */
  country: string | undefined;
}

export interface MessageLanguage {
  language: LoginLanguage;
  /** Which rule chose it. */
  from: 'page' | 'request' | 'country' | 'default';
}

export function chooseMessageLanguage(sources: MessageLanguageSources): MessageLanguage {
  const page = matchLoginLanguage(sources.pageLanguage);
  if (page) return { language: page, from: 'page' };
  const requested = matchLoginLanguage(sources.requestLanguage);
  if (requested) return { language: requested, from: 'request' };
  const national = languageOfCountry(sources.country);
  if (national) return { language: national, from: 'country' };
  return { language: DEFAULT_LOGIN_LANGUAGE, from: 'default' };
}
