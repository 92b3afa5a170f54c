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
