import {
  isSupportedCountry,
  parsePhoneNumberWithError,
  ParseError,
  validatePhoneNumberLength,
  type CountryCode,
  type NumberType,
} from 'libphonenumber-js/max';

/*
 * Every phone number that enters identity goes through canonicalPhoneNumber: parsed with
 * libphonenumber's full ("max") metadata, required to be *valid* for its country (not merely
 * of a possible length), and kept from then on in E.164 only, so one person is one number.
 */

/** libphonenumber's number types (MOBILE, FIXED_LINE_OR_MOBILE, PREMIUM_RATE, VOIP, ...). */
export type PhoneNumberType = NonNullable<NumberType>;

export interface CanonicalPhoneNumber {
  /** `+` and digits: the only form stored and compared. */
  e164: string;
  /** ISO 3166-1 alpha-2, undefined for non-geographic numbers (+800, +882...). */
  country: CountryCode | undefined;
  /** Digits after the `+` that name the country (`1`, `44`, `598`). */
  callingCode: string;
  /** undefined when the metadata cannot tell. */
  type: PhoneNumberType | undefined;
}

export type PhoneNumberProblem = 'not_a_number' | 'invalid_country' | 'too_short' | 'too_long' | 'not_valid_for_country';

export type CanonicalPhoneNumberResult =
  | { ok: true; number: CanonicalPhoneNumber }
  | { ok: false; problem: PhoneNumberProblem; description: string };

const PARSE_PROBLEMS: Record<string, PhoneNumberProblem> = {
  NOT_A_NUMBER: 'not_a_number',
  INVALID_COUNTRY: 'invalid_country',
  TOO_SHORT: 'too_short',
  TOO_LONG: 'too_long',
  INVALID_LENGTH: 'not_valid_for_country',
};

/** `country` names the country the number was read for: its ISO code, or `+<calling code>` when none applies. */
function describe(problem: PhoneNumberProblem, country: string | undefined): string {
  switch (problem) {
    case 'not_a_number':
      return 'phone_number is not a phone number';
    case 'invalid_country':
      return country
        ? 'phone_number has an unknown country code'
        : 'phone_number has an unknown country code (use +<country code><number>, or a national number with a country)';
    case 'too_short':
      return 'phone_number is too short';
    case 'too_long':
      return 'phone_number is too long';
    case 'not_valid_for_country':
      return country ? `phone_number is not a valid number for ${country}` : 'phone_number is not a valid number';
  }
}

/** True when `code` names a country libphonenumber has metadata for (ISO 3166-1 alpha-2, upper case). */
export function isKnownCountry(code: string): code is CountryCode {
  return /^[A-Z]{2}$/.test(code) && isSupportedCountry(code);
}

/** How many inputs' answers canonicalPhoneNumber keeps (the oldest goes first): a few seconds of logins at a busy moment. */
const RECENT_ANSWERS_MAX = 4096;
const RECENT_INPUT_MAX_LENGTH = 40;
/** Frozen: one answer object is handed to every caller that asks about the same input. */
const recentAnswers = new Map<string, CanonicalPhoneNumberResult>();

/**
 * Parses `input` (E.164, or a national format when `defaultCountry` is given) into its
 * canonical form, or says what is wrong with it in words a user can act on.
 */
export function canonicalPhoneNumber(input: string, defaultCountry?: string): CanonicalPhoneNumberResult {
  // A login reads its number five times or so (start, its record, the exchange, its record, the
  // fraud guard's count); libphonenumber's "max" parse is the costly part, so recent answers are kept.
  // Only inputs of a phone number's size: arbitrary text could otherwise fill the memory.
  if (input.length > RECENT_INPUT_MAX_LENGTH) return parseCanonical(input, defaultCountry);
  const key = defaultCountry === undefined ? input : `${defaultCountry}\0${input}`;
  const known = recentAnswers.get(key);
  if (known) return known;
  const answer = parseCanonical(input, defaultCountry);
  if (recentAnswers.size >= RECENT_ANSWERS_MAX) recentAnswers.delete(recentAnswers.keys().next().value as string);
  recentAnswers.set(key, answer);
  return answer;
}

function parseCanonical(input: string, defaultCountry?: string): CanonicalPhoneNumberResult {
  const fallback = defaultCountry && isKnownCountry(defaultCountry) ? defaultCountry : undefined;
  let parsed;
  try {
    parsed = parsePhoneNumberWithError(input, fallback ? { defaultCountry: fallback } : undefined);
  } catch (err) {
    if (!(err instanceof ParseError)) throw err;
    const problem = PARSE_PROBLEMS[err.message] ?? 'not_a_number';
    return Object.freeze({ ok: false, problem, description: describe(problem, fallback) });
  }
  if (!parsed.isValid()) {
    const length = validatePhoneNumberLength(input, fallback ? { defaultCountry: fallback } : undefined);
    const problem: PhoneNumberProblem = length ? (PARSE_PROBLEMS[length] ?? 'not_valid_for_country') : 'not_valid_for_country';
    return Object.freeze({ ok: false, problem, description: describe(problem, parsed.country ?? fallback ?? `+${parsed.countryCallingCode}`) });
  }
  return Object.freeze({
    ok: true,
    number: Object.freeze({ e164: parsed.number, country: parsed.country, callingCode: parsed.countryCallingCode, type: parsed.getType() }),
  });
}

/** The E.164 form when `input` is a valid number, else undefined (searches and identifiers that may hold other text). */
export function canonicalOrUndefined(input: string, defaultCountry?: string): string | undefined {
  const result = canonicalPhoneNumber(input, defaultCountry);
  return result.ok ? result.number.e164 : undefined;
}

/** What is wrong with a refused number, without the field name ("is too short"), for answers that name their own field. */
export function problemText(refusal: { description: string }): string {
  return refusal.description.replace(/^phone_number /, '');
}
