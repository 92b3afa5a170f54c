import { tracingChannel } from 'node:diagnostics_channel';
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
      timestamp: isoTime,
    },
    format === 'pretty' ? prettyDestination(destination, options.destination ? false : process.stdout.isTTY === true) : destination,
  );
}

let isoSecond = Number.NaN;
let isoSecondPrefix = '';

/**
 * pino's `isoTime` (`,"time":"2026-11-25T16:15:27.604Z"`) without a Date and its formatting per
 * line: the text up to the second is made once a second, the milliseconds appended.
 */
export function isoTime(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== isoSecond) {
    isoSecond = second;
    isoSecondPrefix = `,"time":"${new Date(second * 1000).toISOString().slice(0, -4)}`;
  }
  const millis = now - second * 1000;
  return `${isoSecondPrefix}${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}Z"`;
}

/**
 * Turns each finished JSON line into one readable line, in this process and synchronously, on
 * its way to `destination`. It sits after pino's streamWrite hook, so what it formats is the
 * line the redactor already scrubbed: pretty mode shows no more than JSON mode does.
 */
function prettyDestination(destination: DestinationStream, colorize: boolean): DestinationStream {
  // pino-pretty writes the time and the level; prettyEvent the rest, and hideObject drops the
  // JSON of the remaining fields that pino-pretty would otherwise append to every line.
  const prettify = prettyFactory({
    colorize,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname,name',
    hideObject: true,
    messageFormat: (log, messageKey) => prettyEvent(log, messageKey),
  });
  const flushable = destination as DestinationStream & { flush?: (cb?: (err?: Error) => void) => void };
  return {
    // With hideObject, pino-pretty leaves the line without its end.
    write: (line: string) => {
      const pretty = prettify(line);
      destination.write(pretty.endsWith('\n') ? pretty : `${pretty}\n`);
    },
    flush: (cb?: (err?: Error) => void) => (flushable.flush ? flushable.flush(cb) : cb?.()),
  } as DestinationStream;
}

/** The fields every line carries that the readable line shows in its own place, or not at all. */
const PRETTY_OWN_FIELDS = new Set(['level', 'time', 'pid', 'hostname', 'service', 'name', 'msg']);

/** A value as `key=value` shows it: plain when it has no spaces or quotes, else as JSON. */
function prettyValue(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  if (value instanceof Object) return JSON.stringify(value);
  return String(value);
}

type PrettyAccessLine = { req?: { id?: string; method?: string; url?: string }; res?: { statusCode?: number }; responseTime?: number };

/**
 * One event as a person reads it after the time and level: the service, then for an access
 * line `GET /authorize 200 12ms  req=<id>`, for any other line its message and its fields as
 * `key=value` (an error as its type and message; its stack stays in the JSON format).
 */
export function prettyEvent(log: Record<string, unknown>, messageKey = 'msg'): string {
  const service = typeof log.service === 'string' ? `${log.service}  ` : '';
  if (typeof log.responseTime === 'number' && log.res !== undefined) {
    const { req = {}, res = {}, responseTime } = log as PrettyAccessLine;
    const aborted = log[messageKey] === 'request aborted' ? ' aborted' : '';
    return `${service}${req.method ?? '-'} ${req.url ?? '-'} ${res.statusCode ?? '-'} ${responseTime}ms${aborted}${req.id ? `  req=${req.id}` : ''}`;
  }
  const parts: string[] = [];
  for (const [key, value] of Object.entries(log)) {
    if (PRETTY_OWN_FIELDS.has(key) || key === messageKey || value === undefined) continue;
    if (key === 'err' && value instanceof Object) {
      const err = value as { type?: string; message?: string };
      parts.push(`err=${prettyValue(`${err.type ?? 'Error'}: ${err.message ?? ''}`)}`);
    } else if (key === 'req' && value instanceof Object && typeof (value as { id?: unknown }).id === 'string') {
      parts.push(`req=${(value as { id: string }).id}`);
    } else {
      parts.push(`${key}=${prettyValue(value)}`);
    }
  }
  const message = typeof log[messageKey] === 'string' ? (log[messageKey] as string) : '';
  return `${service}${message}${parts.length > 0 ? `  ${parts.join(' ')}` : ''}`;
}

/**
 * pino's default stdout is synchronous: one write(2) per line, and the event loop stalls
 * whenever a slow reader (a pipe to a log collector) lets the pipe fill. Asynchronous writes
 * (sonic-boom) do not stall, and the lines are handed to it in batches (batchedDestination).
 */
function stdoutDestination(): DestinationStream {
  return batchedDestination(pino.destination({ dest: 1, sync: false }));
}

/** How long a line may wait to be written with the lines that follow it. */
export const LOG_BATCH_DELAY_MS = 10;
/** A batch this long is written at once. */
const LOG_BATCH_MAX_CHARS = 64 * 1024;

type SonicBoomLike = DestinationStream & { flush(cb?: (err?: Error) => void): void; flushSync(): void };

const exitWrites = new Set<() => void>();

/** One `exit` listener for every batched destination, however many loggers a process makes. */
function onExit(write: () => void): void {
  if (exitWrites.size === 0) {
    process.once('exit', () => {
      for (const pendingWrite of exitWrites) {
        try {
          pendingWrite();
        } catch {
          // A destination already closed (or never opened) has nothing more to write.
        }
      }
    });
  }
  exitWrites.add(write);
}

/**
 * Collects lines and hands them to `destination` together: at most LOG_BATCH_DELAY_MS after
 * the first of a batch, or at once when a batch reaches LOG_BATCH_MAX_CHARS. sonic-boom writes
 * whatever it is given with one write(2) on libuv's thread pool; handed one line at a time, a
 * busy service paid a thread-pool job (and its wake-ups) for nearly every access line, since a
 * write to a file or pipe is usually done before the next line comes. Lines keep their order
 * and their text (each carries the time it was logged); `flush` and the process's exit (a
 * crash's `process.exit` included) write what is pending first.
 */
export function batchedDestination(destination: SonicBoomLike): DestinationStream {
  let pending = '';
  let timer: NodeJS.Timeout | undefined;
  const writePending = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (pending === '') return;
    const batch = pending;
    pending = '';
    destination.write(batch);
  };
  onExit(() => {
    writePending();
    destination.flushSync();
  });
  return {
    write(line: string) {
      pending += line;
      if (pending.length >= LOG_BATCH_MAX_CHARS) writePending();
      else timer ??= setTimeout(writePending, LOG_BATCH_DELAY_MS);
    },
    flush(cb?: (err?: Error) => void) {
      writePending();
      destination.flush(cb);
    },
  } as DestinationStream;
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

/** The fields of one access line (see access-log.ts); `undefined` members are left out, as pino leaves them out. */
export type AccessLineWriter = (
  level: 'debug' | 'info' | 'warn' | 'error',
  message: string,
  id: string | undefined,
  method: string | undefined,
  url: string,
  remoteAddress: string | undefined,
  statusCode: number,
  responseTime: number,
) => void;

const {
  chindingsSym, endSym, formattersSym, hooksSym, lsCacheSym, messageKeySym, mixinSym, msgPrefixSym,
  needsMetadataGsym, nestedKeySym, serializersSym, streamSym, stringifiersSym, timeSym, wildcardFirstSym,
} = pino.symbols as unknown as Record<
  | 'chindingsSym' | 'endSym' | 'formattersSym' | 'hooksSym' | 'lsCacheSym' | 'messageKeySym' | 'mixinSym' | 'msgPrefixSym'
  | 'needsMetadataGsym' | 'nestedKeySym' | 'serializersSym' | 'streamSym' | 'stringifiersSym' | 'timeSym' | 'wildcardFirstSym',
  symbol
>;

/** pino's own tracing of the lines it serialises: while anyone listens, lines go through pino. */
const pinoAsJsonTracing = tracingChannel('pino_asJson');

/** The fields pino would run through a serializer or stringifier if one were set for them. */
const ACCESS_LINE_KEYS = ['req', 'res', 'responseTime', 'msg', 'err'];

type PinoInternals = Record<symbol, unknown>;

/** Whether pino, given `{req, res, responseTime}` and a message, would write exactly the line accessLineWriter builds. */
function serialisesPlainly(logger: Logger): boolean {
  const internals = logger as unknown as PinoInternals;
  const serializers = internals[serializersSym] as Record<string, unknown>;
  const stringifiers = internals[stringifiersSym] as Record<string | symbol, unknown>;
  const formatters = internals[formattersSym] as { log?: unknown };
  const stream = internals[streamSym] as Record<symbol, unknown>;
  return (
    !internals[mixinSym] &&
    !formatters.log &&
    !internals[nestedKeySym] &&
    !internals[msgPrefixSym] &&
    internals[messageKeySym] === 'msg' &&
    !stringifiers[wildcardFirstSym] &&
    ACCESS_LINE_KEYS.every((key) => key === 'err' || (!serializers[key] && !stringifiers[key])) &&
    stream[needsMetadataGsym] !== true
  );
}

const jsonString = (value: string) => JSON.stringify(value);

/**
 * Writes access lines without building an object for pino to serialise: the constant parts of
 * the line are strings made once, the variable ones are written as JSON strings and numbers
 * straight into it. The result is byte for byte the line `logger[level]({ req: { id, method,
 * url, remoteAddress }, res: { statusCode }, responseTime }, message)` writes (the level, the
 * time, the logger's bindings, the members in that order, the message), and it goes through
 * the same redaction hook and to the same stream. For a logger configured in a way this does
 * not reproduce (serializers, a mixin, formatters, ...) it hands the object to pino instead.
 */
export function accessLineWriter(logger: Logger): AccessLineWriter {
  const internals = logger as unknown as PinoInternals;
  const plain = serialisesPlainly(logger);
  const messages = new Map<string, string>();
  const messagePart = (message: string) => {
    let part = messages.get(message);
    if (part === undefined) messages.set(message, (part = `,"msg":${jsonString(message)}`));
    return part;
  };
  return (level, message, id, method, url, remoteAddress, statusCode, responseTime) => {
    if (!plain || pinoAsJsonTracing.hasSubscribers) {
      logger[level]({ req: { id, method, url, remoteAddress }, res: { statusCode }, responseTime }, message);
      return;
    }
    const levelValue = logger.levels.values[level] as number;
    const time = (internals[timeSym] as () => string)();
    let req = id === undefined ? '' : `"id":${jsonString(id)}`;
    if (method !== undefined) req += `${req ? ',' : ''}"method":${jsonString(method)}`;
    req += `${req ? ',' : ''}"url":${jsonString(url)}`;
    if (remoteAddress !== undefined) req += `,"remoteAddress":${jsonString(remoteAddress)}`;
    const line =
      `${(internals[lsCacheSym] as Record<number, string>)[levelValue]}${time}${internals[chindingsSym] as string}` +
      `,"req":{${req}},"res":{"statusCode":${Number.isFinite(statusCode) ? statusCode : null}},"responseTime":${Number.isFinite(responseTime) ? responseTime : null}` +
      `${messagePart(message)}${internals[endSym] as string}`;
    const hook = (internals[hooksSym] as { streamWrite?: (line: string) => string }).streamWrite;
    (internals[streamSym] as DestinationStream).write(hook ? hook(line) : line);
  };
}

export type { Logger } from 'pino';
