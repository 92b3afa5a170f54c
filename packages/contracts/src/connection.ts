import { z } from 'zod';
import { ConnectionChannelsSchema } from './channels';
import { CountryCodeSchema, PhoneNumberSchema } from './phone';
import { PASSKEYS_OFF, PasskeySettingsPatchSchema, PasskeySettingsSchema } from './passkeys';
import { smsPolicyOptionFields, smsPolicyOptionPatchFields } from './sms-policy';

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

/**
 * The template smsauth ships (the seed tenant, deploy/tenant.example.json, the console's new
 * connection). A connection whose syntax is md_with_macros and whose template is this text, word
 * for word, sends the default messages in the user's language instead (docs/sms-templates.md).
 */
export const DEFAULT_MESSAGE_TEMPLATE = 'Your @@application.name@@ verification code is: @@password@@';

/** What the template must contain is checked per syntax (checkTemplateForSyntax). */
const TemplateSchema = z
  .string()
  .min(1)
  .describe(
    `The SMS text. syntax md_with_macros (the default): must contain the @@password@@ macro; the shipped default "${DEFAULT_MESSAGE_TEMPLATE}" sends the built-in message in the user's language (32 languages) instead. syntax liquid: must output the code ({{ code }} or {{ password }}), be at most 4096 characters and parse; its sample render must fit the limits.`,
  )
  // The part of the rule that needs no other field: one of the two ways of carrying the code.
  .meta({ pattern: '@@password@@|\\{\\{-?\\s*(?:code|password)\\b' });

/** Auth0's `syntax` enum for sms connections; `md_with_macros` stays the default. */
export const MESSAGE_SYNTAXES = ['md_with_macros', 'liquid'] as const;
const SyntaxSchema = z.enum(MESSAGE_SYNTAXES);
export type MessageSyntax = z.infer<typeof SyntaxSchema>;

/** Longest Liquid template accepted (also the engine's parseLimit). */
export const LIQUID_TEMPLATE_MAX_LENGTH = 4096;
/** `{{ code }}` or `{{ password }}` (filters allowed), e.g. `{{- code | prepend: "#" }}`. */
const LIQUID_CODE_OUTPUT = /\{\{-?\s*(?:code|password)\b/;

/**
 * `md_with_macros` needs the `@@password@@` macro (as before); `liquid` needs an output of
 * `code` (or its alias `password`) and at most LIQUID_TEMPLATE_MAX_LENGTH characters.
 * Whether the Liquid parses is the identity service's check (it owns the engine).
 */
export function checkTemplateForSyntax(
  options: { syntax?: MessageSyntax | undefined; template?: string | undefined },
  ctx: z.RefinementCtx,
  path: PropertyKey[] = ['template'],
): void {
  const { template } = options;
  // An empty one is already refused by TemplateSchema.
  if (!template) return;
  if ((options.syntax ?? 'md_with_macros') === 'md_with_macros') {
    if (!template.includes('@@password@@')) ctx.addIssue({ code: 'custom', path, message: 'must contain the @@password@@ macro' });
    return;
  }
  if (template.length > LIQUID_TEMPLATE_MAX_LENGTH) {
    ctx.addIssue({ code: 'custom', path, message: `must be at most ${LIQUID_TEMPLATE_MAX_LENGTH} characters` });
  } else if (!LIQUID_CODE_OUTPUT.test(template)) {
    ctx.addIssue({ code: 'custom', path, message: 'must output the code: {{ code }} (or {{ password }})' });
  }
}

/** An Android SMS Retriever app hash: 11 characters of base64 (standard alphabet). */
const AppHashSchema = z.string().regex(/^[A-Za-z0-9+/]{11}$/, { message: 'must be an 11-character Android app hash (base64)' });

/**
 * The origin an origin-bound code is for: `https://host` with no path, query, fragment or
 * port, since the WICG line `@host #code` can name only a host (https implied).
 */
const WebOtpOriginSchema = z.string().refine(
  (value) => {
    try {
      const url = new URL(value);
      return url.protocol === 'https:' && url.origin === value && url.port === '' && !url.hostname.startsWith('[');
    } catch {
      return false;
    }
  },
  { message: 'must be an https origin (no path, port or trailing slash), such as https://login.example.com' },
)
  .describe('An https origin with no path, port or trailing slash, such as https://login.example.com.')
  // The refinement's rule, stated in the document: a host name (the WICG line cannot carry an IP address or a port).
  .meta({ pattern: '^https://(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\\.)*[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$' });

/** Domain-bound codes: the origin-bound line (WebOTP, iOS autofill) and Android SMS Retriever hashes. */
export const WebOtpOptionsSchema = z.strictObject({
  origin: WebOtpOriginSchema,
  app_hashes: z.array(AppHashSchema).max(5).default([]),
});
export type WebOtpOptions = z.infer<typeof WebOtpOptionsSchema>;

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

const DEFAULT_COUNTRY_DESCRIPTION =
  'ISO 3166-1 alpha-2 country the hosted login page preselects, so people can type national numbers ((415) 555-2671); ' +
  'without it the page preselects the region of the browser language (en-GB: GB), else none. `null` on PATCH removes it.';

const CONNECTION_WARNINGS_DESCRIPTION =
  'Only in the answer to a create or to an update of `options.gateway_url` or `options.gateway_authentication`, and only ' +
  'when there is something to say: what the write accepted ' +
  'that will probably make starts fail. Today one warning exists: `options.gateway_authentication` is not set, so ' +
  'deliveries carry no Authorization header and a gateway that checks a bearer token refuses every start (400 `sms_provider_error`).';

/** 2.1 `options`. Strict, so a misspelt option is a 400 naming it instead of being ignored. */
export const ConnectionOptionsSchema = z.strictObject({
  name: ConnectionNameSchema,
  strategy: z.literal('sms'),
  // One provider exists; requiring it only made people copy a constant. Auth0's `twilio` (and
  // its twilio_sid/twilio_token) is refused: Twilio is one of the gateway's providers, set up there.
  provider: z
    .literal('sms_gateway', {
      message: 'must be sms_gateway: identity delivers through your SMS delivery gateway (gateway_url); Twilio and the other providers are configured on the gateway',
    })
    .default('sms_gateway'),
  gateway_url: GatewayUrlSchema,
  from: PhoneNumberSchema.optional(),
  syntax: SyntaxSchema.default('md_with_macros'),
  template: TemplateSchema,
  webotp: WebOtpOptionsSchema.optional(),
  // prefault runs the inner defaults, so `{}` and a missing totp both become {300, 6}.
  totp: z
    .strictObject({ time_step: TimeStepSchema.default(300), length: CodeLengthSchema.default(6) })
    .prefault({}),
  brute_force_protection: z.boolean().default(true),
  disable_signup: z.boolean().default(false),
  gateway_authentication: GatewayAuthenticationSchema.optional(),
  forward_req_info: ForwardRequestInfoSchema.default(false),
  /** The hosted login page's preselected country for numbers typed without +country code. */
  default_country: CountryCodeSchema.meta({ description: DEFAULT_COUNTRY_DESCRIPTION }).optional(),
  /** Absent: off (a connection created through /api/v2 without it gets NEW_CONNECTION_PASSKEYS). */
  passkeys: PasskeySettingsSchema.optional(),
  /** Absent: SMS only. */
  channels: ConnectionChannelsSchema.optional(),
  ...smsPolicyOptionFields,
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
    checkTemplateForSyntax(body.options, ctx, ['options', 'template']);
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
  syntax: SyntaxSchema.optional(),
  template: TemplateSchema.optional(),
  /** `null` removes it. */
  webotp: WebOtpOptionsSchema.nullable().optional(),
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
  default_country: CountryCodeSchema.meta({ description: DEFAULT_COUNTRY_DESCRIPTION }).nullable().optional(),
  /** Merged into the stored setting. */
  passkeys: PasskeySettingsPatchSchema.optional(),
  /** Replaces the stored table; `null` removes it (SMS only). */
  channels: ConnectionChannelsSchema.nullable().optional(),
  ...smsPolicyOptionPatchFields,
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

/** The most entries one `PATCH /connections/{id}/clients` takes, as the reference product bounds it. */
export const MAX_CONNECTION_CLIENTS_CHANGES = 50;

/**
 * `PATCH /connections/{id}/clients` (Auth0's): enables (`status: true`) or disables
 * (`status: false`) each named client on the connection; clients not named keep their state.
 */
export const ConnectionClientsUpdateSchema = z
  .array(z.strictObject({ client_id: z.string().min(1).max(64).describe('A client of this tenant (else 400 naming the entry).'), status: z.boolean() }))
  .min(1)
  .max(MAX_CONNECTION_CLIENTS_CHANGES);
export type ConnectionClientsUpdate = z.infer<typeof ConnectionClientsUpdateSchema>;

/** `GET /connections/{id}/clients`: the clients enabled on the connection, by client_id; `next` until the last page. */
export const ConnectionClientsPageSchema = z.object({
  clients: z.array(z.object({ client_id: z.string() })),
  next: z.string().optional(),
});
export type ConnectionClientsPage = z.infer<typeof ConnectionClientsPageSchema>;

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
  warnings: z
    .array(z.string())
    .optional()
    .meta({ description: CONNECTION_WARNINGS_DESCRIPTION }),
});
export type ConnectionRecord = z.infer<typeof ConnectionRecordSchema>;

/**
 * Why a write that succeeded may still not deliver. Accepted rather than refused: the reference
 * product accepts a connection without gateway_authentication, and a gateway that checks no
 * token (ALLOWED_IPS only, a private network) is a valid setup; but when the gateway does check
 * one, every start fails with a 401 that is far from the write that caused it.
 */
export const CONNECTION_WARNING_NO_GATEWAY_AUTHENTICATION =
  'options.gateway_authentication is not set: deliveries to gateway_url carry no Authorization header, ' +
  'so a gateway that checks a bearer token (the sms-delivery-gateway with GATEWAY_AUTH_SECRET, as under pnpm start) ' +
  "refuses them and every start answers 400 sms_provider_error \"Authentication failed while calling the SMS gateway: 401\". " +
  'Set gateway_authentication: {method: "bearer", subject, audience, secret} to the gateway\'s settings.';

/** The warnings of a connection's options (empty when none). */
export function connectionWarnings(options: Pick<ConnectionOptions, 'gateway_authentication'>): string[] {
  return options.gateway_authentication ? [] : [CONNECTION_WARNING_NO_GATEWAY_AUTHENTICATION];
}

/** Stored options -> record options (drops the gateway secret). */
export function redactConnectionOptions(options: ConnectionOptions): ConnectionRecordOptions {
  if (!options.gateway_authentication) return options;
  const { secret: _secret, ...shown } = options.gateway_authentication;
  return { ...options, gateway_authentication: shown };
}

export type ConnectionOptionsPatchResult =
  | { success: true; options: ConnectionOptions }
  | { success: false; issues: z.core.$ZodIssue[] };

const OptionsEnvelopeSchema = z
  .object({ options: ConnectionOptionsSchema })
  .superRefine((body, ctx) => checkTemplateForSyntax(body.options, ctx, ['options', 'template']));

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
  const { totp, from, gateway_authentication, sms_velocity_limits, sms_fraud_guard, passkeys, ...rest } = patch;
  const plain = withoutUndefined(rest);
  const merged: Record<string, unknown> = { ...current, ...plain };
  // `null` removes an optional field (the SMS policy fields then behave as before they existed).
  for (const [key, value] of Object.entries(plain)) if (value === null) delete merged[key];
  for (const [key, value] of [['sms_velocity_limits', sms_velocity_limits], ['sms_fraud_guard', sms_fraud_guard]] as const) {
    if (value === null) delete merged[key];
    else if (value) merged[key] = { ...current[key], ...withoutUndefined(value) };
  }
  if (totp) merged.totp = { ...current.totp, ...withoutUndefined(totp) };
  // A connection without the setting has passkeys off: a partial PATCH must not turn them on.
  if (passkeys) merged.passkeys = { ...PASSKEYS_OFF, ...current.passkeys, ...withoutUndefined(passkeys) };
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
