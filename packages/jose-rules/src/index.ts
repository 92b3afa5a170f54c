/**
 * Structural rules for a compact JWS (RFC 7515) that jsonwebtoken does not enforce, shared by
 * both verifiers: the airport API's gateway (RS256 access tokens) and the SMS delivery
 * gateway (HS256 delivery tokens). Each is about unauthenticated bytes, so breaking one only
 * ever leads to a rejection. Verification logic, not a wire format: it lives beside neither
 * service's code nor in @smsauth/contracts, so both verifiers share one copy.
 */

const BASE64URL = /^[A-Za-z0-9_-]*$/;

/**
 * base64url as RFC 7515 §2 writes it: url-safe alphabet, no `=` padding, no whitespace, and
 * canonical (pad bits zero, no impossible length), so one value has exactly one spelling
 * (RFC 4648 §3.5 lets a decoder refuse the others; Node's decoder would quietly accept them).
 */
export function isCanonicalBase64url(segment: string): boolean {
  return BASE64URL.test(segment) && Buffer.from(segment, 'base64url').toString('base64url') === segment;
}

/**
 * The first member name that occurs twice in one object of a JSON text (at any depth,
 * compared after unescaping, so `"alg"` and `"\u0061lg"` are the same name); undefined when
 * there is none. `text` must already be valid JSON.
 */
export function duplicateMemberName(text: string): string | undefined {
  const stack: { names: Set<string> | undefined; expectName: boolean }[] = [];
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i];
    const top = stack.at(-1);
    if (char === '{') stack.push({ names: new Set(), expectName: true });
    else if (char === '[') stack.push({ names: undefined, expectName: false });
    else if (char === '}' || char === ']') stack.pop();
    else if (char === ',' && top?.names) top.expectName = true;
    else if (char === '"') {
      let end = i + 1;
      while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      if (top?.names && top.expectName) {
        const name = JSON.parse(text.slice(i, end + 1)) as string;
        if (top.names.has(name)) return name;
        top.names.add(name);
        top.expectName = false;
      }
      i = end;
    }
  }
  return undefined;
}

export type SegmentProblem = 'encoding' | 'json' | 'duplicate';

/** A header or claims segment as a JSON object, or why it is not one. */
export function decodeJsonObjectSegment(segment: string): { ok: true; value: Record<string, unknown> } | { ok: false; problem: SegmentProblem } {
  if (!BASE64URL.test(segment)) return { ok: false, problem: 'encoding' };
  // One decode serves both the canonical-spelling check and the JSON text.
  const bytes = Buffer.from(segment, 'base64url');
  if (bytes.toString('base64url') !== segment) return { ok: false, problem: 'encoding' };
  const text = bytes.toString('utf8');
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
