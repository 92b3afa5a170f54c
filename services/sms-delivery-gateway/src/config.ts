import { env } from '@smsauth/service-kit';
import { z } from 'zod';
import { decodeGatewaySecret } from './domain/gateway-secret';
import { invalidRanges, splitList } from './domain/ip-allow-list';
import { PROVIDER_NAMES, checkProviderRules, providerSettingsShape, type ProviderName } from './providers/registry';

const variablesSchema = z.object({
  PORT: env.port(4100),
  HOST: env.host(),
  LOG_LEVEL: env.logLevel(),
  LOG_FORMAT: env.logFormat(),
  NODE_ENV: env.nodeEnv(),
  /** GET /docs, the API reference page: on unless NODE_ENV=production; API_DOCS=true|false decides. */
  API_DOCS: env.apiDocs(),

  GATEWAY_AUTH_SECRET: env.optionalString(),
  GATEWAY_AUTH_SECRET_BASE64: env.boolean(false),
  GATEWAY_AUTH_AUDIENCE: env.optionalString(),
  GATEWAY_AUTH_SUBJECT: env.optionalString(),
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
  OUTBOX_TOKEN: env.optionalString(),

  /** Each provider's own variables (TWILIO_*, WEBHOOK_*...), from its definition. */
  ...providerSettingsShape,
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

  checkProviderRules(config, { selected: config.SMS_PROVIDER ?? 'outbox', production: isProduction(config) }, problem);
}
