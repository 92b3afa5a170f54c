import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { batchedDestination, LOG_BATCH_DELAY_MS } from '../src';

// The default stdout destination hands lines to sonic-boom in batches. Nothing may be lost or
// reordered: every line reaches the destination, in order, at the latest LOG_BATCH_DELAY_MS
// later, at once on flush, and before the process exits however it exits.

function recordingDestination() {
  const writes: string[] = [];
  const flushed: string[] = [];
  return {
    writes,
    flushed,
    destination: {
      write: (text: string) => void writes.push(text),
      flush: (cb?: (err?: Error) => void) => cb?.(),
      flushSync: () => void flushed.push(writes.join('')),
    },
  };
}

describe('batched log destination', () => {
  afterEach(() => jest.useRealTimers());

  it('hands the lines of one burst over together, in order, once the delay has passed', () => {
    jest.useFakeTimers();
    const { writes, destination } = recordingDestination();
    const batched = batchedDestination(destination);
    batched.write('{"n":1}\n');
    batched.write('{"n":2}\n');
    jest.advanceTimersByTime(LOG_BATCH_DELAY_MS - 1);
    expect(writes).toEqual([]);
    batched.write('{"n":3}\n');
    jest.advanceTimersByTime(1);
    expect(writes).toEqual(['{"n":1}\n{"n":2}\n{"n":3}\n']);
    batched.write('{"n":4}\n');
    jest.advanceTimersByTime(LOG_BATCH_DELAY_MS);
    expect(writes).toEqual(['{"n":1}\n{"n":2}\n{"n":3}\n', '{"n":4}\n']);
  });

  it('writes a large batch at once, without waiting', () => {
    jest.useFakeTimers();
    const { writes, destination } = recordingDestination();
    const batched = batchedDestination(destination);
    const line = `${JSON.stringify({ text: 'x'.repeat(1000) })}\n`;
    for (let i = 0; i < 70; i += 1) batched.write(line);
    expect(writes.join('')).toBe(line.repeat(writes.join('').length / line.length));
    expect(writes.length).toBeGreaterThan(0);
    jest.advanceTimersByTime(LOG_BATCH_DELAY_MS);
    expect(writes.join('')).toBe(line.repeat(70));
  });

  it('writes what is pending when flushed', () => {
    const { writes, destination } = recordingDestination();
    const batched = batchedDestination(destination) as unknown as { write(line: string): void; flush(cb: () => void): void };
    batched.write('{"n":1}\n');
    const done = jest.fn();
    batched.flush(done);
    expect(writes).toEqual(['{"n":1}\n']);
    expect(done).toHaveBeenCalled();
  });

  it.each(['exit', 'throw', 'drain'])('loses no line when the process ends at once (%s)', async (ending) => {
    const child = spawn(process.execPath, ['-C', '@smsauth/source', '-r', join(__dirname, 'fixtures', 'ts-register.js'), join(__dirname, 'fixtures', 'log-then-exit.ts'), ending], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    await new Promise((resolve) => child.on('close', resolve));
    const lines = stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { line: number; msg: string });
    expect(lines.map((entry) => [entry.line, entry.msg])).toEqual([
      [1, 'before the end'],
      [2, 'before the end'],
      [3, 'before the end'],
    ]);
  });
});
