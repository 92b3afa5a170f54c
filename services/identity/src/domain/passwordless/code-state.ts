import { OTP_GRANT_DESCRIPTIONS } from '@smsauth/contracts';

/* One-time code usability: when a stored code may still be checked. */

/** Wrong attempts a code survives; the third wrong one kills it. */
export const MAX_CODE_ATTEMPTS = 3;

/** A code is valid for `time_step` seconds: [issued_at, issued_at + time_step). */
export function codeExpiresAt(issuedAt: Date, timeStepSeconds: number): Date {
  return new Date(issuedAt.getTime() + timeStepSeconds * 1000);
}

export interface StoredCodeState {
  expiresAt: Date;
  /** Wrong attempts so far. */
  attempts: number;
  used: boolean;
}

export type CodeState = 'usable' | 'used' | 'expired' | 'exhausted';

/**
 * Whether a stored code may still be checked. The store enforces the same conditions in
 * the WHERE clause of its atomic consume/increment statements
 * (`NOT used AND attempts < 3 AND expires_at > now`), so parallel requests cannot exceed
 * them; this function is for choosing the error to report.
 */
export function codeState(code: StoredCodeState, now: Date): CodeState {
  if (code.used) return 'used';
  if (code.attempts >= MAX_CODE_ATTEMPTS) return 'exhausted';
  if (now >= code.expiresAt) return 'expired';
  return 'usable';
}

/** The OTP grant's description for a rejected code ('used' reads as wrong: no replay oracle). */
export function otpGrantRejectionDescription(state: Exclude<CodeState, 'usable'> | 'wrong' | 'unknown'): string {
  if (state === 'expired') return OTP_GRANT_DESCRIPTIONS.expired;
  if (state === 'exhausted') return OTP_GRANT_DESCRIPTIONS.exhausted;
  return OTP_GRANT_DESCRIPTIONS.wrong;
}
