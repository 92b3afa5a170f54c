import { randomUUID } from 'node:crypto';
import { MESSAGE_ID_HEADER } from '@smsauth/contracts';
import { loadConfig, type Lifecycle } from '@smsauth/service-kit';
import type { RecordingServer } from '@smsauth/test-support';
import type { Express } from 'express';
import request from 'supertest';
import { buildApp } from '../src/app';
import { configSchema } from '../src/config';
import { NOW } from './support/gateway';
import { captureLogs } from './support/logs';
import { startProvider } from './support/providers';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

interface Replica {
  app: Express;
  lifecycle: Lifecycle;
}

describe('idempotency and message statuses shared through Redis', () => {
  let provider: RecordingServer;
  let replicas: Replica[] = [];
  // Each test its own key prefix, so tests (and parallel runs) never see each other's keys.
  let prefix: string;

  beforeEach(async () => {
    provider = await startProvider();
    prefix = `test:${randomUUID()}:`;
  });
  afterEach(async () => {
    await Promise.all(replicas.map((replica) => replica.lifecycle.runClosers(() => undefined)));
    replicas = [];
    await provider.close();
  });

  function replica(env: Record<string, string> = {}): Replica {
    const config = loadConfig(configSchema, { SMS_PROVIDER: 'webhook', WEBHOOK_URL: provider.url(), REDIS_URL, REDIS_KEY_PREFIX: prefix, ...env });
    const { app, lifecycle } = buildApp({ config, logger: captureLogs().logger, clock: { now: () => new Date(NOW) } });
    replicas.push({ app, lifecycle });
    return { app, lifecycle };
  }
  const body = { recipient: '+14155550123', body: 'Your verification code is 482913' };

  it('sends once when two replicas receive the same Idempotency-Key at the same time', async () => {
    const [a, b] = [replica(), replica()];
    provider.hold();
    const first = request(a.app).post('/sms').set('Idempotency-Key', 'shared-key').send(body).then((res) => res);
    const second = request(b.app).post('/sms').set('Idempotency-Key', 'shared-key').send(body).then((res) => res);
    await provider.waitForRequests(1);
    provider.release();
    const responses = await Promise.all([first, second]);

    expect(provider.requests).toHaveLength(1);
    expect(responses.map((res) => res.status)).toEqual([200, 200]);
    expect(responses.map((res) => res.headers['idempotent-replayed'] ?? 'first').sort()).toEqual(['first', 'true']);
    expect(responses[0]?.headers[MESSAGE_ID_HEADER.toLowerCase()]).toBe(responses[1]?.headers[MESSAGE_ID_HEADER.toLowerCase()]);
  });

  it('answers a retry on another replica from Redis, and 422 for the key reused for another message', async () => {
    const [a, b] = [replica(), replica()];
    expect((await request(a.app).post('/sms').set('Idempotency-Key', 'k1').send(body)).status).toBe(200);
    const retry = await request(b.app).post('/sms').set('Idempotency-Key', 'k1').send(body);
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    const reused = await request(b.app).post('/sms').set('Idempotency-Key', 'k1').send({ ...body, body: 'another 111111' });
    expect(reused.status).toBe(422);
    expect(provider.requests).toHaveLength(1);
  });

  it('shows a message sent by one replica at GET /messages/{id} on another', async () => {
    const [a, b] = [replica(), replica()];
    const sent = await request(a.app).post('/sms').send(body);
    const id = sent.headers[MESSAGE_ID_HEADER.toLowerCase()] as string;
    const status = await request(b.app).get(`/messages/${id}`);
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ id, status: 'accepted', provider: 'webhook' });
  });

  it('keeps replicas on different prefixes apart', async () => {
    const a = replica();
    const b = replica({ REDIS_KEY_PREFIX: `${prefix}other:` });
    await request(a.app).post('/sms').set('Idempotency-Key', 'k2').send(body);
    const other = await request(b.app).post('/sms').set('Idempotency-Key', 'k2').send(body);
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    expect(provider.requests).toHaveLength(2);
  });

  it('includes Redis in /readyz, and stays ready saying it is degraded while Redis cannot be reached', async () => {
    const up = replica();
    const ready = await request(up.app).get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.checks).toEqual({ redis: 'ok' });

    // A port nothing listens on: found by the check itself, before any delivery.
    const down = replica({ REDIS_URL: 'redis://127.0.0.1:1' });
    const degraded = await request(down.app).get('/readyz');
    expect(degraded.status).toBe(200);
    expect(degraded.body.checks.redis).toMatch(/^degraded: unreachable since /);
  });
});
