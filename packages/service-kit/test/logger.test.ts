import request from 'supertest';
import { createServiceApp, lineRedactor } from '../src';
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
