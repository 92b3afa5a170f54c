import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../src';

/** A logger whose lines the test can read back. */
export function capturingLogger(redact: string[] = []): { logger: Logger; lines: () => string } {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  const logger = createLogger({ name: 'test', level: 'debug', redact, destination });
  return { logger, lines: () => chunks.join('') };
}
