import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_LOGIN_LANGUAGE, LOGIN_LANGUAGES, RIGHT_TO_LEFT_LANGUAGES, type LoginLanguage } from '@smsauth/contracts';
import { IntlMessageFormat } from 'intl-messageformat';
import { LOCALES_DIRECTORY } from '../../../locales';

/**
 * The translations of the hosted pages: one JSON file per language in `locales/login/<tag>.json`
 * (next to src/ and dist/, and shipped with the package: its `files`), keyed `prompt.screen.key`
 * with Auth0's Universal Login names where Auth0 has the text. Values are ICU MessageFormat.
 */
export const LOGIN_LOCALES_DIRECTORY = join(LOCALES_DIRECTORY, 'login');

export type MessageKey = string;
/** Plain values (escaped when rendered); numbers feed plurals. */
export type MessageArgs = Readonly<Record<string, string | number>>;

const bundles = new Map<LoginLanguage, Readonly<Record<string, string>>>();

/**
 * The bundled texts of one language (read once, then kept). A file missing from a build is
 * English rather than a broken page; the translation check (test/i18n) keeps every file whole.
 */
export function bundledMessages(language: LoginLanguage): Readonly<Record<string, string>> {
  let bundle = bundles.get(language);
  if (!bundle) {
    try {
      bundle = JSON.parse(readFileSync(join(LOGIN_LOCALES_DIRECTORY, `${language}.json`), 'utf8')) as Record<string, string>;
    } catch (err) {
      if (language === DEFAULT_LOGIN_LANGUAGE || (err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      bundle = {};
    }
    bundles.set(language, bundle);
  }
  return bundle;
}

const compiled = new Map<string, IntlMessageFormat | null>();

/** A message compiled for its language; null when it does not parse (a tenant's custom text can be wrong). */
function compile(language: string, message: string): IntlMessageFormat | null {
  const cacheKey = `${language}\u0000${message}`;
  if (!compiled.has(cacheKey)) {
    let format: IntlMessageFormat | null;
    try {
      // Tags are text like any other (a tenant's `<b>` is shown, escaped, never markup).
      format = new IntlMessageFormat(message, language, undefined, { ignoreTag: true });
    } catch {
      format = null;
    }
    // Custom texts come and go: keep the cache bounded.
    if (compiled.size > 5000) compiled.clear();
    compiled.set(cacheKey, format);
  }
  return compiled.get(cacheKey)!;
}

/**
 * Text for HTML content and double-quoted attributes: `&`, `<`, `>` and `"` escaped; an
 * apostrophe ("Don't") is safe there and stays as written.
 */
function escapeText(value: string): string {
  return value.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

/** Marks an argument's slot so markup can be put in after the text around it was escaped. */
const slot = (index: number) => `\u0001${index}\u0002`;

/**
 * The texts of one page render, in one language: the tenant's custom text over the bundled
 * language over English. `text` returns plain text; `html` returns escaped HTML where `markup`
 * arguments (built by the caller from escaped values, e.g. `<bdi>`) are put in unescaped.
 */
export class Translator {
  readonly dir: 'ltr' | 'rtl';

  constructor(
    readonly language: LoginLanguage,
    private readonly customText: Readonly<Record<string, string>> = {},
  ) {
    this.dir = RIGHT_TO_LEFT_LANGUAGES.includes(language) ? 'rtl' : 'ltr';
  }

  private format(key: MessageKey, args: Record<string, string | number>): string {
    const candidates = [this.customText[key], bundledMessages(this.language)[key], bundledMessages(DEFAULT_LOGIN_LANGUAGE)[key]];
    for (const message of candidates) {
      if (typeof message !== 'string') continue;
      const format = compile(this.language, message);
      if (!format) continue;
      try {
        return String(format.format(args));
      } catch {
        // A custom text naming an argument the page does not have: the next candidate.
      }
    }
    return key;
  }

  /** A country's name in this language (its code when the runtime has none). */
  regionName(code: string): string {
    try {
      return new Intl.DisplayNames([this.language, 'en'], { type: 'region', fallback: 'code' }).of(code) ?? code;
    } catch {
      return code;
    }
  }

  text(key: MessageKey, args: MessageArgs = {}): string {
    return this.format(key, { ...args });
  }

  html(key: MessageKey, args: MessageArgs = {}, markup: Readonly<Record<string, string>> = {}): string {
    const names = Object.keys(markup);
    const slotted = Object.fromEntries(names.map((name, index) => [name, slot(index)]));
    let out = escapeText(this.format(key, { ...args, ...slotted }));
    names.forEach((name, index) => {
      out = out.split(slot(index)).join(markup[name]!);
    });
    return out;
  }
}

export function isBundledLanguage(tag: string): tag is LoginLanguage {
  return (LOGIN_LANGUAGES as readonly string[]).includes(tag);
}

/** A language's own name for itself ("Deutsch", "日本語"), for the language switcher. */
export function languageName(language: LoginLanguage): string {
  const name = new Intl.DisplayNames([language], { type: 'language' }).of(language) ?? language;
  return name.charAt(0).toLocaleUpperCase(language) + name.slice(1);
}
