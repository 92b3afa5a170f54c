import { z } from 'zod';

/** Thrown when the environment does not satisfy a service's config schema. */
export class ConfigError extends Error {
  constructor(public readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parses `env` with the service's schema; the error names every bad variable and why. */
export function loadConfig<S extends z.ZodType>(
  schema: S,
  env: Record<string, string | undefined> = process.env,
): z.output<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const variable = issue.path.length > 0 ? issue.path.join('.') : '(environment)';
    return `${variable}: ${issue.message}`;
  });
  throw new ConfigError(problems);
}

/** For main.ts: prints the problems and exits 1 instead of starting half-configured. */
export function loadConfigOrExit<S extends z.ZodType>(
  schema: S,
  env: Record<string, string | undefined> = process.env,
): z.output<S> {
  try {
    return loadConfig(schema, env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}

/** Reusable env field parsers: env values are strings, these turn them into typed values. */
export const env = {
  port: (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback).meta({ description: 'Port to listen on.' }),
  host: () => z.string().min(1).default('0.0.0.0').meta({ description: 'Address to bind.' }),
  logLevel: () =>
    z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
      .default('info')
      .meta({ description: '`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`.' }),
  /** LOG_FORMAT: `json` or `pretty`; unset means pretty on a terminal outside production, JSON elsewhere (defaultLogFormat). */
  logFormat: () =>
    z
      .preprocess((v) => (v === '' ? undefined : v), z.enum(['json', 'pretty'], { message: 'must be json or pretty' }).optional())
      .meta({
        defaultText: '`pretty` on a terminal outside production, else `json`',
        description:
          '`json` (one JSON object per line) or `pretty` (one readable line per event, pino-pretty). Secrets are redacted in both. `pnpm start` passes `pretty` to the services when its own output is a terminal, unless `LOG_FORMAT` is set.',
      }),
  nodeEnv: () => z.string().default('development'),
  /** API_DOCS: true or false; unset (or empty) leaves it to apiDocsEnabled: on unless NODE_ENV=production. */
  apiDocs: () =>
    z.preprocess(
      (v) => (v === '' ? undefined : v),
      z
        .enum(['true', 'false'], { message: 'must be true or false' })
        .optional()
        .transform((v) => (v === undefined ? undefined : v === 'true')),
    ).meta({
      defaultText: '`true`, except `false` when `NODE_ENV=production`',
      description: '`true` or `false`: serve the API reference page `GET /docs` (Swagger UI from the `swagger-ui-dist` package, under its own strict CSP).',
    }),
  boolean: (fallback: boolean) =>
    z
      .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'must be true or false' })
      .default(fallback ? 'true' : 'false')
      .transform((v) => v === 'true' || v === '1' || v === 'yes'),
  positiveInt: (fallback: number) => z.coerce.number().int().positive().default(fallback),
  /** WEB_CONCURRENCY: worker processes sharing the port (1 = no cluster). */
  webConcurrency: () =>
    z.coerce
      .number({ message: 'must be a whole number from 1 to 64' })
      .int({ message: 'must be a whole number from 1 to 64' })
      .min(1, { message: 'must be a whole number from 1 to 64' })
      .max(64, { message: 'must be a whole number from 1 to 64' })
      .default(1),
  /** Express's trust-proxy setting: true/false, a hop count, or a list of addresses/CIDRs. */
  trustProxy: () =>
    z
      .string()
      .default('false')
      .transform((v): boolean | number | string => {
        if (v === 'true') return true;
        if (v === 'false' || v === '') return false;
        if (/^\d+$/.test(v)) return Number(v);
        return v;
      }),
  /** A string that may be absent; an empty value counts as absent (`VAR=` in a compose file). */
  optionalString: () =>
    z
      .string()
      .optional()
      .transform((v) => (v === '' ? undefined : v)),
  url: () => z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }),
};
