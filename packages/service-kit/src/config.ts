import { closeSync, openSync, readSync } from 'node:fs';
import { z } from 'zod';

/** Thrown when the environment does not satisfy a service's config schema. */
export class ConfigError extends Error {
  constructor(public readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Introspectable = z.ZodType & { meta(): Record<string, unknown> | undefined; _zod: { def: { type: string; in?: unknown } } };

/** The object of variables under a service's schema (its refinements and transforms unwrapped); undefined when it is not one. */
export function variablesShapeOf(schema: z.ZodType): Record<string, z.ZodType> | undefined {
  let current = schema as Introspectable;
  while (current._zod.def.type === 'pipe') current = current._zod.def.in as Introspectable;
  return (current as unknown as { shape?: Record<string, z.ZodType> }).shape;
}

/**
 * The variables `schema` marks as secrets (`.meta({ secret: true, ... })`): loadConfig also reads
 * each from the file `<NAME>_FILE` names, the configuration reference says so, and runService
 * keeps fields of those names out of log lines.
 */
export function secretVariablesOf(schema: z.ZodType): string[] {
  const shape = variablesShapeOf(schema) ?? {};
  return Object.entries(shape)
    .filter(([, field]) => (field as Introspectable).meta()?.secret === true)
    .map(([name]) => name);
}

/** The suffix of the variable that names a file holding a secret (the Docker and Kubernetes secrets convention). */
export const SECRET_FILE_SUFFIX = '_FILE';

/** A secret file larger than this is refused: it is not a secret (a wrong path, a device). */
const MAX_SECRET_FILE_BYTES = 1024 * 1024;

const READ_FAILURES: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'it is a directory',
  ELOOP: 'too many symbolic links',
  ENOTDIR: 'a part of the path is not a directory',
};

/**
 * A secret file's text, its trailing line breaks removed (Docker secrets and files written with
 * `echo` end with one). Its problem never quotes the content: only the path and why.
 */
function readSecretFile(path: string): { value: string } | { problem: string } {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const buffer = Buffer.alloc(MAX_SECRET_FILE_BYTES + 1);
    let length = 0;
    for (;;) {
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
      if (length > MAX_SECRET_FILE_BYTES) return { problem: `${path} is larger than ${MAX_SECRET_FILE_BYTES} bytes: not a secret file` };
    }
    const value = buffer.toString('utf8', 0, length).replace(/(\r?\n)+$/, '');
    if (value === '') return { problem: `${path} is empty` };
    return { value };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    return { problem: `cannot read ${path}: ${READ_FAILURES[code] ?? 'read failed'} (${code})` };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** An empty value counts as absent, as everywhere in the environment (`VAR=` in a compose file). */
const isSet = (value: string | undefined): value is string => value !== undefined && value !== '';

/**
 * The environment with each secret `<NAME>_FILE` names read into `<NAME>`. `sources` maps each
 * variable read from a file to its `_FILE` variable (for the problems that name it); `reported`
 * holds the variables whose problem (both set, file unreadable) is already in `problems`.
 */
function resolveSecretFiles(
  schema: z.ZodType,
  env: Record<string, string | undefined>,
): { env: Record<string, string | undefined>; problems: string[]; sources: Map<string, string>; reported: Set<string> } {
  const resolved = { ...env };
  const problems: string[] = [];
  const sources = new Map<string, string>();
  const reported = new Set<string>();
  const shape = variablesShapeOf(schema) ?? {};
  for (const name of secretVariablesOf(schema)) {
    const fileVariable = `${name}${SECRET_FILE_SUFFIX}`;
    if (fileVariable in shape) throw new Error(`${name} is a secret, so ${fileVariable} names its file; the schema may not declare ${fileVariable} itself`);
    const path = env[fileVariable];
    if (!isSet(path)) continue;
    if (isSet(env[name])) {
      problems.push(`${name}, ${fileVariable}: both are set; set ${name} to the value or ${fileVariable} to a file holding it, not both`);
      reported.add(name);
      continue;
    }
    const read = readSecretFile(path);
    if ('problem' in read) {
      problems.push(`${fileVariable}: ${read.problem}`);
      reported.add(name);
      delete resolved[name];
      continue;
    }
    resolved[name] = read.value;
    sources.set(name, fileVariable);
  }
  return { env: resolved, problems, sources, reported };
}

/**
 * Parses `env` with the service's schema; the error names every bad variable and why. A variable
 * the schema marks secret may instead be in the file `<NAME>_FILE` names (see secretVariablesOf);
 * a problem with such a value names both variables, never the value.
 */
export function loadConfig<S extends z.ZodType>(
  schema: S,
  env: Record<string, string | undefined> = process.env,
): z.output<S> {
  const secrets = resolveSecretFiles(schema, env);
  const result = schema.safeParse(secrets.env);
  if (result.success && secrets.problems.length === 0) return result.data;
  const problems = [...secrets.problems];
  for (const issue of result.success ? [] : result.error.issues) {
    const first = issue.path.length > 0 ? String(issue.path[0]) : undefined;
    // Its own problem (both set, file unreadable) says what is wrong; what follows from that is noise.
    if (first !== undefined && secrets.reported.has(first)) continue;
    const source = first !== undefined ? secrets.sources.get(first) : undefined;
    const variable = issue.path.length > 0 ? issue.path.join('.') : '(environment)';
    problems.push(`${variable}${source ? ` (read from ${source})` : ''}: ${issue.message}`);
  }
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
