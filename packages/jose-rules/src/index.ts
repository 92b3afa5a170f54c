/**
 * Structural rules for a compact JWS (RFC 7515) that jsonwebtoken does not enforce, shared by
 * both verifiers: the airport API's gateway (RS256 access tokens) and the SMS delivery
 * gateway (HS256 delivery tokens). Each is about unauthenticated bytes, so breaking one only
 * ever leads to a rejection. Verification logic, not a wire format: it lives beside neither
 * service's code nor in @smsauth/contracts, so both verifiers share one copy.
 */

const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** The 6-bit value of a base64url character (the caller has checked the alphabet). */
function sextet(code: number): number {
  if (code >= 0x61) return code - 0x61 + 26; // a-z
  if (code >= 0x41) return code === 0x5f ? 63 : code - 0x41; // _ or A-Z
  if (code >= 0x30) return code - 0x30 + 52; // 0-9
  return 62; // -
}

/**
 * Canonical spelling of a segment already known to use the base64url alphabet, decided from
 * its length and last character: no impossible length (4n+1), and the bits a decoder drops
 * after the last whole byte are zero. Same answer as decoding and re-encoding, without either.
 */
function isCanonicalSpelling(segment: string): boolean {
  const tail = segment.length % 4;
  if (tail === 0) return true;
  if (tail === 1) return false;
  const droppedBits = tail === 2 ? 0b1111 : 0b11;
  return (sextet(segment.charCodeAt(segment.length - 1)) & droppedBits) === 0;
}

/**
 * base64url as RFC 7515 §2 writes it: url-safe alphabet, no `=` padding, no whitespace, and
 * canonical (pad bits zero, no impossible length), so one value has exactly one spelling
 * (RFC 4648 §3.5 lets a decoder refuse the others; Node's decoder would quietly accept them).
 */
export function isCanonicalBase64url(segment: string): boolean {
  return BASE64URL.test(segment) && isCanonicalSpelling(segment);
}

/** Index of the quote closing the JSON string that opens at `start` (valid JSON assumed). */
function closingQuote(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  for (;;) {
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === 0x5c) backslashes += 1;
    if (backslashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
}

/**
 * The first member name that occurs twice in one object of a JSON text (at any depth,
 * compared after unescaping, so `"alg"` and `"\u0061lg"` are the same name); undefined when
 * there is none. `text` must already be valid JSON.
 */
export function duplicateMemberName(text: string): string | undefined {
  // Names of each enclosing object (undefined for an array); `names` is the innermost one.
  const outer: (Set<string> | undefined)[] = [];
  let names: Set<string> | undefined;
  let expectName = false;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code === 0x22) {
      const end = closingQuote(text, i);
      if (names && expectName) {
        const raw = text.slice(i + 1, end);
        const name = raw.includes('\\') ? (JSON.parse(text.slice(i, end + 1)) as string) : raw;
        if (names.has(name)) return name;
        names.add(name);
        expectName = false;
      }
      i = end;
    } else if (code === 0x7b) {
      outer.push(names);
      names = new Set();
      expectName = true;
    } else if (code === 0x5b) {
      outer.push(names);
      names = undefined;
    } else if (code === 0x7d || code === 0x5d) {
      names = outer.pop();
      expectName = false;
    } else if (code === 0x2c && names) {
      expectName = true;
    }
  }
  return undefined;
}

export type SegmentProblem = 'encoding' | 'json' | 'duplicate';

/** A header or claims segment as a JSON object, or why it is not one. */
export function decodeJsonObjectSegment(segment: string): { ok: true; value: Record<string, unknown> } | { ok: false; problem: SegmentProblem } {
  if (!isCanonicalBase64url(segment)) return { ok: false, problem: 'encoding' };
  const text = Buffer.from(segment, 'base64url').toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, problem: 'json' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, problem: 'json' };
  // RFC 7515 §4 / RFC 7519 §4: parsers disagree which duplicate wins, so none is picked.
  if (duplicateMemberName(text) !== undefined) return { ok: false, problem: 'duplicate' };
  return { ok: true, value: value as Record<string, unknown> };
}

/**
 * The largest time an ECMAScript Date can hold, in seconds (8.64e15 ms). A NumericDate
 * beyond it (1e20, 2^53, 1e308) names no instant and is refused as malformed; anything up to
 * it (year 275760) is a real time and is judged like any other.
 */
export const MAX_NUMERIC_DATE = 8.64e12;

/** RFC 7519 §2 NumericDate: a finite number of seconds, here between 1970 and MAX_NUMERIC_DATE. */
export function isNumericDate(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= MAX_NUMERIC_DATE;
}

/**
 * `crit` (RFC 7515 §4.1.11): extensions the recipient must understand or reject the token.
 * This verifier implements none, so any `crit` member (a list, an empty list, or not a
 * list at all) makes the token unacceptable.
 */
export function hasCriticalExtensions(header: Record<string, unknown>): boolean {
  return Object.hasOwn(header, 'crit');
}

/** `typ` as a lower-case media type without `application/` (RFC 7515 §4.1.9); undefined when absent, null when not a string. */
export function jwtType(typ: unknown): string | null | undefined {
  if (typ === undefined) return undefined;
  return typeof typ === 'string' ? typ.toLowerCase().replace(/^application\//, '') : null;
}
