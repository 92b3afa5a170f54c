import type { Request } from 'express';
import type { LoginLanguage } from '@smsauth/contracts';
import { DEFAULT_LOGIN_APPEARANCE, type LoginAppearanceSource } from '../../domain/branding/login-appearance';
import { acceptedLanguages } from '../../domain/phone/countries';
import { brandAssets, type BrandSources } from './brand';
import { chooseLanguage, enabledLanguages, rememberedLanguage } from './i18n/language';
import { Translator } from './i18n/messages';
import type { FormContext, PageChrome } from './views';

export interface ChromeRequest {
  /** The language the login's transaction remembers, if any. */
  remembered?: string | null | undefined;
  /** `ui_locales` of the authorize request. */
  uiLocales?: string | undefined;
  /** The application, for the logo's alternative text. */
  appName?: string | undefined;
  /** A page of a transaction: the language switcher posts to it and comes back to `returnTo`. */
  switcher?: { form: FormContext; returnTo: 'phone' | 'code' | 'offer' };
}

export interface RenderedChrome {
  chrome: PageChrome;
  /** The brand's URLs, for the page's CSP. */
  sources: BrandSources;
}

/** The pages' view of the tenant (the store-backed source when app.ts wires one). */
export function appearanceOf(source: LoginAppearanceSource | undefined): LoginAppearanceSource {
  return source ?? DEFAULT_LOGIN_APPEARANCE;
}

/** The language of a request that has no transaction (yet): `ui_locales`, then the browser, then the tenant's default. */
export async function requestLanguageChoice(source: LoginAppearanceSource, req: Request, uiLocales?: string): Promise<LoginLanguage> {
  const { enabledLocales } = await source.appearance();
  return chooseLanguage({ uiLocales, acceptLanguages: acceptedLanguages(req.headers['accept-language']), enabledLocales });
}

/**
 * What a hosted page needs besides its own content: the language (the transaction's, else
 * chosen from `ui_locales`, the browser and the tenant's languages), the tenant's custom text in
 * it, its brand and the language switcher.
 */
export async function pageChrome(source: LoginAppearanceSource, req: Request, request: ChromeRequest = {}): Promise<RenderedChrome> {
  const appearance = await source.appearance();
  const language =
    rememberedLanguage(request.remembered, appearance.enabledLocales) ??
    chooseLanguage({ uiLocales: request.uiLocales, acceptLanguages: acceptedLanguages(req.headers['accept-language']), enabledLocales: appearance.enabledLocales });
  const t = new Translator(language, await source.customText(language));
  const { assets, sources } = brandAssets(appearance.branding, request.appName);
  const languages = enabledLanguages(appearance.enabledLocales);
  const chrome: PageChrome = {
    t,
    brand: assets,
    ...(request.switcher && languages.length > 1 ? { switcher: { ...request.switcher, languages } } : {}),
  };
  return { chrome, sources };
}
