import { createHash } from 'node:crypto';
import type { LoginBranding } from '../../domain/branding/login-appearance';
import { ensureContrast, parseHexColor, textColorOn } from '../../domain/branding/contrast';
import type { BrandAssets } from './views';

/** The built-in colours, as login.css has them. */
const DEFAULT_PRIMARY = '#1d4ed8';
const CARD_BACKGROUND = '#ffffff';
const CARD_TEXT = '#1a1a1a';

/**
 * A URL the page may load: https, parseable, and made only of characters that cannot end a CSP
 * source list or an HTML/CSS string (no spaces, quotes, `;`, `,`, backslash or parentheses).
 */
export function safeHttpsUrl(value: string | undefined): string | undefined {
  if (!value || !/^https:\/\/[A-Za-z0-9\-._~:/?#[\]@!$&*+=%]+$/.test(value)) return undefined;
  try {
    return new URL(value).protocol === 'https:' ? value : undefined;
  } catch {
    return undefined;
  }
}

const FONT_FILE = /\.(woff2?|ttf|otf)(?:[?#]|$)/i;

/** What the tenant's brand adds to a page's CSP: the exact URLs of its images, font and font stylesheet. */
export interface BrandSources {
  img: string[];
  font: string[];
  style: string[];
}

export const NO_BRAND_SOURCES: BrandSources = { img: [], font: [], style: [] };

/** A short fingerprint of the branding: the brand stylesheet's URL changes whenever it does. */
function brandVersion(branding: LoginBranding): string {
  return createHash('sha256').update(JSON.stringify(branding)).digest('base64url').slice(0, 12);
}

/** What a page links of the brand, and the CSP sources that lets it load (https URLs only). */
export function brandAssets(branding: LoginBranding, appName: string | undefined): { assets: BrandAssets; sources: BrandSources } {
  const logoUrl = safeHttpsUrl(branding.logoUrl);
  const faviconUrl = safeHttpsUrl(branding.faviconUrl);
  const fontUrl = safeHttpsUrl(branding.fontUrl);
  const fontStylesheetUrl = fontUrl && !FONT_FILE.test(fontUrl) ? fontUrl : undefined;
  const styled = Boolean(parseHexColor(branding.colors?.primary ?? '') || parseHexColor(branding.colors?.pageBackground ?? '') || fontUrl);
  const assets: BrandAssets = {
    ...(logoUrl ? { logoUrl, appName } : {}),
    ...(faviconUrl ? { faviconUrl } : {}),
    ...(fontStylesheetUrl ? { fontStylesheetUrl } : {}),
    ...(styled ? { stylesheetUrl: `/authorize/brand.css?v=${brandVersion(branding)}` } : {}),
  };
  const sources: BrandSources = {
    img: [logoUrl, faviconUrl].filter((url): url is string => Boolean(url)),
    // A font file is loaded from its URL; a font stylesheet's files come from its origin.
    font: fontUrl ? [fontStylesheetUrl ? new URL(fontUrl).origin : fontUrl] : [],
    style: fontStylesheetUrl ? [fontStylesheetUrl] : [],
  };
  return { assets, sources };
}

/**
 * The brand stylesheet (/authorize/brand.css): the tenant's primary colour on buttons and links,
 * its page background, its font. Every text colour is chosen or adapted for WCAG AA: button text
 * black or white against the primary colour, links and focus rings the primary colour darkened
 * until 4.5:1 on the white card, text on the page background black or white.
 */
export function brandStylesheet(branding: LoginBranding): string {
  const rules: string[] = [];
  const fontUrl = safeHttpsUrl(branding.fontUrl);
  if (fontUrl && FONT_FILE.test(fontUrl)) {
    rules.push(`@font-face { font-family: "smsauth-brand"; src: url("${fontUrl}"); font-display: swap; }`);
    rules.push('html { font-family: "smsauth-brand", system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }');
  }
  const primary = parseHexColor(branding.colors?.primary ?? '') ? branding.colors!.primary!.toLowerCase() : undefined;
  if (primary) {
    const onPrimary = textColorOn(primary);
    const accent = ensureContrast(primary, CARD_BACKGROUND);
    rules.push(`button, a.button { background: ${primary}; color: ${onPrimary}; }`);
    rules.push(`button.secondary { background: ${CARD_BACKGROUND}; color: ${accent}; border-color: ${accent}; }`);
    rules.push(`button.link { background: none; color: ${accent}; }`);
    rules.push(`main a:not(.button) { color: ${accent}; }`);
    rules.push(`input:focus, select:focus, button:focus, a:focus { outline-color: ${ensureContrast(primary === DEFAULT_PRIMARY ? '#2563eb' : primary, CARD_BACKGROUND, 3)}; }`);
  }
  const background = parseHexColor(branding.colors?.pageBackground ?? '') ? branding.colors!.pageBackground!.toLowerCase() : undefined;
  if (background) {
    rules.push(`html { background: ${background}; color: ${textColorOn(background) === '#000000' ? CARD_TEXT : '#ffffff'}; }`);
    rules.push(`main { color: ${CARD_TEXT}; }`);
  }
  return `${rules.join('\n')}\n`;
}
