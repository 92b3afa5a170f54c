import http from 'node:http';
import { createServiceApp, serve } from '../src';
import { capturingLogger } from './helpers';

function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

function startSlowService(delayMs: number) {
  const { logger } = capturingLogger();
  let started: () => void = () => undefined;
  const slowRequestStarted = new Promise<void>((resolve) => (started = resolve));
  const service = createServiceApp({
    name: 'test',
    logger,
    routes: (app) => {
      app.get('/slow', async (_req, res) => {
        started();
        await new Promise((resolve) => setTimeout(resolve, delayMs).unref());
        res.json({ finished: true });
      });
    },
  });
  return { ...service, logger, slowRequestStarted };
}

describe('serve', () => {
  it('binds to the requested port and reports its URL', async () => {
    const { app, lifecycle, logger } = startSlowService(0);
    const handle = await serve(app, { port: 0, host: '127.0.0.1', logger, lifecycle });
    expect(handle.url).toBe(`http://127.0.0.1:${handle.port}`);
    expect((await get(`${handle.url}/healthz`)).status).toBe(200);
    await handle.shutdown();
  });

  it('lets an in-flight slow request finish during shutdown while refusing new connections', async () => {
    const { app, lifecycle, logger, slowRequestStarted } = startSlowService(400);
    const closed: string[] = [];
    lifecycle.addCloser('database', () => {
      closed.push('database');
    });
    const handle = await serve(app, { port: 0, host: '127.0.0.1', logger, lifecycle });

    const inFlight = get(`${handle.url}/slow`);
    await slowRequestStarted;
    const shutdown = handle.shutdown();

    expect(lifecycle.isShuttingDown).toBe(true);
    await expect(get(`${handle.url}/healthz`)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(closed).toEqual([]);

    await expect(inFlight).resolves.toEqual({ status: 200, body: JSON.stringify({ finished: true }) });
    await shutdown;
    expect(closed).toEqual(['database']);
  });

  it('closes lingering connections once the drain timeout passes', async () => {
    const { app, lifecycle, logger, slowRequestStarted } = startSlowService(5_000);
    const handle = await serve(app, { port: 0, host: '127.0.0.1', logger, lifecycle, shutdownTimeoutMs: 100 });
    const inFlight = get(`${handle.url}/slow`).catch((err: NodeJS.ErrnoException) => err.code);
    await slowRequestStarted;
    await handle.shutdown();
    await expect(inFlight).resolves.toBe('ECONNRESET');
  });

  it('runs closers in reverse order of registration', async () => {
    const { app, lifecycle, logger } = startSlowService(0);
    const order: string[] = [];
    lifecycle.addCloser('pool', () => void order.push('pool'));
    lifecycle.addCloser('cache', () => void order.push('cache'));
    const handle = await serve(app, { port: 0, host: '127.0.0.1', logger, lifecycle });
    await handle.shutdown();
    expect(order).toEqual(['cache', 'pool']);
  });
});
