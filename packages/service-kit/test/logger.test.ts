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
  const logger = createLogger({ name: 'format-test', ...(format ? { format } : {}), destination, level: 'info' });
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

  it('writes a few requests of an app as one short line each: no asset lines at info, no JSON tail', async () => {
    const { logger, output } = loggerWritingTo('pretty');
    const { app } = createServiceApp({
      name: 'format-test',
      logger,
      debugPaths: ['/authorize/login.css'],
      routes: (a) => {
        a.get('/authorize', (req, res) => {
          req.log.info({ connection: 'sms', country: 'ES' }, 'login page shown');
          res.send('<form></form>');
        });
        a.get('/authorize/login.css', (_req, res) => void res.type('css').send('body{}'));
        a.post('/passwordless/start', (_req, res) => void res.status(400).json({ error: 'bad.phone_number' }));
      },
    });
    await request(app).get('/authorize').set('x-request-id', 'abc').expect(200);
    await request(app).get('/authorize/login.css').expect(200);
    await request(app).get('/docs').expect(404);
    await request(app).post('/passwordless/start').set('x-request-id', 'def').expect(400);
    const lines = output().split('\n').filter((line) => line.length > 0);
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: format-test {2}login page shown {2}req=abc connection=sms country=ES$/);
    expect(lines[1]).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: format-test {2}GET \/authorize 200 \d+ms {2}req=abc$/);
    expect(lines[2]).toMatch(/WARN: format-test {2}GET \/docs 404 \d+ms {2}req=\S+$/);
    expect(lines[3]).toMatch(/WARN: format-test {2}POST \/passwordless\/start 400 \d+ms {2}req=def$/);
    expect(lines.filter((line) => line.includes('login.css'))).toEqual([]);
    for (const line of lines) expect(line).not.toContain('{');
  });

  it('shows an error as its type and message on the one line', () => {
    const { logger, output } = loggerWritingTo('pretty');
    logger.error({ err: new TypeError('no such provider') }, 'delivery failed');
    const lines = output().split('\n').filter((line) => line.length > 0);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('delivery failed  err="TypeError: no such provider"');
  });
});
