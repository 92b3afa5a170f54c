import { Writable } from 'node:stream';
import request from 'supertest';
import { createLogger, createServiceApp, defaultLogFormat, lineRedactor, type LogFormat } from '../src';
import { capturingLogger } from './helpers';

function parsedLines(text: string): Array<Record<string, unknown>> {
  return text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('log redaction', () => {
  it('redacts a named field at any depth, inside arrays and in child bindings', () => {
    const { logger, lines } = capturingLogger(['phone_pin']);
    logger.child({ secret: 'sekret-binding' }).info(
      {
        password: 'sekret-top',
        a: { b: { c: { d: { e: { f: { otp: 'sekret-deep' } } } } } },
        list: [{ client_secret: 'sekret-in-array' }, 'kept'],
        'set-cookie': ['sekret-cookie'],
        phone_pin: { nested: 'sekret-extra-field' },
        visible: 'plain-value',
      },
      'with secrets',
    );
    const output = lines();
    for (const secret of ['sekret-binding', 'sekret-top', 'sekret-deep', 'sekret-in-array', 'sekret-cookie', 'sekret-extra-field']) {
      expect(output).not.toContain(secret);
    }
    expect(parsedLines(output)[0]).toMatchObject({
      secret: '[REDACTED]',
      password: '[REDACTED]',
      a: { b: { c: { d: { e: { f: { otp: '[REDACTED]' } } } } } },
      list: [{ client_secret: '[REDACTED]' }, 'kept'],
      'set-cookie': '[REDACTED]',
      phone_pin: '[REDACTED]',
      visible: 'plain-value',
      msg: 'with secrets',
    });
  });

  it('leaves a line without any named field exactly as pino wrote it', () => {
    const redact = lineRedactor(['password', 'otp']);
    const line = '{"level":30,"msg":"user typed \\"password\\": no","passwords":1,"my_otp":2}\n';
    expect(redact(line)).toBe(line);
  });

  it('withholds a line it cannot parse instead of writing it unredacted', () => {
    const redact = lineRedactor(['password']);
    const out = redact('{"password":"sekret" broken\n');
    expect(out).not.toContain('sekret');
    expect(JSON.parse(out)).toMatchObject({ level: 50, msg: 'log line withheld: it could not be redacted' });
  });

  it('keeps a cookie the service sets out of the access log line', async () => {
    const { logger, lines } = capturingLogger();
    const { app } = createServiceApp({
      name: 'test',
      logger,
      routes: (a) => a.get('/login', (_req, res) => void res.cookie('session', 'sekret-session').json({ ok: true })),
    });
    await request(app).get('/login').expect(200);
    const access = parsedLines(lines()).find((line) => line.msg === 'request completed');
    expect(access?.res).toEqual({ statusCode: 200 });
    expect(lines()).not.toContain('sekret-session');
  });
});

/** A logger in the given format whose output the test reads back. */
function loggerWritingTo(format?: LogFormat) {
  let output = '';
  const destination = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      output += String(chunk);
      done();
    },
  });
  const logger = createLogger({ name: 'format-test', ...(format ? { format } : {}), destination });
  return { logger, output: () => output };
}

describe('log format', () => {
  it('is JSON by default whenever stdout is not a terminal, and in production', () => {
    expect(defaultLogFormat({ isTTY: false, nodeEnv: 'development' })).toBe('json');
    expect(defaultLogFormat({ isTTY: false, nodeEnv: undefined })).toBe('json');
    expect(defaultLogFormat({ isTTY: true, nodeEnv: 'production' })).toBe('json');
  });

  it('is readable by default on a terminal outside production', () => {
    expect(defaultLogFormat({ isTTY: true, nodeEnv: 'development' })).toBe('pretty');
    expect(defaultLogFormat({ isTTY: true, nodeEnv: undefined })).toBe('pretty');
  });

  it('writes JSON lines into a destination unless asked otherwise', () => {
    const { logger, output } = loggerWritingTo();
    logger.info({ port: 4000 }, 'listening');
    expect(parsedLines(output())[0]).toMatchObject({ msg: 'listening', port: 4000, service: 'format-test' });
  });

  it('writes one readable line per event when asked for pretty', () => {
    const { logger, output } = loggerWritingTo('pretty');
    logger.info({ port: 4000, req: { method: 'GET' } }, 'listening');
    logger.warn('second event');
    const lines = output().split('\n').filter((line) => line.length > 0);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('listening');
    expect(lines[0]).toContain('INFO');
    expect(lines[0]).toContain('4000');
    expect(lines[0]).not.toMatch(/^\s*\{/);
    expect(lines[1]).toContain('second event');
    expect(lines[1]).toContain('WARN');
  });

  it('redacts in pretty mode too: a secret never reaches the readable line', () => {
    const { logger, output } = loggerWritingTo('pretty');
    logger.child({ secret: 'sekret-binding' }).info({ password: 'sekret-top', nested: { client_secret: 'sekret-deep' }, visible: 'plain-value' }, 'with secrets');
    const text = output();
    for (const secret of ['sekret-binding', 'sekret-top', 'sekret-deep']) expect(text).not.toContain(secret);
    expect(text).toContain('[REDACTED]');
    expect(text).toContain('plain-value');
    expect(text).toContain('with secrets');
  });
});
