import { randomUUID } from 'node:crypto';
import { ErrorCodes } from '@smsauth/contracts';
import { loadConfig, type Lifecycle } from '@smsauth/service-kit';
import { startTcpProxy, type RecordingServer, type TcpProxy } from '@smsauth/test-support';
import type { Express } from 'express';
import { Redis } from 'ioredis';
import request from 'supertest';
import { buildApp } from '../../src/app';
import { configSchema } from '../../src/config';
import { SharedIdempotencyStore } from '../../src/domain/idempotency';
import { RedisIdempotencyRecords } from '../../src/store/redis-store';
import { NOW } from '../support/gateway';
import { captureLogs } from '../support/logs';
import { startProvider } from '../support/providers';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const body = { recipient: '+14155550123', body: 'Your verification code is 482913' };

/** Polls `check` until it returns true; fails with `what` after `timeoutMs`. */
async function eventually(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting until ${what}`);
}

describe('the gateway while Redis cannot be reached (faults)', () => {
  let provider: RecordingServer;
  let proxy: TcpProxy;
  let replicas: Array<{ lifecycle: Lifecycle }> = [];
  let prefix: string;

  beforeEach(async () => {
    provider = await startProvider();
    const target = new URL(REDIS_URL);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
    prefix = `test:${randomUUID()}:`;
  });
  afterEach(async () => {
    await Promise.all(replicas.map((replica) => replica.lifecycle.runClosers(() => undefined)));
    replicas = [];
    await proxy.close();
    await provider.close();
  });

  function gateway(redisUrl: string): Express {
    const config = loadConfig(configSchema, { SMS_PROVIDER: 'webhook', WEBHOOK_URL: provider.url(), REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix });
    const { app, lifecycle } = buildApp({ config, logger: captureLogs().logger, clock: { now: () => new Date(NOW) } });
    replicas.push({ lifecycle });
    return app;
  }

  it('answers a keyed delivery 503 with Retry-After (never a 500) while Redis refuses connections, and sends nothing', async () => {
    // A port nothing listens on.
    const app = gateway('redis://127.0.0.1:1');
    const res = await request(app).post('/sms').set('Idempotency-Key', 'refused-key').send(body);
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('2');
    expect(res.body).toEqual({ error: ErrorCodes.SERVICE_UNAVAILABLE, error_description: 'The service is temporarily unavailable. Please try again shortly.' });
    expect(res.text).not.toMatch(/ECONNREFUSED|MaxRetries|redis/i);
    expect(provider.requests).toHaveLength(0);
    expect((await request(app).get('/messages/00000000-0000-4000-8000-000000000000')).status).toBe(503);
  });

  it('answers 503 while Redis is cut and delivers again by itself once it is back', async () => {
    const app = gateway(proxy.proxiedUrl(REDIS_URL));
    expect((await request(app).post('/sms').set('Idempotency-Key', 'before').send(body)).status).toBe(200);
    await proxy.cut();
    const during = await request(app).post('/sms').set('Idempotency-Key', 'during').send(body);
    expect(during.status).toBe(503);
    expect(during.headers['retry-after']).toBe('2');
    await proxy.restore();
    await eventually('the same key is delivered once Redis is back', async () => {
      const res = await request(app).post('/sms').set('Idempotency-Key', 'during').send(body);
      expect([200, 503]).toContain(res.status);
      return res.status === 200;
    });
    expect(provider.requests).toHaveLength(2);
  });

  it('answers the outcome of a send whose outcome it could not record, says so in its log, and lets the marker expire within its time to live', async () => {
    const proxied = new Redis(proxy.proxiedUrl(REDIS_URL), { maxRetriesPerRequest: 1, connectTimeout: 1000 });
    proxied.on('error', () => undefined);
    const direct = new Redis(REDIS_URL);
    try {
      const logs = captureLogs();
      const inFlightTtlMs = 500;
      const store = new SharedIdempotencyStore<string>(new RedisIdempotencyRecords(proxied, prefix), { inFlightTtlMs, logger: logs.logger });
      const outcome = await store.run('cut-key', 'fp', async () => {
        await proxy.cut();
        return 'sent';
      });
      expect(outcome).toEqual({ outcome: 'sent', replayed: false });
      expect(logs.text()).toContain('could not record the outcome of an Idempotency-Key');
      // The marker is still in flight, no longer renewed: it goes within its time to live.
      expect(JSON.parse((await direct.get(`${prefix}idempotency:cut-key`))!)).toMatchObject({ state: 'in_flight' });
      expect(await direct.pttl(`${prefix}idempotency:cut-key`)).toBeLessThanOrEqual(inFlightTtlMs);
      const other = new SharedIdempotencyStore<string>(new RedisIdempotencyRecords(direct, prefix), { inFlightTtlMs, logger: captureLogs().logger, maxWaitMs: 10_000 });
      expect(await other.run('cut-key', 'fp', async () => 'sent again')).toEqual({ outcome: 'sent again', replayed: false });
    } finally {
      proxied.disconnect();
      await direct.quit();
    }
  });

  it('keeps a slow send in flight past the marker\'s time to live by renewing it, so no other replica sends meanwhile', async () => {
    const redis = new Redis(REDIS_URL);
    try {
      const inFlightTtlMs = 300;
      const replica = (maxWaitMs?: number) =>
        new SharedIdempotencyStore<string>(new RedisIdempotencyRecords(redis, prefix), { inFlightTtlMs, logger: captureLogs().logger, ...(maxWaitMs !== undefined ? { maxWaitMs } : {}) });
      let release!: () => void;
      const slow = replica().run('slow-key', 'fp', () => new Promise<string>((resolve) => (release = () => resolve('sent once'))));
      // Three times the marker's time to live, with a second replica trying all along.
      const second = jest.fn(async () => 'sent twice');
      const duplicate = replica(60_000).run('slow-key', 'fp', second);
      await new Promise((resolve) => setTimeout(resolve, 3 * inFlightTtlMs));
      release();
      expect(await slow).toEqual({ outcome: 'sent once', replayed: false });
      expect(await duplicate).toEqual({ outcome: 'sent once', replayed: true });
      expect(second).not.toHaveBeenCalled();
    } finally {
      await redis.quit();
    }
  });
});
