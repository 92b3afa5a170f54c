import { randomBytes, timingSafeEqual } from 'node:crypto';
import speakeasy from 'speakeasy';

/**
 * One-time codes for passwordless login.
 *
 * Each `/passwordless/start` gets its own fresh secret, and the code is the RFC 6238 TOTP
 * value of that secret at the moment the start was issued (`issuedAt`). It is recomputed
 * from the stored (secret, issued_at) at verification time, never from "now":
 * - validity is enforced by `expires_at = issued_at + time_step` in storage, so a code
 *   lives exactly `time_step` seconds, whereas TOTP windows evaluated at "now" would let a
 *   code issued one second before a step boundary die one second later (or, with a
 *   look-behind window, accept it for up to two steps);
 * - a per-start secret makes each code independent of every earlier one, so replacing
 *   the stored row is all it takes to invalidate older codes.
 * speakeasy's own verify is never used: it compares with parseInt, so "12345x" matches
 * the code "012345". Format and comparison are done here instead.
 */

/** 20 bytes = 160 bits, the HMAC-SHA-1 key size RFC 4226 §4 recommends. */
export const OTP_SECRET_BYTES = 20;

/** Secrets are hex strings, so they can be stored (and encrypted) as text. */
export type OtpSecret = string;

const HEX_SECRET = /^(?:[0-9a-f]{2})+$/;

/** A fresh CSPRNG secret, hex-encoded (40 characters). */
export function generateOtpSecret(): OtpSecret {
  return randomBytes(OTP_SECRET_BYTES).toString('hex');
}

export interface OtpParameters {
  /** When the code was issued; the TOTP time value T is derived from it. */
  issuedAt: Date;
  /** `totp.time_step` in seconds (the TOTP step X). */
  step: number;
  /** `totp.length`. */
  digits: number;
}

/** RFC 6238 TOTP (HMAC-SHA-1) of `secret` at `issuedAt`, zero-padded to `digits`. */
export function computeOtp(secret: OtpSecret, { issuedAt, step, digits }: OtpParameters): string {
  if (!HEX_SECRET.test(secret)) throw new TypeError('OTP secret must be a non-empty lower-case hex string');
  if (!Number.isInteger(step) || step <= 0) throw new RangeError('OTP step must be a positive integer');
  // 10 digits is the most a 31-bit HOTP value can fill (RFC 4226 §5.3).
  if (!Number.isInteger(digits) || digits < 1 || digits > 10) throw new RangeError('OTP digits must be 1..10');
  const epochMs = issuedAt.getTime();
  if (!Number.isFinite(epochMs) || epochMs < 0) throw new RangeError('OTP issuedAt must be a valid date after 1970');
  return speakeasy.totp({
    secret,
    encoding: 'hex',
    algorithm: 'sha1',
    step,
    digits,
    time: Math.floor(epochMs / 1000),
  });
}

/**
 * The exact shape a code must have before it is compared: `digits` ASCII digits and
 * nothing else (no spaces, signs, trailing letters or non-ASCII digits).
 */
export function isOtpFormatValid(candidate: unknown, digits: number): candidate is string {
  return typeof candidate === 'string' && candidate.length === digits && /^[0-9]+$/.test(candidate);
}

/**
 * Constant-time equality of two codes: crypto.timingSafeEqual on equal-length buffers. A
 * guess of another length (its length is public: `totp.length`) is refused, but only after
 * the same comparison, of the expected code with itself, so every call does the same work
 * whatever the guess. Check `isOtpFormatValid` before calling.
 */
export function otpMatches(candidate: string, expected: string): boolean {
  const guess = Buffer.from(candidate, 'utf8');
  const code = Buffer.from(expected, 'utf8');
  const sameLength = guess.length === code.length;
  const equal = timingSafeEqual(sameLength ? guess : code, code);
  return sameLength && equal;
}

/** Format check then constant-time compare: the one call the token endpoints need. */
export function verifyOtp(candidate: unknown, secret: OtpSecret, parameters: OtpParameters): boolean {
  if (!isOtpFormatValid(candidate, parameters.digits)) return false;
  return otpMatches(candidate, computeOtp(secret, parameters));
}
