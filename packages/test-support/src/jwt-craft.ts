/**
 * Hand-crafting JWTs for attack corpora: any header, any payload (also as raw JSON text, so
 * duplicate member names survive), any signature, and re-encodings of a token's segments.
 * Only node:crypto; library-signed tokens stay with each suite's own helpers.
 */
import { createHmac, sign as cryptoSign, type KeyObject } from 'node:crypto';

/** base64url without padding; strings are raw text (UTF-8), objects are JSON-encoded first. */
export const b64url = (value: string | Buffer | object): string =>
  Buffer.from(typeof value === 'string' || Buffer.isBuffer(value) ? value : JSON.stringify(value)).toString('base64url');

export type Signer = (signingInput: string) => Buffer | string;

/**
 * Hand-built token: `header` and `payload` as objects or as raw JSON text (kept byte for
 * byte), signature from `signer` over `header.payload` (empty without a signer).
 */
export function craftToken(header: Record<string, unknown> | string, payload: Record<string, unknown> | string, signer?: Signer): string {
  const signingInput = `${b64url(header)}.${b64url(payload)}`;
  const signature = signer ? signer(signingInput) : '';
  return `${signingInput}.${typeof signature === 'string' ? signature : signature.toString('base64url')}`;
}

export const hmacSigner =
  (secret: string | Buffer): Signer =>
  (input) =>
    createHmac('sha256', secret).update(input).digest();

/** RS256 (PKCS#1 v1.5 with SHA-256) for an RSA private key. */
export const rsaSigner =
  (privateKey: KeyObject): Signer =>
  (input) =>
    cryptoSign('sha256', Buffer.from(input), privateKey);

/** Replaces the payload segment, keeping header and signature: a tampered token. */
export function withPayload(token: string, payload: Record<string, unknown> | string): string {
  const [header, , signature] = token.split('.');
  return `${header}.${b64url(payload)}.${signature}`;
}

/** The token with `change` applied to each of its dot-separated segments. */
export function mapSegments(token: string, change: (segment: string, index: number) => string): string {
  return token
    .split('.')
    .map((segment, index) => change(segment, index))
    .join('.');
}

/** Every segment with the `=` padding base64url omits (RFC 7515 §2): same bytes, other text. */
export const withBase64Padding = (token: string): string =>
  mapSegments(token, (segment) => segment + '='.repeat((4 - (segment.length % 4)) % 4));

/** Every segment in the standard base64 alphabet (`+` and `/` instead of `-` and `_`), unpadded. */
export const withStandardBase64 = (token: string): string =>
  mapSegments(token, (segment) => Buffer.from(segment, 'base64url').toString('base64').replace(/=+$/, ''));

const BASE64URL_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * The segment with a pad bit of its last character set: a lenient decoder yields the same
 * bytes, so the text differs while the decoded value does not (RFC 4648 §3.5). Throws when
 * the segment's length leaves no pad bits (a multiple of 4 characters).
 */
export function withNonCanonicalTail(segment: string): string {
  if (segment.length % 4 === 0 || segment.length % 4 === 1) throw new Error('this segment has no pad bits to set');
  const last = BASE64URL_ALPHABET.indexOf(segment.at(-1) ?? '');
  return segment.slice(0, -1) + BASE64URL_ALPHABET[last ^ 1];
}
