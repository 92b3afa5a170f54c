import { z } from 'zod';

/** E.164: a leading `+` and at most 15 digits, no spaces or separators. */
export const PHONE_NUMBER_PATTERN = /^\+[0-9]{1,15}$/;

/** The one phone-number schema every service uses (recipient, username, options.from...). */
export const PhoneNumberSchema = z
  .string()
  .regex(PHONE_NUMBER_PATTERN, { message: 'must be an E.164 phone number like +14155550123' });
export type PhoneNumber = z.infer<typeof PhoneNumberSchema>;

/**
 * A phone number as a person or an API caller writes it (`+1 (415) 555-2671`): the identity
 * service reads it with libphonenumber, requires it to be valid and keeps only its E.164 form.
 * The length bound only keeps arbitrary text out.
 */
export const PhoneNumberInputSchema = z
  .string()
  .trim()
  .min(1, { message: 'is required' })
  .max(64, { message: 'must be at most 64 characters' })
  .describe(
    'A phone number: E.164 (`+` and the country code) or, with the connection\'s default_country, national. It must be a valid number (libphonenumber) of a country and type the connection\'s SMS policy enables; it is kept in E.164.',
  );

/** ISO 3166-1 alpha-2, upper case (`GB`); the identity service also checks it names a country it knows numbers of. */
export const CountryCodeSchema = z.string().regex(/^[A-Z]{2}$/, { message: 'must be an ISO 3166-1 alpha-2 country code in upper case, like GB' });
