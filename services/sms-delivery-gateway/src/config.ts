import { env } from '@smsauth/service-kit';
import { z } from 'zod';
import { decodeGatewaySecret } from './domain/gateway-secret';
import { invalidRanges, splitList } from './domain/ip-allow-list';
import { ProviderInstanceNameSchema, RouteTableSchema } from './domain/routing';
import {
  PROVIDER_NAMES,
  checkProviderRules,
  instanceFromVariables,
  parseInstance,
  providerSettingsShape,
  type ProviderInstance,
  type ProviderName,
} from './providers/registry';

/** A JSON-valued variable, then `schema`; a value that is not JSON is refused saying so. */
const jsonVariable = <T extends z.ZodType>(schema: T, example: string) =>
  env.optionalString().transform((value, ctx): z.output<T> | undefined => {
    if (value === undefined) return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: `must be JSON, e.g. ${example}` });
      return z.NEVER;
    }
    const result = schema.safeParse(parsed);
    if (!result.success) {
      for (const issue of result.error.issues) {
        const where = issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ` : '';
        // A bad record key: zod's own words are "Invalid key in record"; the key schema's say why.
        const message = issue.code === 'invalid_key' ? (issue.issues[0]?.message ?? issue.message) : issue.message;
        ctx.addIssue({ code: 'custom', message: `${where}${message}` });
      }
      return z.NEVER;
    }
    return result.data;
  });

const InstancesSchema = z.record(
  ProviderInstanceNameSchema.refine((name) => !(PROVIDER_NAMES as readonly string[]).includes(name), {
    message: `instance names must differ from the provider kinds (${PROVIDER_NAMES.join(', ')}), which name the instances their own variables configure`,
  }),
  z.record(z.string(), z.unknown()),
);

const variablesSchema = z.object({
  PORT: env.port(4100),
  HOST: env.host(),
  LOG_LEVEL: env.logLevel(),
  LOG_FORMAT: env.logFormat(),
  NODE_ENV: env.nodeEnv().meta({
    description: '`production`: `SMS_PROVIDER` must be set explicitly; the outbox read API is off unless `OUTBOX_TOKEN` is set.',
  }),
  /** GET /docs, the API reference page: on unless NODE_ENV=production; API_DOCS=true|false decides. */
  API_DOCS: env.apiDocs(),

  GATEWAY_AUTH_SECRET: env.optionalString().meta({
    secret: true,
    description:
      'Shared HS256 secret; turns delivery authentication on. At least 32 bytes (after decoding), otherwise the service refuses to start. Unset: `POST /sms` is open and one warning is logged at start.',
  }),
  GATEWAY_AUTH_SECRET_BASE64: env.boolean(false).meta({
    description:
      "`true`: the secret is base64url (standard base64 also accepted) and its decoded bytes are the key, as with the identity connection's `secret_base64_encoded`.",
  }),
  GATEWAY_AUTH_AUDIENCE: env.optionalString().meta({
    description:
      "When set, the token's `aud` must equal it (the connection's `gateway_authentication.audience`). Requires `GATEWAY_AUTH_SECRET`.",
  }),
  GATEWAY_AUTH_SUBJECT: env.optionalString().meta({
    description: "When set, the token's `sub` must equal it (the connection's `gateway_authentication.subject`). Requires `GATEWAY_AUTH_SECRET`.",
  }),
  ALLOWED_IPS: z
    .string()
    .default('')
    .transform(splitList)
    .superRefine((entries, ctx) => {
      const bad = invalidRanges(entries);
      if (bad.length > 0) {
        ctx.addIssue({ code: 'custom', message: `not an IPv4/IPv6 address or CIDR range: ${bad.join(', ')}` });
      }
    })
    .meta({
      defaultText: 'unset (any)',
      description:
        'Comma-separated IPv4/IPv6 CIDR ranges or single addresses allowed to call `POST /sms`; others get 403. IPv4 callers seen as `::ffff:a.b.c.d` match IPv4 ranges.',
    }),
  TRUST_PROXY: env.trustProxy().meta({
    description:
      'Express trust-proxy value (`true`, hop count, or addresses/CIDRs such as `loopback, 10.0.0.0/8`): decides which client address `ALLOWED_IPS` checks. Only trust proxies you run, or `X-Forwarded-For` can be forged.',
  }),

  /** Defaulted below: outbox outside production, required in production. */
  SMS_PROVIDER: z
    .preprocess((value) => (value === '' ? undefined : value), z.enum(PROVIDER_NAMES, { message: `must be one of ${PROVIDER_NAMES.join(', ')}` }).optional())
    .meta({
      defaultText: '`outbox` (required in production unless `SMS_ROUTES` has a `default`)',
      description: `One of ${PROVIDER_NAMES.map((name) => `\`${name}\``).join(', ')}: the provider of the default route.`,
    }),
  /** JSON: route key (`+49`, `DE`, `default`) -> provider names, or {providers, sender}. */
  SMS_ROUTES: jsonVariable(RouteTableSchema, '{"+1":{"providers":["twilio"],"sender":"+12025550100"},"DE":["webhook-de","twilio"]}').meta({
    description:
      'JSON: route key (`+<digits>`, a country code such as `DE`, or `default`) to the providers to try in order, or to `{"providers": [...], "sender": "..."}`. See "Routes and failover" in docs/sms-delivery-gateway.md.',
  }),
  /** JSON: extra provider instances, name -> {provider: kind, <that kind's variables>}. */
  SMS_PROVIDER_INSTANCES: jsonVariable(InstancesSchema, '{"webhook-de":{"provider":"webhook","WEBHOOK_URL":"https://sms.example.de/send"}}').meta({
    secret: true,
    description:
      'JSON: more provider instances for routes, name to `{"provider": "<kind>", <that kind\'s variables>}`, e.g. `{"webhook-de": {"provider": "webhook", "WEBHOOK_URL": "https://sms.example.de/send"}}`. Never logged (it holds credentials).',
  }),
  SMS_BREAKER_FAILURES: env
    .positiveInt(5)
    .pipe(z.number().max(1000))
    .meta({ description: "Consecutive failures (no answer, timeout, 5xx) that open a provider's circuit breaker (1..1000)." }),
  SMS_BREAKER_COOLDOWN_MS: env
    .positiveInt(30_000)
    .pipe(z.number().min(100).max(3_600_000))
    .meta({ description: 'How long an open breaker skips its provider before one probe (100..3600000).' }),
  /** The gateway's URL as providers reach it, for delivery receipt callbacks. */
  GATEWAY_PUBLIC_URL: z
    .preprocess((value) => (value === '' ? undefined : value), env.url().optional())
    .transform((url) => url?.replace(/\/+$/, ''))
    .meta({
      description:
        "The gateway's http(s) URL as providers reach it (trailing `/` stripped). Turns delivery receipts on: Twilio's `StatusCallback` and the webhook's `status_callback` point at `{GATEWAY_PUBLIC_URL}/receipts/{provider}/{id}`, and signatures are checked against that URL.",
    }),
  REDIS_URL: env
    .optionalString()
    .pipe(z.url({ protocol: /^rediss?$/, message: 'must be a redis:// or rediss:// URL' }).optional())
    .meta({
      secret: true,
      defaultText: 'unset (in memory)',
      description: '`redis://` or `rediss://` URL: idempotency keys, in-flight markers and message statuses in Redis, shared by replicas; `/readyz` checks it.',
    }),
  REDIS_KEY_PREFIX: z
    .string()
    .min(1)
    .default('smsauth:sms-gateway:')
    .meta({ description: 'Prefix of every Redis key, so one Redis can serve several gateways.' }),
  OUTBOX_CAPACITY: env
    .positiveInt(1000)
    .pipe(z.number().max(100_000))
    .meta({ description: 'Messages the outbox keeps (oldest dropped first); at most 100000.' }),
  OUTBOX_TOKEN: env.optionalString().meta({
    secret: true,
    description:
      'When set, `GET`/`DELETE /outbox/messages` need `Authorization: Bearer <OUTBOX_TOKEN>`, and the `GET /outbox` page needs it as that header, `?token=` or its cookie. In production the outbox read API and page exist only when this is set.',
  }),

  /** Each provider's own variables (TWILIO_*, WEBHOOK_*...), from its definition. */
  ...providerSettingsShape,
});
type Variables = z.output<typeof variablesSchema>;

/** Environment of the sms-delivery-gateway service; parsed once at start. */
export const configSchema = variablesSchema.superRefine(checkCrossFieldRules).transform((config, ctx) => {
  const SMS_PROVIDER = (config.SMS_PROVIDER ?? 'outbox') satisfies ProviderName;
  return { ...config, SMS_PROVIDER, providerInstances: resolveInstances({ ...config, SMS_PROVIDER }, ctx) };
});

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

  // `sms:default` is the same key as `default` (a channel prefix of `sms:` changes nothing).
  const routesHaveDefault = config.SMS_ROUTES?.default !== undefined || config.SMS_ROUTES?.['sms:default'] !== undefined;
  if (config.SMS_PROVIDER === undefined && isProduction(config) && !routesHaveDefault) {
    problem('SMS_PROVIDER', `must be set in production (${PROVIDER_NAMES.join(', ')}), or SMS_ROUTES must have a "default" route`);
  }

  // The kinds configured by their own variables that something uses: their rules apply as "selected".
  const selected = new Map<string, string>();
  if (!routesHaveDefault) selected.set(config.SMS_PROVIDER ?? 'outbox', `SMS_PROVIDER is ${config.SMS_PROVIDER ?? 'outbox'}`);
  const instances = new Set(Object.keys(config.SMS_PROVIDER_INSTANCES ?? {}));
  for (const [key, route] of Object.entries(config.SMS_ROUTES ?? {})) {
    for (const name of Array.isArray(route) ? route : route.providers) {
      if ((PROVIDER_NAMES as readonly string[]).includes(name)) {
        if (!selected.has(name)) selected.set(name, `SMS_ROUTES uses ${name}`);
      } else if (!instances.has(name)) {
        problem('SMS_ROUTES', `route "${key}" names provider "${name}", which is neither ${PROVIDER_NAMES.join(', ')} nor an SMS_PROVIDER_INSTANCES name`);
      }
    }
  }
  checkProviderRules(config, { selected, production: isProduction(config) }, problem);
}

/** Every provider instance a route uses, the default route's first; problems of SMS_PROVIDER_INSTANCES entries refuse the environment. */
function resolveInstances(config: Variables & { SMS_PROVIDER: ProviderName }, ctx: z.RefinementCtx): ProviderInstance[] {
  const problem = (path: string, message: string) =>
    ctx.addIssue({ code: 'custom', path: ['SMS_PROVIDER_INSTANCES'], message: `"${path.split('.')[0]}".${path.split('.').slice(1).join('.')}: ${message}` });
  const configured = new Map<string, ProviderInstance>();
  for (const [name, entry] of Object.entries(config.SMS_PROVIDER_INSTANCES ?? {})) {
    const instance = parseInstance(name, entry, isProduction(config), problem);
    if (instance) configured.set(name, instance);
  }
  const routes = config.SMS_ROUTES ?? {};
  const used = [routes.default === undefined && routes['sms:default'] === undefined ? [config.SMS_PROVIDER] : [], ...Object.values(routes)].flatMap((route) =>
    Array.isArray(route) ? route : 'providers' in route ? route.providers : [],
  );
  return [...new Set(used)].flatMap((name) => {
    if ((PROVIDER_NAMES as readonly string[]).includes(name)) return [instanceFromVariables(name as ProviderName, config)];
    const instance = configured.get(name);
    return instance ? [instance] : [];
  });
}
