import { PhoneNumberSchema } from '@smsauth/contracts';

/** An alphanumeric sender id as carriers accept one: 1-11 letters, digits and spaces, at least one letter. */
export const ALPHANUMERIC_SENDER_ID = /^(?=.*[A-Za-z])[A-Za-z0-9 ]{1,11}$/;

/** A provider's configured sender (`TWILIO_FROM`, `VONAGE_FROM`...): a valid number (E.164) or an alphanumeric sender id. */
export function isNumberOrSenderId(value: string): boolean {
  return PhoneNumberSchema.safeParse(value).success || ALPHANUMERIC_SENDER_ID.test(value);
}
