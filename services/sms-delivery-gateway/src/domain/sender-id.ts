import { PhoneNumberSchema } from '@smsauth/contracts';

/** An alphanumeric sender id as carriers accept one: 1-11 letters, digits and spaces, at least one letter. */
export const ALPHANUMERIC_SENDER_ID = /^(?=.*[A-Za-z])[A-Za-z0-9 ]{1,11}$/;

/** A provider's configured sender (`TWILIO_FROM`, `VONAGE_FROM`...): a valid number (E.164) or an alphanumeric sender id. */
export function isNumberOrSenderId(value: string): boolean {
  return PhoneNumberSchema.safeParse(value).success || ALPHANUMERIC_SENDER_ID.test(value);
}

/** A short code: 3 to 8 digits. */
export const SHORT_CODE = /^[0-9]{3,8}$/;

/** A sender of the providers that also send from short codes (Plivo, Sinch, Infobip): a number, an alphanumeric sender id or a short code. */
export function isNumberSenderIdOrShortCode(value: string): boolean {
  return isNumberOrSenderId(value) || SHORT_CODE.test(value);
}
