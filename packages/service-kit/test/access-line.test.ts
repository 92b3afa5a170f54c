import { Writable } from 'node:stream';
import pino from 'pino';
import request from 'supertest';
import { accessLineWriter, createLogger, createServiceApp, isoTime, type LogFormat, type Logger } from '../src';

// The access line is written as JSON text by accessLineWriter instead of handing pino an
// object. These tests hold it to the line pino itself writes for the same fields: byte for byte
// apart from the time (read from the clock at each write), through the same redaction hook.

function capture(options: { redact?: string[]; format?: LogFormat } = {}) {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  const logger = createLogger({ name: 'kit-test', level: 'info', destination, ...options });
  return { logger, take: () => chunks.splice(0).join('') };
}

const TIME = /"time":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"/;
const withoutTime = (line: string) => {
  expect(line).toMatch(TIME);
  return line.replace(TIME, '"time":"T"');
};

type Fields = Parameters<ReturnType<typeof accessLineWriter>>;

const FIELDS: Fields[] = [
  ['info', 'request completed', 'abc-123', 'GET', '/airportName?iataCode=SFO', '::ffff:127.0.0.1', 200, 3],
  ['warn', 'request completed', 'f0e1d2c3-0000-4000-8000-000000000000', 'POST', '/oauth/token', '127.0.0.1', 401, 0],
  ['error', 'request errored', 'id', 'DELETE', '/x', '::1', 503, 1234],
  ['error', 'request aborted', 'id', 'GET', '/slow', undefined, 200, 500],
  ['info', 'request completed', 'id', undefined, '', undefined, 204, 0],
  ['info', 'request completed', undefined, 'GET', '/no-id', '10.0.0.1', 200, 1],
  // Text a caller controls: quotes, backslashes, control characters, non-ASCII, lone surrogates, a long URL.
  ['info', 'request completed', 'a.b:c-d_e', 'GET', '/q?x="quoted"&y=back\\slash&z=\u0001\u001f\u007f', '127.0.0.1', 200, 2],
  ['info', 'request completed', 'id', 'PATCH', '/caf\u00e9/\u00ff?\ud800=\udfff', '127.0.0.1', 200, 2],
  ['warn', 'request completed', 'id', 'GET', `/${'long/'.repeat(80)}?q=${'x'.repeat(300)}`, '127.0.0.1', 404, 7],
  ['info', 'request completed', 'id', 'GET', '/nan', '127.0.0.1', 200, Number.NaN],
];

function pinoLine(logger: Logger, [level, message, id, method, url, remoteAddress, statusCode, responseTime]: Fields) {
  logger[level]({ req: { id, method, url, remoteAddress }, res: { statusCode }, responseTime }, message);
}

describe('the access line', () => {
  it.each(FIELDS.map((fields, index) => [index, fields] as const))('is the line pino writes for the same fields (case %i)', (_index, fields) => {
    const { logger, take } = capture();
    pinoLine(logger, fields);
    const expected = take();
    accessLineWriter(logger)(...fields);
    expect(withoutTime(take())).toBe(withoutTime(expected));
  });

  it('is the line pino writes in a child logger, with its bindings', () => {
    const { logger, take } = capture();
    const child = logger.child({ worker: 2 });
    pinoLine(child, FIELDS[0]!);
    const expected = take();
    accessLineWriter(child)(...FIELDS[0]!);
    expect(withoutTime(take())).toBe(withoutTime(expected));
  });

  it('goes through the redaction hook: a service that redacts a field of the line still gets it redacted', () => {
    const { logger, take } = capture({ redact: ['url', 'remoteAddress'] });
    accessLineWriter(logger)('info', 'request completed', 'id', 'GET', '/secret-path', '10.1.2.3', 200, 1);
    const line = take();
    expect(line).not.toContain('/secret-path');
    expect(line).not.toContain('10.1.2.3');
    expect(JSON.parse(line)).toMatchObject({ req: { id: 'id', url: '[REDACTED]', remoteAddress: '[REDACTED]' } });
  });

  it('is the same readable line in pretty mode', () => {
    const { logger, take } = capture({ format: 'pretty' });
    pinoLine(logger, FIELDS[0]!);
    const expected = take();
    accessLineWriter(logger)(...FIELDS[0]!);
    const strip = (line: string) => line.replace(/^\[\d\d:\d\d:\d\d\.\d{3}\]/, '[T]');
    expect(strip(take())).toBe(strip(expected));
  });

  it('leaves a logger configured beyond what it reproduces (serializers, a mixin) to pino', () => {
    const lines: string[] = [];
    const destination = { write: (line: string) => void lines.push(line) };
    const serialized = pino({ serializers: { req: (req: { url: string }) => ({ only: req.url }) }, mixin: () => ({ mixed: true }) }, destination);
    accessLineWriter(serialized)(...FIELDS[0]!);
    expect(JSON.parse(lines[0]!)).toMatchObject({ req: { only: '/airportName?iataCode=SFO' }, mixed: true, msg: 'request completed' });
  });

  it('is what an answered request writes, member for member, through the service kit', async () => {
    const { logger, take } = capture();
    const { app } = createServiceApp({ name: 'kit-test', logger, routes: (a) => a.get('/ok', (_req, res) => void res.send('ok')) });
    await request(app).get('/ok?access_token=sekret&x=1').set('x-request-id', 'req-1').expect(200);
    const line = take();
    expect(line).not.toContain('sekret');
    const parsed = JSON.parse(line) as { req: { remoteAddress: string }; responseTime: number };
    expect(Object.keys(parsed)).toEqual(['level', 'time', 'service', 'name', 'req', 'res', 'responseTime', 'msg']);
    pinoLine(logger, ['info', 'request completed', 'req-1', 'GET', '/ok?access_token=[REDACTED]&x=1', parsed.req.remoteAddress, 200, parsed.responseTime]);
    expect(withoutTime(line)).toBe(withoutTime(take()));
  });
});

describe('the log time', () => {
  afterEach(() => jest.useRealTimers());

  it("is pino's isoTime at every instant, across seconds, years and the millisecond digits", () => {
    jest.useFakeTimers();
    const instants = [0, 1, 9, 10, 99, 100, 999, 1000, 1001, Date.UTC(2026, 10, 25, 16, 15, 27, 604), Date.UTC(2031, 0, 1, 0, 0, 0, 0) - 1, Date.UTC(9999, 11, 31, 23, 59, 59, 999), Date.UTC(10000, 0, 1, 0, 0, 0, 5)];
    for (let step = 0; step < 3000; step += 7) instants.push(Date.UTC(2026, 0, 1) + step);
    for (const instant of instants) {
      jest.setSystemTime(instant);
      expect(isoTime()).toBe(pino.stdTimeFunctions.isoTime());
    }
  });
});
