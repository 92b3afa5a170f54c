import { getCountries, getCountryCallingCode } from 'libphonenumber-js/max';
import { isKnownCountry } from './canonical-number';

/** A country a number can be typed for on the hosted login page. */
export interface PhoneCountry {
  /** ISO 3166-1 alpha-2. */
  code: string;
  /** Name in the page's language (Intl.DisplayNames), the code when the runtime has no name for it. */
  name: string;
  callingCode: string;
}

const countriesByLanguage = new Map<string, readonly PhoneCountry[]>();

/** Every country libphonenumber has metadata for, named and sorted in `language` (English by default); built once per language. */
export function phoneCountries(language = 'en'): readonly PhoneCountry[] {
  let countries = countriesByLanguage.get(language);
  if (!countries) {
    const names = new Intl.DisplayNames([language, 'en'], { type: 'region', fallback: 'code' });
    const collator = new Intl.Collator([language, 'en']);
    countries = getCountries()
      .map((code) => ({ code, name: names.of(code) ?? code, callingCode: getCountryCallingCode(code) }))
      .sort((a, b) => collator.compare(a.name, b.name));
    countriesByLanguage.set(language, countries);
  }
  return countries;
}

/** The browser's languages, most preferred first (q, then order); `*` and q=0 left out. */
export function acceptedLanguages(header: string | undefined): string[] {
  return header ? preferredLanguages(header) : [];
}

/** Accept-Language entries by preference (q, then order), as language tags. */
function preferredLanguages(header: string): string[] {
  return header
    .split(',')
    .map((entry, index) => {
      const [tag = '', ...params] = entry.trim().split(';');
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
      return { tag: tag.trim(), q: q === undefined ? 1 : Number(q), index };
    })
    .filter((e) => e.tag && e.tag !== '*' && e.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index)
    .map((e) => e.tag);
}

/** The region of the most preferred Accept-Language entry that names one (`en-GB` -> GB); undefined when none does. */
export function countryFromAcceptLanguage(header: string | undefined): string | undefined {
  if (!header) return undefined;
  for (const tag of preferredLanguages(header)) {
    let region: string | undefined;
    try {
      region = new Intl.Locale(tag).region;
    } catch {
      continue; // not a well-formed language tag
    }
    if (region && isKnownCountry(region)) return region;
  }
  return undefined;
}

/**
 * The country the hosted login page chooses before the user does: the connection's
 * `default_country`, else the region of the browser's preferred language, else none
 * (the number must then start with + and its country code).
 */
export function loginPageCountry(connectionDefault: string | undefined, acceptLanguage: string | undefined): string | undefined {
  return connectionDefault ?? countryFromAcceptLanguage(acceptLanguage);
}
