import { randomUUID } from 'node:crypto';
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

describe('the gateway while Redis cannot be reached (faults): degraded mode', () => {
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

  function gateway(redisUrl: string): { app: Express; logs: ReturnType<typeof captureLogs> } {
    const logs = captureLogs();
    const config = loadConfig(configSchema, { SMS_PROVIDER: 'webhook', WEBHOOK_URL: provider.url(), REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix });
    const { app, lifecycle } = buildApp({ config, logger: logs.logger, clock: { now: () => new Date(NOW) } });
    replicas.push({ lifecycle });
    return { app, logs };
  }

  const deliver = (app: Express, key: string) => request(app).post('/sms').set('Idempotency-Key', key).send(body);
  /** A sample of /metrics: the metric `name` whose labels include `labels`. */
  const metric = async (app: Express, name: string, labels: Record<string, string> = {}) => {
    const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
    const line = (await request(app).get('/metrics')).text
      .split('\n')
      .find((l) => l.startsWith(`${name}{`) && wanted.every((label) => l.slice(0, l.indexOf('}')).includes(label)));
    return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
  };

  it('keeps delivering while Redis refuses connections (degraded mode): a retry on this replica is answered, not sent again', async () => {
    // A port nothing listens on.
    const { app, logs } = gateway('redis://127.0.0.1:1');
    const first = await deliver(app, 'refused-key');
    expect(first.status).toBe(200);
    const retry = await deliver(app, 'refused-key');
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.headers['sms-message-id']).toBe(first.headers['sms-message-id']);
    expect(provider.requests).toHaveLength(1);
    // Its status is kept by this replica meanwhile.
    const status = await request(app).get(`/messages/${first.headers['sms-message-id']}`);
    expect(status.status).toBe(200);
    expect(status.body.id).toBe(first.headers['sms-message-id']);
    // Visible: ready with the detail, the gauge, the count, one log line for the whole streak.
    const ready = await request(app).get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.checks.redis).toMatch(/^degraded: unreachable since .*; deliveries continue with idempotency per replica$/);
    expect(await metric(app, 'sms_redis_degraded')).toBe(1);
    expect(await metric(app, 'sms_degraded_deliveries_total')).toBe(1);
    expect(logs.text().match(/redis unreachable: degraded mode/g)).toHaveLength(1);
  });

  it('carries on through a cut, then writes what it sent meanwhile to Redis, where another replica finds it', async () => {
    const { app, logs } = gateway(proxy.proxiedUrl(REDIS_URL));
    expect((await deliver(app, 'before')).status).toBe(200);
    await proxy.cut();
    const during = await deliver(app, 'during');
    expect(during.status).toBe(200);
    expect((await deliver(app, 'during')).headers['idempotent-replayed']).toBe('true');
    expect(provider.requests).toHaveLength(2);
    expect(await metric(app, 'sms_redis_degraded')).toBe(1);

    await proxy.restore();
    await eventually('the gateway leaves degraded mode once Redis answers again', async () => (await metric(app, 'sms_redis_degraded')) === 0);
    expect((await request(app).get('/readyz')).body.checks.redis).toBe('ok');
    expect(logs.text()).toContain('redis is back: degraded mode ends, records made meanwhile written back');
    expect(await metric(app, 'sms_redis_written_back_total', { record: 'idempotency' })).toBe(1);
    expect(await metric(app, 'sms_redis_written_back_total', { record: 'message_status' })).toBe(1);
    const direct = new Redis(REDIS_URL);
    try {
      expect(JSON.parse((await direct.get(`${prefix}idempotency:during`))!)).toMatchObject({ state: 'done' });
      expect(await direct.exists(`${prefix}message:${during.headers['sms-message-id']}`)).toBe(1);
    } finally {
      await direct.quit();
    }
    // A retry of the key on another replica is answered from Redis, not sent.
    const other = gateway(REDIS_URL).app;
    const retried = await deliver(other, 'during');
    expect(retried.status).toBe(200);
    expect(retried.headers['idempotent-replayed']).toBe('true');
    expect(provider.requests).toHaveLength(2);
    expect((await request(other).get(`/messages/${during.headers['sms-message-id']}`)).status).toBe(200);
  });

  it('never writes back over a record Redis got meanwhile from another replica', async () => {
    const { app } = gateway(proxy.proxiedUrl(REDIS_URL));
    expect((await deliver(app, 'warm-up')).status).toBe(200);
    await proxy.cut();
    expect((await deliver(app, 'both')).status).toBe(200);
    // Another replica, reaching Redis, sends the same key (the documented price of the outage).
    const other = gateway(REDIS_URL).app;
    const theirs = await deliver(other, 'both');
    expect(theirs.status).toBe(200);
    await proxy.restore();
    await eventually('the gateway leaves degraded mode', async () => (await metric(app, 'sms_redis_degraded')) === 0);
    const retried = await deliver(other, 'both');
    expect(retried.headers['sms-message-id']).toBe(theirs.headers['sms-message-id']);
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
