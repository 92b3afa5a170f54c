import pino, { type DestinationStream, type Logger } from 'pino';

/** Field names whose values never reach a log line, wherever they appear. */
export const DEFAULT_REDACTED_FIELDS = [
  'authorization',
  'cookie',
  'set-cookie',
  'password',
  'otp',
  'client_secret',
  'secret',
  'access_token',
  'id_token',
  'refresh_token',
];

/** Builds pino redact paths for a field at the top level and up to four levels deep. */
export function redactPaths(fields: readonly string[]): string[] {
  const paths: string[] = [];
  for (const field of fields) {
    const key = /^[A-Za-z_$][\w$]*$/.test(field) ? `.${field}` : `["${field}"]`;
    const bare = key.startsWith('.') ? key.slice(1) : key;
    paths.push(bare, `*${key}`, `*.*${key}`, `*.*.*${key}`, `*.*.*.*${key}`);
  }
  return paths;
}

export interface LoggerOptions {
  name: string;
  level?: string;
  /** Extra field names to redact besides the defaults. */
  redact?: readonly string[];
  /** Where lines go; tests pass a stream to capture them. Defaults to stdout. */
  destination?: DestinationStream;
}

export function createLogger(options: LoggerOptions): Logger {
  const fields = [...DEFAULT_REDACTED_FIELDS, ...(options.redact ?? [])];
  return pino(
    {
      name: options.name,
      level: options.level ?? 'info',
      redact: { paths: redactPaths(fields), censor: '[REDACTED]' },
      base: { service: options.name },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    options.destination,
  );
}

export type { Logger } from 'pino';
