/** RFC 7518 §3.2: an HS256 key must be at least as long as the hash output, 256 bits. */
export const MIN_HS256_SECRET_BYTES = 32;

/** base64url (or standard base64) alphabet, optional padding. */
const BASE64_PATTERN = /^[A-Za-z0-9+/_-]+={0,2}$/;

export type SecretDecodeResult = { ok: true; key: Buffer } | { ok: false; problem: string };

/**
 * `GATEWAY_AUTH_SECRET` as the HMAC key: its UTF-8 bytes, or, with
 * `GATEWAY_AUTH_SECRET_BASE64=true`, the bytes it encodes in base64url (the identity
 * service's `secret_base64_encoded`). Node's decoder silently skips stray characters,
 * so the alphabet is checked first.
 */
export function decodeGatewaySecret(secret: string, base64: boolean): SecretDecodeResult {
  let key: Buffer;
  if (base64) {
    if (!BASE64_PATTERN.test(secret)) {
      return { ok: false, problem: 'is not base64url although GATEWAY_AUTH_SECRET_BASE64 is true' };
    }
    key = Buffer.from(secret, 'base64url');
  } else {
    key = Buffer.from(secret, 'utf8');
  }
  if (key.length < MIN_HS256_SECRET_BYTES) {
    return {
      ok: false,
      problem:
        `is ${key.length} bytes${base64 ? ' after base64url decoding' : ''}; ` +
        `an HS256 secret must be at least ${MIN_HS256_SECRET_BYTES} bytes (RFC 7518 §3.2)`,
    };
  }
  return { ok: true, key };
}
