/** A phone number as logs show it: only its last four digits (`***0123`). */
export function maskPhoneNumber(phoneNumber: string): string {
  return `***${phoneNumber.slice(-4)}`;
}
