/** `+14155550123` -> `***0123`: enough to tell messages apart in logs, not enough to identify a user. */
export function maskPhoneNumber(phoneNumber: string): string {
  return `***${phoneNumber.replace(/\D/g, '').slice(-4)}`;
}

/** Masks every phone-number-like run of digits in a text (provider errors quote the number). */
export function maskPhoneNumbers(text: string): string {
  return text.replace(/\+?\d[\d\s().-]{5,}\d/g, (match) => maskPhoneNumber(match));
}
