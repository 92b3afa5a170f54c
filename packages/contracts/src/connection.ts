import { z } from 'zod';
import { PhoneNumberSchema } from './phone';

// Field schemas are shared by create (with defaults) and PATCH (all optional, no defaults,
// so a partial update never resets a field the caller did not send).

/** Letters, digits and `-`, starting and ending alphanumeric, 1..128 characters. */
export const ConnectionNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,126}[A-Za-z0-9])?$/, {
    message: 'must be 1-128 letters, digits or "-", starting and ending with a letter or digit',
  });

/** Only http(s): other schemes (file:, ftp:, gopher:...) are an SSRF foothold. */
const GatewayUrlSchema = z.url({ protocol: z.regexes.httpProtocol, message: 'must be an http: or https: URL' });

/** Containing the macro also makes it non-empty. */
const TemplateSchema = z.string().includes('@@password@@', { message: 'must contain the @@password@@ macro' });

const TimeStepSchema = z.int().min(30).max(3600);
const CodeLengthSchema = z.int().min(4).max(10);

/** Sent by the reference product both as boolean `true` and as the string "true". */
const ForwardRequestInfoSchema = z.union([z.boolean(), z.literal('true')]);

/** Accepts standard and url-safe base64 alphabets, optional padding. */
const BASE64_PATTERN = /^[A-Za-z0-9+/_-]+={0,2}$/;

const gatewayAuthenticationFields = {
  method: z.literal('bearer'),
  subject: z.string().min(1),
  audience: z.string().min(1),
  secret: z.string().min(1),
  secret_base64_encoded: z.boolean(),
};

/** Catch an undecodable secret at configuration time rather than at the first delivery. */
function checkBase64Secret(
  value: { secret?: string | undefined; secret_base64_encoded?: boolean | undefined },
  ctx: z.RefinementCtx,
): void {
  if (value.secret_base64_encoded && value.secret !== undefined && !BASE64_PATTERN.test(value.secret)) {
    ctx.addIssue({ code: 'custom', path: ['secret'], message: 'must be base64 when secret_base64_encoded is true' });
  }
}

export const GatewayAuthenticationSchema = z
  .strictObject({
    ...gatewayAuthenticationFields,
    secret_base64_encoded: gatewayAuthenticationFields.secret_base64_encoded.default(false),
  })
  .superRefine(checkBase64Secret);
export type GatewayAuthentication = z.infer<typeof GatewayAuthenticationSchema>;

/** 2.1 `options`. Strict, so a misspelt option is a 400 naming it instead of being ignored. */
export const ConnectionOptionsSchema = z.strictObject({
  name: ConnectionNameSchema,
  strategy: z.literal('sms'),
  provider: z.literal('sms_gateway'),
  gateway_url: GatewayUrlSchema,
  from: PhoneNumberSchema.optional(),
  syntax: z.literal('md_with_macros').default('md_with_macros'),
  template: TemplateSchema,
  // prefault runs the inner defaults, so `{}` and a missing totp both become {300, 6}.
  totp: z
    .strictObject({ time_step: TimeStepSchema.default(300), length: CodeLengthSchema.default(6) })
    .prefault({}),
  brute_force_protection: z.boolean().default(true),
  disable_signup: z.boolean().default(false),
  gateway_authentication: GatewayAuthenticationSchema.optional(),
  forward_req_info: ForwardRequestInfoSchema.default(false),
});
export type ConnectionOptions = z.infer<typeof ConnectionOptionsSchema>;
export type ConnectionOptionsInput = z.input<typeof ConnectionOptionsSchema>;

/** Shown on login screens; the reference product's limit. */
const DisplayNameSchema = z.string().trim().min(1).max(128);

/** Up to 10 string properties (values up to 255 characters); a `null` value drops the key. */
const ConnectionMetadataSchema = z
  .record(z.string().min(1).max(255), z.string().max(255).nullable())
  .refine((m) => Object.keys(m).length <= 10, { message: 'at most 10 properties' })
  .transform((m) => Object.fromEntries(Object.entries(m).filter(([, v]) => v !== null)) as Record<string, string>);

/**
 * 4.1 create body, in the spec's shape (`options.name`, `options.strategy`) or the reference
 * product's (top-level `name`, `strategy`, as its SDKs send it), or both, which must agree.
 * The parsed body always carries both inside `options`.
 */
export const ConnectionCreateSchema = z
  .strictObject({
    name: ConnectionNameSchema.optional(),
    strategy: z.literal('sms').optional(),
    display_name: DisplayNameSchema.optional(),
    metadata: ConnectionMetadataSchema.optional(),
    is_domain_connection: z.boolean().default(false),
    options: ConnectionOptionsSchema.extend({ name: ConnectionNameSchema.optional(), strategy: z.literal('sms').optional() }),
    enabled_clients: z.array(z.string().min(1)).default([]),
  })
  .superRefine((body, ctx) => {
    for (const key of ['name', 'strategy'] as const) {
      const top = body[key];
      const inner = body.options[key];
      if (top !== undefined && inner !== undefined && top !== inner) {
        ctx.addIssue({ code: 'custom', path: [key], message: `must equal options.${key} when both are given` });
      } else if (top === undefined && inner === undefined) {
        ctx.addIssue({ code: 'custom', path: ['options', key], message: `required (here or as the top-level ${key})` });
      }
    }
  })
  .transform(({ name, strategy, options, ...rest }) => ({
    ...rest,
    options: { ...options, name: (name ?? options.name)!, strategy: (strategy ?? options.strategy)! } as ConnectionOptions,
  }));
export type ConnectionCreate = z.output<typeof ConnectionCreateSchema>;

/**
 * PATCH `options`: merged into the stored options (see applyConnectionOptionsPatch).
 * `name` and `strategy` may be repeated, as in a GET-modify-PATCH round trip, but not
 * changed. `null` clears an optional field. The secret may be omitted to keep the stored
 * one, since records never show it.
 */
export const ConnectionOptionsPatchSchema = z.strictObject({
  name: ConnectionNameSchema.optional(),
  strategy: z.literal('sms').optional(),
  provider: z.literal('sms_gateway').optional(),
  gateway_url: GatewayUrlSchema.optional(),
  from: PhoneNumberSchema.nullable().optional(),
  syntax: z.literal('md_with_macros').optional(),
  template: TemplateSchema.optional(),
  totp: z.strictObject({ time_step: TimeStepSchema.optional(), length: CodeLengthSchema.optional() }).optional(),
  brute_force_protection: z.boolean().optional(),
  disable_signup: z.boolean().optional(),
  gateway_authentication: z
    .strictObject(gatewayAuthenticationFields)
    .partial()
    .superRefine(checkBase64Secret)
    .nullable()
    .optional(),
  forward_req_info: ForwardRequestInfoSchema.optional(),
});
export type ConnectionOptionsPatch = z.infer<typeof ConnectionOptionsPatchSchema>;

/** PATCH body; `enabled_clients` replaces the whole list. */
export const ConnectionUpdateSchema = z.strictObject({
  options: ConnectionOptionsPatchSchema.optional(),
  enabled_clients: z.array(z.string().min(1)).optional(),
  /** `null` clears it. */
  display_name: DisplayNameSchema.nullable().optional(),
  /** Replaces the stored metadata. */
  metadata: ConnectionMetadataSchema.optional(),
  is_domain_connection: z.boolean().optional(),
});
export type ConnectionUpdate = z.infer<typeof ConnectionUpdateSchema>;

/** Options as shown in records: the gateway secret is write-only. */
export const ConnectionRecordOptionsSchema = ConnectionOptionsSchema.extend({
  gateway_authentication: z.strictObject(gatewayAuthenticationFields).omit({ secret: true }).optional(),
});
export type ConnectionRecordOptions = z.infer<typeof ConnectionRecordOptionsSchema>;

/** Connection as the management API returns it (reference product shape). */
export const ConnectionRecordSchema = z.object({
  id: z.string().regex(/^con_[A-Za-z0-9_-]+$/),
  name: ConnectionNameSchema,
  strategy: z.literal('sms'),
  options: ConnectionRecordOptionsSchema,
  enabled_clients: z.array(z.string()),
  realms: z.array(z.string()),
  /** Only when set. */
  display_name: z.string().optional(),
  is_domain_connection: z.boolean(),
  metadata: z.record(z.string(), z.string()),
});
export type ConnectionRecord = z.infer<typeof ConnectionRecordSchema>;

/** Stored options -> record options (drops the gateway secret). */
export function redactConnectionOptions(options: ConnectionOptions): ConnectionRecordOptions {
  if (!options.gateway_authentication) return options;
  const { secret: _secret, ...shown } = options.gateway_authentication;
  return { ...options, gateway_authentication: shown };
}

export type ConnectionOptionsPatchResult =
  | { success: true; options: ConnectionOptions }
  | { success: false; issues: z.core.$ZodIssue[] };

const OptionsEnvelopeSchema = z.object({ options: ConnectionOptionsSchema });

/**
 * Merges a PATCH into stored options and validates the result; issue paths start with
 * `options`. A rename is refused: the name is what clients send as `connection`, so
 * changing it in place would silently break every deployed client.
 */
export function applyConnectionOptionsPatch(
  current: ConnectionOptions,
  patch: ConnectionOptionsPatch,
): ConnectionOptionsPatchResult {
  if (patch.name !== undefined && patch.name !== current.name) {
    const message = 'cannot be changed; create a new connection instead';
    return { success: false, issues: [{ code: 'custom', path: ['options', 'name'], message, input: patch.name }] };
  }
  const { totp, from, gateway_authentication, ...plain } = patch;
  const merged: Record<string, unknown> = { ...current, ...withoutUndefined(plain) };
  if (totp) merged.totp = { ...current.totp, ...withoutUndefined(totp) };
  if (from === null) delete merged.from;
  else if (from !== undefined) merged.from = from;
  if (gateway_authentication === null) delete merged.gateway_authentication;
  else if (gateway_authentication) {
    merged.gateway_authentication = { ...current.gateway_authentication, ...withoutUndefined(gateway_authentication) };
  }
  const result = OptionsEnvelopeSchema.safeParse({ options: merged });
  return result.success
    ? { success: true, options: result.data.options }
    : { success: false, issues: result.error.issues };
}

/** The fields of a PATCH that were given (an undefined field keeps the stored value). */
export function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
