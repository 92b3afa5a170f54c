import { Writable } from 'node:stream';
import { createLogger, type Logger } from '@smsauth/service-kit';

export interface CapturedLogs {
  logger: Logger;
  /** Every line written so far, parsed. */
  entries(): Array<Record<string, unknown>>;
  /** Everything written so far, raw: for "never appears in any log line" assertions. */
  text(): string;
}

/** A real pino logger (kit defaults, no extra redaction) writing into memory. */
export function captureLogs(): CapturedLogs {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(...chunk.toString('utf8').split('\n').filter((line) => line.length > 0));
      callback();
    },
  });
  const logger = createLogger({ name: 'sms-delivery-gateway', level: 'debug', destination });
  return {
    logger,
    entries: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
    text: () => lines.join('\n'),
  };
}
