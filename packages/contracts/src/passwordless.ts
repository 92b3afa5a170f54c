import { z } from 'zod';
import { DeliveryChannelSchema } from './channels';

/** `authParams` are handed on to the tokens; unknown ones are allowed, as in the reference product. */
export const AuthParamsSchema = z.looseObject({
  scope: z.string().optional(),
  state: z.string().optional(),
  nonce: z.string().optional(),
});
export type AuthParams = z.infer<typeof AuthParamsSchema>;

/**
 * 2.3. `phone_number` is a plain string on purpose: the identity service's check (a valid
 * number, international form, formatting allowed; kept in E.164) runs after the client and
 * connection look-ups, see START_REQUEST_VALIDATION_ORDER.
 */
export const StartRequestSchema = z.strictObject({
  client_id: z.string().min(1),
  connection: z.string().min(1),
  phone_number: z.string().min(1),
  send: z.literal('code').default('code'),
  authParams: AuthParamsSchema.optional(),
  /** How to send the code: one of the connection's `options.channels` for the number (else a 400 naming it); absent, the first of them. */
  channel: DeliveryChannelSchema.optional(),
  // Client authentication, checked once the client is found (its token_endpoint_auth_method).
  client_secret: z.string().optional(),
  client_assertion: z.string().optional(),
  client_assertion_type: z.string().optional(),
});
export type StartRequest = z.infer<typeof StartRequestSchema>;

export type StartRequestErrorCode = 'bad.client_id' | 'bad.connection' | 'bad.phone_number' | 'bad.authParams' | 'bad.request';

/**
 * The identity service reports one error per start request: first the schema issues of
 * StartRequestSchema (earliest code in this list wins), then, on a well-formed body, the
 * checks in this order: client exists -> connection exists, is `sms` and enabled for the
 * client -> phone number is valid -> sign-up allowed. So the answer does not depend on
 * which of several problems a caller happens to have.
 */
export const START_REQUEST_VALIDATION_ORDER: readonly StartRequestErrorCode[] = [
  'bad.client_id',
  'bad.connection',
  'bad.phone_number',
  'bad.authParams',
  'bad.request',
];

const CODE_BY_FIELD: Record<string, StartRequestErrorCode> = {
  client_id: 'bad.client_id',
  connection: 'bad.connection',
  phone_number: 'bad.phone_number',
  authParams: 'bad.authParams',
};

/** Maps one StartRequestSchema issue to its error code; unknown fields, `send` and a non-object body are `bad.request`. */
export function classifyStartRequestIssue(issue: z.core.$ZodIssue): StartRequestErrorCode {
  const field = issue.path[0];
  return (typeof field === 'string' && CODE_BY_FIELD[field]) || 'bad.request';
}

/** The code to answer for a failed StartRequestSchema parse (first by START_REQUEST_VALIDATION_ORDER). */
export function startRequestErrorCode(issues: readonly z.core.$ZodIssue[]): StartRequestErrorCode {
  const codes = new Set(issues.map(classifyStartRequestIssue));
  return START_REQUEST_VALIDATION_ORDER.find((code) => codes.has(code)) ?? 'bad.request';
}

/** 2.4 (the reference product omits `phone_verified`; the spec shows it). */
export const StartResponseSchema = z.object({
  _id: z.string(),
  phone_number: z.string(),
  request_language: z.string().nullable(),
  phone_verified: z.boolean(),
  /** The channel that carried the code (after any fallback); absent for a test number, which is sent nothing. */
  channel: DeliveryChannelSchema.optional(),
});
export type StartResponse = z.infer<typeof StartResponseSchema>;
