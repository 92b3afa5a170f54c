import { z } from 'zod';

/** E.164: a leading `+` and at most 15 digits, no spaces or separators. */
export const PHONE_NUMBER_PATTERN = /^\+[0-9]{1,15}$/;

/** The one phone-number schema every service uses (recipient, username, options.from...). */
export const PhoneNumberSchema = z
  .string()
  .regex(PHONE_NUMBER_PATTERN, { message: 'must be an E.164 phone number like +14155550123' });
export type PhoneNumber = z.infer<typeof PhoneNumberSchema>;
