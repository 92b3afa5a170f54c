import { once } from 'node:events';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import request from 'supertest';
import { z } from 'zod';
import { createServiceApp, HttpError, maskPhoneNumber, maskPhoneNumbers, parseOrThrow, validate } from '../src';
import { capturingLogger } from './helpers';

function buildTestApp(options: { redact?: string[] } = {}) {
  const captured = capturingLogger(options.redact);
  const service = createServiceApp({
    name: 'test',
    logger: captured.logger,
    urlencoded: true,
    routes: (app) => {
      app.post('/echo', (req, res) => {
        res.json({ received: req.body });
      });
      // A service route on a probe's path with another method: the kit's own routes do not take it.
      app.post('/healthz', (req, res) => {
        res.json({ received: req.body });
      });
      app.get('/body-seen', (req, res) => {
        res.json({ hasBody: req.body !== undefined });
      });
      app.post('/typed', validate({ body: z.object({ name: z.string().min(1), age: z.number().int() }) }), (_req, res) => {
        res.json(res.locals.body);
      });
      app.get('/items/:id', (req, res) => {
        const query = parseOrThrow(z.object({ limit: z.coerce.number().int().max(10) }), req.query);
        res.json({ id: req.params.id, limit: query.limit });
      });
      app.get('/teapot', () => {
        throw new HttpError(418, 'teapot', 'I am a teapot', { headers: { 'retry-after': '7' } });
      });
      app.get('/boom', async () => {
        throw new Error('database password is hunter2');
      });
      app.post('/log-body', (req, res) => {
        req.log.info({ body: req.body }, 'received body');
        req.log.error({ err: new Error('failed'), payload: req.body }, 'handling failed');
        res.status(204).end();
      });
    },
  });
  return { ...service, ...captured };
}

/** POSTs JSON in chunks (Transfer-Encoding: chunked, no Content-Length) and answers the parsed reply. */
async function postChunked(app: Express, path: string, chunks: string[]): Promise<unknown> {
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const req = httpRequest({ port: (server.address() as AddressInfo).port, host: '127.0.0.1', path, method: 'POST', headers: { 'content-type': 'application/json' } });
    for (const chunk of chunks) req.write(chunk);
    req.end();
    const [res] = (await once(req, 'response')) as [IncomingMessage];
    let text = '';
    for await (const part of res) text += String(part);
    return JSON.parse(text);
  } finally {
    server.close();
  }
}

describe('service app', () => {
  it('answers /healthz while the process is alive', async () => {
    const { app } = buildTestApp();
    const res = await request(app).get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it("answers the browser's /favicon.ico with a 204 it may keep for a day, and logs no line for it", async () => {
    const { app, lines } = buildTestApp();
    const res = await request(app).get('/favicon.ico');
    expect(res.status).toBe(204);
    expect(res.headers['cache-control']).toBe('public, max-age=86400');
    expect(lines()).not.toContain('/favicon.ico');
  });

  it('reports ready when every readiness check passes', async () => {
    const { app, lifecycle } = buildTestApp();
    lifecycle.addReadinessCheck('database', () => undefined);
    const res = await request(app).get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready', checks: { database: 'ok' } });
  });

  it('reports not ready with the failing check named', async () => {
    const { app, lifecycle } = buildTestApp();
    lifecycle.addReadinessCheck('database', async () => {
      throw new Error('connection refused');
    });
    const res = await request(app).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: 'not_ready', checks: { database: 'connection refused' } });
  });

  it('stays ready and shows the detail of a check that reports the service degraded', async () => {
    const { app, lifecycle } = buildTestApp();
    lifecycle.addReadinessCheck('database', () => undefined);
    lifecycle.addReadinessCheck('cache', async () => 'degraded: serving without the cache');
    const res = await request(app).get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready', checks: { database: 'ok', cache: 'degraded: serving without the cache' } });
  });

  it('fails readiness once shutdown has begun', async () => {
    const { app, lifecycle } = buildTestApp();
    lifecycle.beginShutdown();
    const res = await request(app).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body.status).toBe('shutting_down');
  });

  it('generates a request id when none is sent and echoes one that is', async () => {
    const { app } = buildTestApp();
    const generated = await request(app).get('/healthz');
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const echoed = await request(app).get('/healthz').set('x-request-id', 'trace-123');
    expect(echoed.headers['x-request-id']).toBe('trace-123');
  });

  it('replaces a request id that is not a sane token', async () => {
    const { app } = buildTestApp();
    const res = await request(app).get('/healthz').set('x-request-id', 'bad id\twith spaces');
    expect(res.headers['x-request-id']).not.toBe('bad id\twith spaces');
  });

  it('parses JSON and form bodies', async () => {
    const { app } = buildTestApp();
    const json = await request(app).post('/echo').send({ a: 1 });
    expect(json.body).toEqual({ received: { a: 1 } });
    const form = await request(app).post('/echo').type('form').send('a=1&b=two');
    expect(form.body).toEqual({ received: { a: '1', b: 'two' } });
  });

  it('parses a body sent with any method, a chunked one included, and leaves a request without one bodiless', async () => {
    const { app } = buildTestApp();
    expect(await postChunked(app, '/echo', ['{"a":', '2}'])).toEqual({ received: { a: 2 } });
    const empty = await request(app).post('/echo').set('content-type', 'application/json').set('content-length', '0');
    expect(empty.body).toEqual({ received: {} });
    expect((await request(app).get('/body-seen')).body).toEqual({ hasBody: false });
    expect((await request(app).get('/body-seen').set('content-type', 'application/json').send('{"a":1}')).body).toEqual({ hasBody: true });
  });

  it("passes a request to a probe's path that no probe answers on to the service, its body parsed and guarded", async () => {
    const { app } = buildTestApp();
    expect((await request(app).post('/healthz').send({ a: 1 })).body).toEqual({ received: { a: 1 } });
    const refused = await request(app).post('/healthz').send({ a: 'nul\u0000' });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual(expect.objectContaining({ error: 'invalid_request', error_description: 'Body field a contains a NUL character' }));
  });

  it('rejects malformed JSON with a 400 JSON error', async () => {
    const { app } = buildTestApp();
    const res = await request(app).post('/echo').set('content-type', 'application/json').send('{"a":');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_request', error_description: expect.stringContaining('not valid JSON') });
  });

  it('rejects a JSON body that is not an object or array', async () => {
    const { app } = buildTestApp();
    const res = await request(app).post('/echo').set('content-type', 'application/json').send('"just a string"');
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
  });

  it('rejects a body over 100 kB with a 413 JSON error', async () => {
    const { app } = buildTestApp();
    const res = await request(app).post('/echo').send({ blob: 'x'.repeat(101 * 1024) });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error: 'payload_too_large', error_description: expect.any(String) });
  });

  it('turns a validation failure into a 400 naming each field path', async () => {
    const { app } = buildTestApp();
    const res = await request(app).post('/typed').send({ name: '', age: 1.5 });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
    expect(res.body.details.map((d: { path: string }) => d.path).sort()).toEqual(['age', 'name']);
    expect(res.body.error_description).toContain('name:');
  });

  it('hands typed values to the route after validation', async () => {
    const { app } = buildTestApp();
    const res = await request(app).post('/typed').send({ name: 'Ada', age: 36, extra: true });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ name: 'Ada', age: 36 });
  });

  it('validates query strings the same way', async () => {
    const { app } = buildTestApp();
    expect((await request(app).get('/items/7?limit=3')).body).toEqual({ id: '7', limit: 3 });
    const res = await request(app).get('/items/7?limit=99');
    expect(res.status).toBe(400);
    expect(res.body.details[0].path).toBe('limit');
  });

  it('renders an HttpError with its status, code, description and headers', async () => {
    const { app } = buildTestApp();
    const res = await request(app).get('/teapot');
    expect(res.status).toBe(418);
    expect(res.headers['retry-after']).toBe('7');
    expect(res.body).toEqual({ error: 'teapot', error_description: 'I am a teapot' });
  });

  it('answers an unexpected error with a generic 500 and keeps the details in the log', async () => {
    const { app, lines } = buildTestApp();
    const res = await request(app).get('/boom');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: 'server_error', error_description: 'Internal server error' });
    expect(JSON.stringify(res.body)).not.toContain('hunter2');
    expect(lines()).toContain('database password is hunter2');
  });

  it('answers unknown routes with a JSON 404', async () => {
    const { app } = buildTestApp();
    const res = await request(app).get('/nope');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'not_found', error_description: 'No route for GET /nope' });
  });

  it('never writes a secret from the request body or headers to the log', async () => {
    const { app, lines } = buildTestApp({ redact: ['phone_pin'] });
    await request(app)
      .post('/log-body')
      .set('authorization', 'Bearer sekret-bearer-token')
      .set('cookie', 'session=sekret-cookie')
      .send({
        password: 'sekret-password',
        otp: '918273',
        client_secret: 'sekret-client',
        nested: { secret: 'sekret-nested', deeper: { password: 'sekret-deep' } },
        phone_pin: 'sekret-pin',
        visible: 'plain-value',
      });
    const output = lines();
    expect(output).toContain('plain-value');
    for (const secret of ['sekret-bearer-token', 'sekret-cookie', 'sekret-password', '918273', 'sekret-client', 'sekret-nested', 'sekret-deep', 'sekret-pin']) {
      expect(output).not.toContain(secret);
    }
    expect(output).toContain('[REDACTED]');
  });

  it('keeps tokens in query strings out of the request log', async () => {
    const { app, lines } = buildTestApp();
    await request(app).get('/items/1?limit=1&access_token=sekret-query-token');
    expect(lines()).not.toContain('sekret-query-token');
    expect(lines()).toContain('access_token=[REDACTED]');
  });

  it('exposes Prometheus metrics with request durations by route and status', async () => {
    const { app } = buildTestApp();
    await request(app).get('/items/42?limit=1');
    await request(app).get('/nope');
    const res = await request(app).get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    expect(res.text).toContain('process_cpu_user_seconds_total');
    expect(res.text).toMatch(/http_request_duration_seconds_count\{[^}]*route="\/items\/:id"[^}]*status_code="200"/);
    expect(res.text).toMatch(/http_request_duration_seconds_count\{[^}]*route="unmatched"[^}]*status_code="404"/);
    expect(res.text).not.toContain('/items/42');
  });

  it('counts every answered request under its method, route and status, however often the combination recurs', async () => {
    const { app } = buildTestApp();
    for (let i = 0; i < 3; i++) await request(app).get(`/items/${i}?limit=1`).expect(200);
    await request(app).get('/items/9?limit=99').expect(400);
    const res = await request(app).get('/metrics');
    expect(res.text).toMatch(/http_request_duration_seconds_count\{service="test",method="GET",route="\/items\/:id",status_code="200"\} 3\n/);
    expect(res.text).toMatch(/http_request_duration_seconds_count\{service="test",method="GET",route="\/items\/:id",status_code="400"\} 1\n/);
  });
});

describe('query parameters', () => {
  it('reads req.query from the URL as it stands, also after a middleware rewrites the URL', async () => {
    const { logger } = capturingLogger();
    const { app } = createServiceApp({
      name: 'test',
      logger,
      routes: (a) => {
        a.get('/rewrite', (req, _res, next) => {
          const before = { ...req.query };
          req.url = '/rewritten?b=2&b=3';
          (req as unknown as { before: unknown }).before = before;
          next('route');
        });
        a.get('/rewritten', (req, res) => {
          res.json({ before: (req as unknown as { before: unknown }).before, after: req.query, same: req.query === req.query });
        });
      },
    });
    const res = await request(app).get('/rewrite?a=1&plus=%2B1+2').expect(200);
    expect(res.body).toEqual({ before: { a: '1', plus: '+1 2' }, after: { b: ['2', '3'] }, same: true });
  });
});

describe('query redaction', () => {
  it('keeps the values of parameters a service names out of the access log', async () => {
    const { logger, lines } = capturingLogger();
    const { app } = createServiceApp({
      name: 'test',
      logger,
      redactQueryParams: ['recipient'],
      routes: (a) => a.get('/outbox', (_req, res) => void res.json([])),
    });
    await request(app).get('/outbox?recipient=%2B14155550123&limit=5');
    expect(lines()).not.toContain('14155550123');
    expect(lines()).toContain('recipient=[REDACTED]&limit=5');
  });
});

describe('phone number masking', () => {
  it('keeps only the last four digits of a number', () => {
    expect(maskPhoneNumber('+14155550123')).toBe('***0123');
  });

  it('masks every number quoted in a text', () => {
    expect(maskPhoneNumbers("The 'To' number +1 415 555 0199 is not valid")).toBe("The 'To' number ***0199 is not valid");
  });
});

describe('access log', () => {
  it('records the response status but no response header, so a redirect never logs its tokens', async () => {
    const { logger, lines } = capturingLogger();
    const { app } = createServiceApp({
      name: 'test',
      logger,
      routes: (a) =>
        a.get('/done', (_req, res) => {
          res.setHeader('set-cookie', 'session=sekret-cookie-value');
          res.redirect(302, 'https://app.example.com/cb#access_token=sekret-access-token&state=s');
        }),
    });
    const res = await request(app).get('/done');
    expect(res.status).toBe(302);
    expect(lines()).toContain('"statusCode":302');
    expect(lines()).not.toContain('sekret-access-token');
    expect(lines()).not.toContain('sekret-cookie-value');
  });
});
