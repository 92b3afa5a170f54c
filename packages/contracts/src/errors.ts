import { z } from 'zod';

/** One validation problem, `path` in dotted form such as `options.totp.length`. */
export const ErrorDetailSchema = z.object({
  path: z.string(),
  message: z.string(),
});
export type ErrorDetail = z.infer<typeof ErrorDetailSchema>;

/** The error body every service returns (OAuth 2.0 style, plus `details` for validation errors). */
export const OAuthErrorBodySchema = z.object({
  error: z.string(),
  error_description: z.string(),
  details: z.array(ErrorDetailSchema).optional(),
});
export type OAuthErrorBody = z.infer<typeof OAuthErrorBodySchema>;

/** Every `error` value a service may answer with. */
export const ErrorCodes = {
  BAD_CLIENT_ID: 'bad.client_id',
  BAD_CONNECTION: 'bad.connection',
  BAD_PHONE_NUMBER: 'bad.phone_number',
  BAD_AUTH_PARAMS: 'bad.authParams',
  BAD_REQUEST: 'bad.request',
  TOO_MANY_REQUESTS: 'too_many_requests',
  TOO_MANY_ATTEMPTS: 'too_many_attempts',
  SMS_PROVIDER_ERROR: 'sms_provider_error',
  INVALID_USER_PASSWORD: 'invalid_user_password',
  INVALID_REQUEST: 'invalid_request',
  INVALID_GRANT: 'invalid_grant',
  INVALID_CLIENT: 'invalid_client',
  UNAUTHORIZED_CLIENT: 'unauthorized_client',
  /** A user an administrator blocked (`blocked: true`), refused as the reference product does: "user is blocked". */
  UNAUTHORIZED: 'unauthorized',
  UNSUPPORTED_GRANT_TYPE: 'unsupported_grant_type',
  ACCESS_DENIED: 'access_denied',
  INSUFFICIENT_SCOPE: 'insufficient_scope',
  INVALID_TOKEN: 'invalid_token',
  PROVIDER_ERROR: 'provider_error',
  FORBIDDEN: 'forbidden',
  NOT_FOUND: 'not_found',
  CONFLICT: 'conflict',
  PAYLOAD_TOO_LARGE: 'payload_too_large',
  SERVER_ERROR: 'server_error',
  SERVICE_UNAVAILABLE: 'service_unavailable',
} as const;
export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];

/** `error_description` values of `sms_provider_error`, worded as the reference product does. */
export const SmsProviderErrorDescriptions = {
  unexpectedGatewayResponse: (status: number): string =>
    `Unexpected response while calling the SMS gateway: ${status}`,
  GATEWAY_AUTH_FAILED: 'Authentication failed while calling the SMS gateway: 401',
  GATEWAY_TIMEOUT: 'Timeout while calling the SMS gateway',
  /** No answer: connection refused or reset, name not found. */
  GATEWAY_UNREACHABLE: 'Unable to reach the SMS gateway',
  /** GATEWAY_URL_POLICY refused the address the gateway URL resolves to. */
  GATEWAY_ADDRESS_REFUSED: 'Refused to call the SMS gateway: its address is not allowed',
  /** The connection's gateway_authentication secret cannot sign a token. */
  GATEWAY_TOKEN_UNUSABLE: 'Unable to sign the SMS gateway token: gateway_authentication.secret is unusable',
  /**
   * Not an `sms_provider_error`: the gateway (or the balancer before it) answered 502, 503, 504
   * or 409 (its Idempotency-Key still in flight). Identity answers 503 `service_unavailable`
   * with Retry-After; a retry (with the start's Idempotency-Key) sends at most once.
   */
  GATEWAY_UNAVAILABLE: 'The SMS gateway is temporarily unavailable. Please try again shortly.',
} as const;

/** Same text for an unknown number and a wrong code, so the answer does not reveal which. */
export const WRONG_CODE_DESCRIPTION = 'Wrong phone number or verification code.';

/**
 * `error_description`s of `/oauth/token` (passwordless OTP grant, `invalid_grant`), worded
 * as the reference product does. `/oauth/ro` answers every case with the wrong-code text.
 */
export const OTP_GRANT_DESCRIPTIONS = {
  wrong: WRONG_CODE_DESCRIPTION,
  expired: 'The verification code has expired. Please try to login again.',
  exhausted: "You've reached the maximum number of attempts. Please try to login again.",
} as const;

/** `['options', 'totp', 'length']` -> `options.totp.length`. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  return path.map(String).join('.');
}

/**
 * zod issues -> `details` entries. A strict object reports all unknown keys in one
 * issue at the parent path; it is split here so each typo gets its own full path.
 */
export function toErrorDetails(issues: readonly z.core.$ZodIssue[]): ErrorDetail[] {
  return issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ path: formatIssuePath([...issue.path, key]), message: 'unknown field' }))
      : [{ path: formatIssuePath(issue.path), message: issue.message }],
  );
}
