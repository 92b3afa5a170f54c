import pino, { type DestinationStream, type Logger } from 'pino';
import { prettyFactory } from 'pino-pretty';

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

export interface LoggerOptions {
  name: string;
  level?: string;
  /** Extra field names to redact besides the defaults. */
  redact?: readonly string[];
  /** Where lines go; tests pass a stream to capture them. Defaults to stdout, written asynchronously. */
  destination?: DestinationStream;
  /**
   * `json` (one JSON object per line) or `pretty` (one readable line per event, for a person
   * at a terminal). Default: defaultLogFormat() when writing to stdout, `json` into a destination.
   */
  format?: LogFormat;
}

export type LogFormat = 'json' | 'pretty';

/**
 * Readable lines only where a person reads them: stdout is a terminal and this is not
 * production. Everywhere else (pipes, files, log collectors, containers) JSON.
 */
export function defaultLogFormat(context: { isTTY?: boolean; nodeEnv?: string | undefined } = {}): LogFormat {
  const isTTY = context.isTTY ?? process.stdout.isTTY === true;
  const nodeEnv = 'nodeEnv' in context ? context.nodeEnv : process.env.NODE_ENV;
  return isTTY && nodeEnv !== 'production' ? 'pretty' : 'json';
}

export function createLogger(options: LoggerOptions): Logger {
  const fields = [...DEFAULT_REDACTED_FIELDS, ...(options.redact ?? [])];
  const format = options.format ?? (options.destination ? 'json' : defaultLogFormat());
  const destination = options.destination ?? stdoutDestination();
  return pino(
    {
      name: options.name,
      level: options.level ?? 'info',
      // Redaction runs on the finished line (see lineRedactor), not through pino's `redact`
      // paths: with the field-at-any-depth paths those cost ~70 µs per line, a fifth of the
      // airport API's CPU under load; the line check costs ~1 µs when no field is present.
      hooks: { streamWrite: lineRedactor(fields) },
      base: { service: options.name },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    format === 'pretty' ? prettyDestination(destination, options.destination ? false : process.stdout.isTTY === true) : destination,
  );
}

/**
 * Turns each finished JSON line into one readable line, in this process and synchronously, on
 * its way to `destination`. It sits after pino's streamWrite hook, so what it formats is the
 * line the redactor already scrubbed: pretty mode shows no more than JSON mode does.
 */
function prettyDestination(destination: DestinationStream, colorize: boolean): DestinationStream {
  const prettify = prettyFactory({ colorize, singleLine: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service' });
  const flushable = destination as DestinationStream & { flush?: (cb?: (err?: Error) => void) => void };
  return {
    write: (line: string) => destination.write(prettify(line)),
    flush: (cb?: (err?: Error) => void) => (flushable.flush ? flushable.flush(cb) : cb?.()),
  } as DestinationStream;
}

/**
 * pino's default stdout is synchronous: one write(2) per line, and the event loop stalls
 * whenever a slow reader (a pipe to a log collector) lets the pipe fill. Asynchronous writes
 * batch the lines that pile up while a write is in flight; pino flushes them on exit.
 */
function stdoutDestination(): DestinationStream {
  return pino.destination({ dest: 1, sync: false });
}

export const REDACTION_CENSOR = '[REDACTED]';

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Redacts, in a finished JSON log line, the value of every key named in `fields` at any depth
 * (objects inside arrays too). A line is parsed only when one of those names occurs as a key:
 * `"name":` cannot occur inside a JSON string, where the quotes are escaped. A line that
 * cannot be parsed is replaced by a notice rather than written unredacted.
 */
export function lineRedactor(fields: readonly string[]): (line: string) => string {
  const names = new Set(fields);
  const keyPattern = new RegExp(`"(?:${fields.map(escapeRegExp).join('|')})":`);
  const scrub = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(scrub);
    if (value === null || typeof value !== 'object') return value;
    const copy: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) copy[key] = names.has(key) ? REDACTION_CENSOR : scrub(inner);
    return copy;
  };
  return (line) => {
    if (!keyPattern.test(line)) return line;
    try {
      return `${JSON.stringify(scrub(JSON.parse(line)))}\n`;
    } catch {
      return `${JSON.stringify({ level: 50, time: new Date().toISOString(), msg: 'log line withheld: it could not be redacted' })}\n`;
    }
  };
}

export type { Logger } from 'pino';
