import { PhoneNumberSchema } from '@smsauth/contracts';
import { env } from '@smsauth/service-kit';
import { z } from 'zod';
import { decodeGatewaySecret } from './domain/gateway-secret';
import { invalidRanges, splitList } from './domain/ip-allow-list';
import { PROVIDER_NAMES, type ProviderName } from './providers/registry';

/** Unset and empty are the same thing: compose files and manifests often write `VAR=`. */
const optionalString = () =>
  z.preprocess((value) => (value === '' ? undefined : value), z.string().optional());

const optionalUrl = () => z.preprocess((value) => (value === '' ? undefined : value), env.url().optional());

const timeoutMs = (fallback: number) => z.coerce.number().int().min(100).max(120_000).default(fallback);

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** `WEBHOOK_HEADERS`: a JSON object of header name -> string value. */
const webhookHeaders = () =>
  optionalString().transform((value, ctx): Record<string, string> => {
    if (value === undefined) return {};
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be a JSON object of header names to string values, e.g. {"X-Api-Key":"..."}' });
      return z.NEVER;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      ctx.addIssue({ code: 'custom', message: 'must be a JSON object of header names to string values' });
      return z.NEVER;
    }
    for (const [name, headerValue] of Object.entries(parsed)) {
      if (!HEADER_NAME.test(name)) ctx.addIssue({ code: 'custom', message: `"${name}" is not a valid header name` });
      if (typeof headerValue !== 'string') ctx.addIssue({ code: 'custom', message: `value of "${name}" must be a string` });
    }
    return parsed as Record<string, string>;
  });

const TWILIO_ACCOUNT_SID = /^AC[0-9a-fA-F]{32}$/;
const TWILIO_MESSAGING_SERVICE_SID = /^MG[0-9a-fA-F]{32}$/;

const variablesSchema = z.object({
  PORT: env.port(4100),
  HOST: env.host(),
  LOG_LEVEL: env.logLevel(),
  LOG_FORMAT: env.logFormat(),
  NODE_ENV: env.nodeEnv(),

  GATEWAY_AUTH_SECRET: optionalString(),
  GATEWAY_AUTH_SECRET_BASE64: env.boolean(false),
  GATEWAY_AUTH_AUDIENCE: optionalString(),
  GATEWAY_AUTH_SUBJECT: optionalString(),
  ALLOWED_IPS: z
    .string()
    .default('')
    .transform(splitList)
    .superRefine((entries, ctx) => {
      const bad = invalidRanges(entries);
      if (bad.length > 0) {
        ctx.addIssue({ code: 'custom', message: `not an IPv4/IPv6 address or CIDR range: ${bad.join(', ')}` });
      }
    }),
  TRUST_PROXY: env.trustProxy(),

  /** Defaulted below: outbox outside production, required in production. */
  SMS_PROVIDER: z.preprocess(
    (value) => (value === '' ? undefined : value),
    z.enum(PROVIDER_NAMES, { message: `must be one of ${PROVIDER_NAMES.join(', ')}` }).optional(),
  ),
  OUTBOX_CAPACITY: env.positiveInt(1000).pipe(z.number().max(100_000)),
  OUTBOX_TOKEN: optionalString(),

  TWILIO_ACCOUNT_SID: optionalString().pipe(
    z.string().regex(TWILIO_ACCOUNT_SID, { message: 'must be a Twilio Account SID (AC followed by 32 hex digits)' }).optional(),
  ),
  TWILIO_AUTH_TOKEN: optionalString(),
  TWILIO_FROM: optionalString(),
  TWILIO_MESSAGING_SERVICE_SID: optionalString().pipe(
    z
      .string()
      .regex(TWILIO_MESSAGING_SERVICE_SID, { message: 'must be a Messaging Service SID (MG followed by 32 hex digits)' })
      .optional(),
  ),
  TWILIO_API_BASE_URL: env.url().default('https://api.twilio.com'),
  TWILIO_TIMEOUT_MS: timeoutMs(10_000),

  WEBHOOK_URL: optionalUrl(),
  WEBHOOK_HEADERS: webhookHeaders(),
  WEBHOOK_TIMEOUT_MS: timeoutMs(10_000),
});
type Variables = z.output<typeof variablesSchema>;

/** Environment of the sms-delivery-gateway service; parsed once at start. */
export const configSchema = variablesSchema.superRefine(checkCrossFieldRules).transform((config) => ({
  ...config,
  SMS_PROVIDER: (config.SMS_PROVIDER ?? 'outbox') satisfies ProviderName,
}));

export type Config = z.output<typeof configSchema>;

export function isProduction(config: Pick<Config, 'NODE_ENV'>): boolean {
  return config.NODE_ENV === 'production';
}

function checkCrossFieldRules(config: Variables, ctx: z.RefinementCtx): void {
  const problem = (variable: string, message: string) => ctx.addIssue({ code: 'custom', path: [variable], message });

  if (config.GATEWAY_AUTH_SECRET !== undefined) {
    const decoded = decodeGatewaySecret(config.GATEWAY_AUTH_SECRET, config.GATEWAY_AUTH_SECRET_BASE64);
    if (!decoded.ok) problem('GATEWAY_AUTH_SECRET', decoded.problem);
  } else {
    // Settings that only make sense with a secret mean the operator meant to turn
    // authentication on; running open instead would be a silent security hole.
    for (const variable of ['GATEWAY_AUTH_AUDIENCE', 'GATEWAY_AUTH_SUBJECT'] as const) {
      if (config[variable] !== undefined) problem(variable, 'has no effect without GATEWAY_AUTH_SECRET; set the secret too');
    }
  }

  if (config.SMS_PROVIDER === undefined && isProduction(config)) {
    problem('SMS_PROVIDER', `must be set in production (${PROVIDER_NAMES.join(', ')})`);
  }

  if (config.SMS_PROVIDER === 'twilio') {
    if (config.TWILIO_ACCOUNT_SID === undefined) problem('TWILIO_ACCOUNT_SID', 'is required when SMS_PROVIDER is twilio');
    if (config.TWILIO_AUTH_TOKEN === undefined) problem('TWILIO_AUTH_TOKEN', 'is required when SMS_PROVIDER is twilio');
    if (config.TWILIO_FROM === undefined && config.TWILIO_MESSAGING_SERVICE_SID === undefined) {
      problem('TWILIO_FROM', 'TWILIO_FROM or TWILIO_MESSAGING_SERVICE_SID is required when SMS_PROVIDER is twilio');
    }
  }
  if (config.TWILIO_FROM !== undefined && !isTwilioSender(config.TWILIO_FROM)) {
    problem('TWILIO_FROM', 'must be an E.164 number like +14155550123 or an alphanumeric sender id of 1-11 characters');
  }

  if (config.SMS_PROVIDER === 'webhook' && config.WEBHOOK_URL === undefined) {
    problem('WEBHOOK_URL', 'is required when SMS_PROVIDER is webhook');
  }
}

function isTwilioSender(value: string): boolean {
  return PhoneNumberSchema.safeParse(value).success || /^(?=.*[A-Za-z])[A-Za-z0-9 ]{1,11}$/.test(value);
}
