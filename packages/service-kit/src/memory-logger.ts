import { Writable } from 'node:stream';
import { createLogger, type Logger } from './logger';

export interface MemoryLogger {
  logger: Logger;
  /** Every line written so far, raw. */
  lines(): string[];
  /** Every line written so far, parsed. */
  entries(): Array<Record<string, unknown>>;
  /** Everything written so far: for "never appears in any log line" assertions. */
  text(): string;
}

/** A real logger (the kit's redaction included) writing into memory, for tests that read their logs. */
export function createMemoryLogger(options: { name?: string; level?: string; redact?: readonly string[] } = {}): MemoryLogger {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter((line) => line.length > 0));
      done();
    },
  });
  const logger = createLogger({ name: options.name ?? 'test', level: options.level ?? 'debug', redact: options.redact, destination });
  return {
    logger,
    lines: () => [...lines],
    entries: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
    text: () => lines.join('\n'),
  };
}
