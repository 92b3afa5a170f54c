import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import request from 'supertest';
import { createMemoryLogger, createServiceApp } from '../src';

function appWithRoutes(level = 'info') {
  const memory = createMemoryLogger({ level });
  const { app } = createServiceApp({
    name: 'test',
    logger: memory.logger,
    redactQueryParams: ['recipient'],
    routes: (a) => {
      a.get('/ok', (_req, res) => void res.json({ ok: true }));
      a.get('/teapot', (_req, res) => void res.status(418).json({ error: 'teapot' }));
      a.get('/boom', () => {
        throw new Error('internal detail');
      });
      const router = express.Router();
      router.get('/inner', (req, res) => {
        req.log.info({ step: 'inside' }, 'route log');
        res.json({ ok: true });
      });
      a.use('/mounted', router);
      a.get('/slow', (_req, res) => void setTimeout(() => res.json({ late: true }), 500));
    },
  });
  return { app, ...memory };
}

const access = (entries: Array<Record<string, unknown>>) => entries.filter((e) => typeof e.responseTime === 'number');

describe('access log', () => {
  it('writes one line per response with the request id, method, redacted url and status only', async () => {
    const { app, entries } = appWithRoutes();
    const res = await request(app).get('/ok?recipient=%2B15551234567&x=1').set('x-request-id', 'abc-123').expect(200);
    expect(res.headers['x-request-id']).toBe('abc-123');
    const [line, ...rest] = access(entries());
    expect(rest).toEqual([]);
    expect(line).toMatchObject({
      level: 30,
      msg: 'request completed',
      req: { id: 'abc-123', method: 'GET', url: '/ok?recipient=[REDACTED]&x=1' },
      res: { statusCode: 200 },
    });
    expect(Object.keys(line!.res as object)).toEqual(['statusCode']);
  });

  it('logs 4xx at warn and 5xx at error, and never for the probes', async () => {
    const { app, entries } = appWithRoutes();
    await request(app).get('/teapot').expect(418);
    await request(app).get('/boom').expect(500);
    await request(app).get('/healthz').expect(200);
    await request(app).get('/metrics').expect(200);
    expect(access(entries()).map((e) => [e.level, e.msg, (e.res as { statusCode: number }).statusCode])).toEqual([
      [40, 'request completed', 418],
      [50, 'request errored', 500],
    ]);
  });

  it('builds no access line when the level filters it out', async () => {
    const { app, entries } = appWithRoutes('warn');
    await request(app).get('/ok').expect(200);
    await request(app).get('/teapot').expect(418);
    expect(access(entries()).map((e) => e.msg)).toEqual(['request completed']);
  });

  it('binds req.log to the request as the caller sent it, also inside a mounted router', async () => {
    const { app, entries } = appWithRoutes();
    const res = await request(app).get('/mounted/inner?q=1').expect(200);
    const routeLine = entries().find((e) => e.msg === 'route log');
    expect(routeLine).toMatchObject({ step: 'inside', req: { id: res.headers['x-request-id'], method: 'GET', url: '/mounted/inner?q=1' } });
  });

  it('records a request the client abandoned before the answer as aborted', async () => {
    const { app, entries } = appWithRoutes();
    const server = http.createServer(app).listen(0);
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => {
      const req = http.get({ port, path: '/slow' });
      req.on('error', () => resolve());
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 100);
    });
    await new Promise((resolve) => setTimeout(resolve, 700));
    await new Promise((resolve) => server.close(resolve));
    expect(access(entries())).toEqual([expect.objectContaining({ level: 50, msg: 'request aborted', req: expect.objectContaining({ url: '/slow' }) })]);
  });
});

describe('access lines of static assets and polled pages', () => {
  function appWithAssets() {
    const memory = createMemoryLogger({ level: 'debug' });
    const { app } = createServiceApp({
      name: 'test',
      logger: memory.logger,
      debugPaths: ['/assets/', '/outbox'],
      routes: (a) => {
        a.get('/assets/site.css', (_req, res) => void res.type('css').send('body{}'));
        a.get('/outbox', (_req, res) => void res.send('<ul></ul>'));
        a.get('/outbox/messages', (_req, res) => void res.json({ messages: [] }));
        a.post('/outbox', (_req, res) => void res.status(303).location('/outbox').end());
        a.get('/ok', (_req, res) => void res.json({ ok: true }));
      },
    });
    return { app, ...memory };
  }
  const levelsByUrl = (entries: Array<Record<string, unknown>>) =>
    access(entries).map((e) => [(e.req as { method: string }).method, (e.req as { url: string }).url, e.level]);

  it('logs successful reads of the named prefixes and the API docs at debug, everything else at info', async () => {
    const { app, entries } = appWithAssets();
    await request(app).get('/assets/site.css').expect(200);
    await request(app).get('/outbox').expect(200);
    await request(app).get('/outbox/messages').expect(200);
    await request(app).get('/docs/assets/nothing-here.js').expect(404);
    await request(app).post('/outbox').expect(303);
    await request(app).get('/ok').expect(200);
    expect(levelsByUrl(entries())).toEqual([
      ['GET', '/assets/site.css', 20],
      ['GET', '/outbox', 20],
      ['GET', '/outbox/messages', 20],
      ['GET', '/docs/assets/nothing-here.js', 40],
      ['POST', '/outbox', 30],
      ['GET', '/ok', 30],
    ]);
  });

  it('keeps errors on those paths at their usual level', async () => {
    const { app, entries } = appWithAssets();
    await request(app).get('/assets/missing.css').expect(404);
    expect(levelsByUrl(entries())).toEqual([['GET', '/assets/missing.css', 40]]);
  });
});
