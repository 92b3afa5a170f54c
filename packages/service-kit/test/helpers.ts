import { createMemoryLogger, type Logger } from '../src';

/** A logger whose lines the test can read back. */
export function capturingLogger(redact: string[] = []): { logger: Logger; lines: () => string } {
  const { logger, text } = createMemoryLogger({ redact });
  return { logger, lines: text };
}
