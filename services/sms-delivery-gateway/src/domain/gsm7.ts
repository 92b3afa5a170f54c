/**
 * The GSM 03.38 default alphabet and its extension table (each extension character is sent
 * as escape + character). A text made only of these travels as GSM-7; anything else (Cyrillic,
 * most accents, emoji) must be sent as UCS-2, which providers such as Vonage need to be told.
 */
const GSM7_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const GSM7_EXTENSION = '\f^{}\\[~]|€';
const GSM7 = new Set([...GSM7_BASIC, ...GSM7_EXTENSION]);

/** Whether every character of `text` is in the GSM-7 alphabet (basic or extension table). */
export function isGsm7(text: string): boolean {
  for (const character of text) if (!GSM7.has(character)) return false;
  return true;
}
