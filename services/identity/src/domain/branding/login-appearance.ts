/**
 * What the hosted pages (login, logout, error pages) show of the tenant: its brand, the languages
 * they may speak, and the texts the tenant wrote over the bundled translations. The pages read it
 * through this port on each render; the management API (`/api/v2/branding`,
 * `/api/v2/prompts/{prompt}/custom-text/{language}`, `/api/v2/tenants/settings`) writes it.
 */

/** Auth0's branding settings, as `/api/v2/branding` names them; absent = the built-in look. */
export interface LoginBranding {
  /** https only; shown above the page title. */
  logoUrl?: string;
  /** https only; the pages' `<link rel="icon">`. */
  faviconUrl?: string;
  /** https only; a font stylesheet or file URL, used before the system font stack. */
  fontUrl?: string;
  colors?: {
    /** `#rrggbb`: buttons and links. */
    primary?: string;
    /** `#rrggbb`: behind the card. */
    pageBackground?: string;
  };
}

export interface LoginAppearance {
  branding: LoginBranding;
  /**
   * Auth0's `enabled_locales`: the languages the pages may speak, the first being the tenant's
   * default. Empty: every bundled language is enabled and English is the default.
   */
  enabledLocales: readonly string[];
}

export interface LoginAppearanceSource {
  appearance(): Promise<LoginAppearance>;
  /**
   * The tenant's own texts for one language, keyed by the bundled translation files' keys
   * (Auth0's prompt/screen keys are mapped to ours when stored); they replace the bundled text.
   */
  customText(language: string): Promise<Readonly<Record<string, string>>>;
}

/** A tenant that has set nothing: built-in look, every language, no custom text. */
export const DEFAULT_LOGIN_APPEARANCE: LoginAppearanceSource = {
  appearance: async () => ({ branding: {}, enabledLocales: [] }),
  customText: async () => ({}),
};
