/**
 * How a message travels as SMS: GSM-7 when every character is in the GSM 03.38 alphabet
 * (extension characters such as `€ [ ] { } ~ ^ \ |` take two septets), else UCS-2 (UTF-16
 * code units, so an emoji takes two). One segment holds 160 septets or 70 code units; a
 * longer message is split into parts of 153 or 67 (the rest is the concatenation header),
 * and every part is billed. Counting is Twilio's sms-segments-calculator.
 */
import { SegmentedMessage } from 'sms-segments-calculator';

export interface SegmentCount {
  encoding: 'GSM-7' | 'UCS-2';
  /** Septets (GSM-7) or UTF-16 code units (UCS-2): what the 160 / 70 limits count. */
  characters: number;
  segments: number;
  fits_one_segment: boolean;
}

const BITS_PER_CHARACTER = { 'GSM-7': 7, 'UCS-2': 16 } as const;

/**
 * Printable ASCII in GSM 03.38's basic alphabet (one septet each; not the extension characters
 * `[ \ ] ^ { | } ~`, nor the backtick, which GSM-7 lacks), and the line feed.
 */
const GSM7_BASIC_ASCII = /^[A-Za-z0-9 \n!"#$%&'()*+,\-./:;<=>?@_]*$/;

export function countSmsSegments(body: string): SegmentCount {
  // Most messages (every default code message in Latin script) are short plain ASCII: one
  // segment of GSM-7, one septet a character; the calculator's grapheme walk is not needed.
  if (body.length <= 160 && GSM7_BASIC_ASCII.test(body)) return { encoding: 'GSM-7', characters: body.length, segments: 1, fits_one_segment: true };
  const message = new SegmentedMessage(body, 'auto');
  const encoding = message.encodingName;
  const segments = message.segmentsCount;
  return { encoding, characters: message.messageSize / BITS_PER_CHARACTER[encoding], segments, fits_one_segment: segments === 1 };
}
