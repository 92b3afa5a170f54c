import { DEFAULT_LOGIN_LANGUAGE, LOGIN_LANGUAGES, type LoginLanguage } from '@smsauth/contracts';
import { isBundledLanguage } from './messages';

/** The languages a tenant's pages may speak, its default first (Auth0's `enabled_locales`; empty: all, English first). */
export function enabledLanguages(enabledLocales: readonly string[]): readonly LoginLanguage[] {
  const enabled = enabledLocales.map((tag) => matchLanguage(tag, LOGIN_LANGUAGES)).filter((tag): tag is LoginLanguage => tag !== undefined);
  return enabled.length > 0 ? [...new Set(enabled)] : [DEFAULT_LOGIN_LANGUAGE, ...LOGIN_LANGUAGES.filter((tag) => tag !== DEFAULT_LOGIN_LANGUAGE)];
}

/** Tags whose bundled language is not found by their first subtag alone. */
const ALIASES: Readonly<Record<string, string>> = { no: 'nb', nn: 'nb', iw: 'he', in: 'id', 'zh-hant': 'zh-TW', 'zh-hk': 'zh-TW', 'zh-mo': 'zh-TW', 'zh-hans': 'zh-CN', 'zh-sg': 'zh-CN' };

/**
 * The language of `candidates` a BCP 47 tag asks for: the tag itself (any case), a known alias
 * (`zh-Hant` is `zh-TW`, `no` is `nb`), then the first candidate of its language (`pt` and `pt-AO`
 * find `pt-BR` or `pt-PT`, whichever comes first in `candidates`, but `pt-PT` is preferred for a
 * Portuguese region other than Brazil), else none.
 */
export function matchLanguage(tag: string, candidates: readonly LoginLanguage[]): LoginLanguage | undefined {
  const lower = tag.trim().toLowerCase().replace(/_/g, '-');
  if (!lower || lower === '*') return undefined;
  const exact = candidates.find((candidate) => candidate.toLowerCase() === lower);
  if (exact) return exact;
  const [primary, ...rest] = lower.split('-');
  const script = rest.find((subtag) => subtag.length === 4);
  const region = rest.find((subtag) => subtag.length === 2 || /^\d{3}$/.test(subtag));
  for (const key of [lower, script ? `${primary}-${script}` : '', region ? `${primary}-${region}` : '', primary!]) {
    const alias = ALIASES[key];
    if (alias && candidates.includes(alias as LoginLanguage)) return alias as LoginLanguage;
  }
  const sameLanguage = candidates.filter((candidate) => candidate.toLowerCase().split('-')[0] === (ALIASES[primary!] ?? primary));
  if (primary === 'pt' && region && region !== 'br' && sameLanguage.includes('pt-PT')) return 'pt-PT';
  return sameLanguage[0];
}

export interface LanguageRequest {
  /** `ui_locales` of the authorize request: space-separated tags, most preferred first. */
  uiLocales?: string | undefined;
  /** The browser's languages, most preferred first (Accept-Language by q-weight). */
  acceptLanguages: readonly string[];
  /** The tenant's `enabled_locales`. */
  enabledLocales: readonly string[];
}

/**
 * The page's language: the first of `ui_locales` the tenant has enabled, else the first of the
 * browser's languages it has enabled, else the tenant's default (its first enabled language).
 */
export function chooseLanguage(request: LanguageRequest): LoginLanguage {
  const enabled = enabledLanguages(request.enabledLocales);
  for (const tag of (request.uiLocales ?? '').split(/\s+/)) {
    const match = matchLanguage(tag, enabled);
    if (match) return match;
  }
  for (const tag of request.acceptLanguages) {
    const match = matchLanguage(tag, enabled);
    if (match) return match;
  }
  return enabled[0]!;
}

/** A language remembered by a transaction, while the tenant still has it enabled. */
export function rememberedLanguage(stored: string | null | undefined, enabledLocales: readonly string[]): LoginLanguage | undefined {
  return stored && isBundledLanguage(stored) && enabledLanguages(enabledLocales).includes(stored) ? stored : undefined;
}
