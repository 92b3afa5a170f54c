import { z } from 'zod';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, queryBoolean, queryInt } from './management-lists';

/**
 * Tenant log event types: the reference product's code where it has one for the event, our
 * own (`sms_…`) otherwise. docs/tenant-logs.md has the table.
 */
export const LOG_EVENT_TYPES = {
  /** A code went out: the gateway accepted the SMS. */
  cs: 'Code Sent',
  /** The gateway refused or did not answer; the code was discarded. */
  fn: 'Failed Sending Notification',
  /** A code was exchanged (/oauth/ro, the OTP grant, the hosted login page). */
  s: 'Success Login',
  /** A wrong code. */
  fp: 'Incorrect Verification Code',
  /** No code pending for this number and client (never sent, replaced, or another client's). */
  fu: 'Invalid Phone Number or No Code Pending',
  sms_code_used: 'Verification Code Already Used',
  sms_code_expired: 'Verification Code Expired',
  /** The code's attempts were used up. */
  sms_code_exhausted: 'Too Many Attempts on the Verification Code',
  /** An exchange refused unchecked because the IP or the number is blocked. */
  sms_blocked_attempt: 'Attempt Refused by Brute-Force Protection',
  /** The failure that blocked this IP for the number. */
  limit_wc: 'Blocked Account',
  /** The failure that locked the number (consecutive failures from any IP). */
  sms_number_locked: 'Phone Number Locked',
  /** An administrator lifted the brute-force blocks of a number. */
  ublkdu: 'User Login Block Released',
  /** /passwordless/start refused by its per-IP or per-number limit. */
  api_limit: 'Rate Limit on the Authentication API',
  /** disable_signup refused a number without a user. */
  fs: 'Failed Signup',
  /** Start refused by the SMS fraud policy (country, prefix, velocity); `details.refusal` says which rule. */
  sms_start_refused: 'Start Refused by SMS Policy',
  /** Start refused because an administrator blocked the user: no code sent. */
  sms_start_blocked_user: 'Start Refused: User Blocked',
  sertft: 'Success Exchange (Refresh Token for Access Token)',
  fertft: 'Failed Exchange (Refresh Token for Access Token)',
  /** A rotated refresh token was presented again: its family was revoked. */
  ferrt: 'Refresh Token Reuse Detected',
  seccft: 'Success Exchange (Client Credentials for Access Token)',
  feccft: 'Failed Exchange (Client Credentials for Access Token)',
  /** A code of the authorization code flow was exchanged at /oauth/token. */
  seacft: 'Success Exchange (Authorization Code for Access Token)',
  /** A code exchange refused: unknown, expired, reused (what it issued is revoked), wrong verifier, client or redirect_uri. */
  feacft: 'Failed Exchange (Authorization Code for Access Token)',
  /** prompt=none answered from the login session. */
  ssa: 'Success Silent Auth',
  /** prompt=none without a usable login session (login_required). */
  fsa: 'Failed Silent Auth',
  /** A login session ended by /v2/logout or the OIDC end-session endpoint. */
  slo: 'Success Logout',
  /** A logout refused (return URL not allowed, unknown client). */
  flo: 'Failed Logout',
  /** An application's back-channel logout URI accepted a logout_token (`details`: the session, the initiator, the attempt). */
  oidc_backchannel_logout_succeeded: 'Successful OIDC Back-Channel Logout request',
  /** A logout_token POST failed (`details.will_retry` says whether it is tried again, `details.error` why). */
  oidc_backchannel_logout_failed: 'Failed OIDC Back-Channel Logout request',
  /** A passkey login refused (unknown or deleted passkey, replayed or forged assertion, blocked user), or a login ticket refused at /authorize (`details.reason`). */
  f: 'Failed Login',
  /** A passkey was registered after an SMS login on the hosted login. */
  passkey_enrolled: 'Passkey Enrolled',
  /** A passkey registration was refused (bad attestation, challenge, origin). */
  passkey_enrollment_failed: 'Passkey Enrollment Failed',
  /** A management API write (who changed which object); signing key rotation and revocation included. */
  sapi: 'Success API Operation',
  /** A bulk user import finished (`details`: the job id and its summary). */
  sui: 'Successful Users Import',
  /** A bulk user import failed: its steps failed again and again (`details.error` says why). */
  fui: 'Failed Users Import',
  /** A bulk user export finished or failed (`details`: the job id, `status`, the file's size or the error); the reference product has no code for it. */
  sms_users_export: 'Users Export',
} as const;

export type LogEventType = keyof typeof LOG_EVENT_TYPES;
export const LOG_EVENT_TYPE_CODES = Object.keys(LOG_EVENT_TYPES) as LogEventType[];

/** One tenant log event as `GET /api/v2/logs` answers it; absent fields were not known. */
export const TenantLogSchema = z.object({
  log_id: z.string(),
  date: z.string(),
  type: z.string(),
  description: z.string(),
  client_id: z.string().optional(),
  client_name: z.string().optional(),
  connection: z.string().optional(),
  connection_id: z.string().optional(),
  user_id: z.string().optional(),
  ip: z.string().optional(),
  user_agent: z.string().optional(),
  /** Masked: country code and last digits only. */
  phone_number: z.string().optional(),
  /** The number's country (ISO 3166-1 alpha-2), as the SMS figures count it; absent when unknown. */
  phone_country: z.string().optional(),
  details: z.record(z.string(), z.unknown()),
});
export type TenantLog = z.infer<typeof TenantLogSchema>;

/** Search paging reaches this many records at most (page × per_page + per_page), as at the reference product. */
export const MAX_LOG_SEARCH_WINDOW = 1000;

/**
 * `GET /api/v2/logs` and `GET /api/v2/users/{id}/logs`. Search: `q`, `page`/`per_page`,
 * `sort=date:1|date:-1` (newest first by default), `include_totals`, `fields`/`include_fields`.
 * Checkpoint (`from` a log_id, `take`): the logs after it in stream order, every other
 * parameter ignored, as at the reference product.
 */
export const LogsListQuerySchema = z.object({
  q: z.string().max(2000).optional(),
  page: queryInt(0, MAX_LOG_SEARCH_WINDOW).optional(),
  per_page: queryInt(1, MAX_PAGE_SIZE).optional(),
  include_totals: queryBoolean.optional(),
  sort: z.enum(['date:1', 'date:-1'], { message: 'must be date:1 or date:-1' }).optional(),
  fields: z
    .string()
    .max(1000)
    .transform((v) => v.split(',').map((f) => f.trim()).filter((f) => f.length > 0))
    .optional(),
  include_fields: queryBoolean.optional(),
  from: z.string().min(1).max(128).optional(),
  take: queryInt(1, MAX_PAGE_SIZE).optional(),
});
export type LogsListQuery = z.output<typeof LogsListQuerySchema>;

export const DEFAULT_LOG_PAGE_SIZE = DEFAULT_PAGE_SIZE;

/** `include_totals=true`: `{start, limit, length, total, logs}`. */
export const LogsEnvelopeSchema = z.object({
  start: z.int().nonnegative(),
  limit: z.int().positive(),
  length: z.int().nonnegative(),
  total: z.int().nonnegative(),
  logs: z.array(TenantLogSchema.partial()),
});
export type LogsEnvelope = z.infer<typeof LogsEnvelopeSchema>;
