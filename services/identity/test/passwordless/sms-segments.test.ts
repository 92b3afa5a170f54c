import fc from 'fast-check';
import { SegmentedMessage } from 'sms-segments-calculator';
import { countSmsSegments } from '../../src/domain/passwordless/sms-segments';

/** What Twilio's calculator says of `body`, in countSmsSegments' terms. */
function calculator(body: string) {
  const message = new SegmentedMessage(body, 'auto');
  const segments = message.segmentsCount;
  return { encoding: message.encodingName, characters: message.messageSize / (message.encodingName === 'GSM-7' ? 7 : 16), segments, fits_one_segment: segments === 1 };
}

// Printable ASCII with every GSM-7 extension character and the backtick, line breaks, Latin
// letters of the basic alphabet (é, ñ) and outside it (ç, ő), Greek, Cyrillic and an emoji.
const CHARACTERS = [...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)), '\n', '\r', '\t', 'é', 'ñ', 'ç', 'ő', '€', 'Δ', 'Ж', '😀'];

describe('countSmsSegments', () => {
  it('says what the calculator says of any text, plain ASCII of one segment (its quick path) or not', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.array(fc.constantFrom(...CHARACTERS.slice(0, 96)), { maxLength: 200 }).map((c) => c.join('')),
          fc.array(fc.constantFrom(...CHARACTERS), { maxLength: 200 }).map((c) => c.join('')),
        ),
        (body) => {
          expect(countSmsSegments(body)).toEqual(calculator(body));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it.each([
    ['a code message', 'Your code is 123456', { encoding: 'GSM-7', characters: 19, segments: 1, fits_one_segment: true }],
    ['160 basic characters', 'a'.repeat(160), { encoding: 'GSM-7', characters: 160, segments: 1, fits_one_segment: true }],
    ['161 basic characters', 'a'.repeat(161), { encoding: 'GSM-7', characters: 161, segments: 2, fits_one_segment: false }],
    ['an extension character (two septets)', `${'a'.repeat(159)}[`, { encoding: 'GSM-7', characters: 161, segments: 2, fits_one_segment: false }],
    ['a backtick (not GSM-7)', 'code `1234`', { encoding: 'UCS-2', characters: 11, segments: 1, fits_one_segment: true }],
  ])('%s', (_name, body, expected) => {
    expect(countSmsSegments(body)).toEqual(expected);
    expect(calculator(body)).toEqual(expected);
  });
});
