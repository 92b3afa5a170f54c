import request from 'supertest';
import { DeliveryService } from '../src/domain/deliver';
import { CircuitBreakers } from '../src/domain/circuit-breaker';
import { createDeliveryMetrics } from '../src/domain/delivery-metrics';
import { IdempotencyStore } from '../src/domain/idempotency';
import { RouteTable } from '../src/domain/routing';
import { loadConfig, createMetricsRegistry } from '@smsauth/service-kit';
import axios from 'axios';
import { configSchema } from '../src/config';
import { createProvider } from '../src/providers/registry';
import { MemoryMessageStatusStore } from '../src/store/message-status-store';
import { OutboxStore } from '../src/store/outbox-store';
import { NOW, buildGateway, deliveryBody, metricValue } from './support/gateway';
import { captureLogs } from './support/logs';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver';

describe('webhook provider', () => {
  let receiver: WebhookReceiver;
  beforeEach(async () => {
    receiver = await startWebhookReceiver();
  });
  afterEach(() => receiver.close());

  const webhookEnv = (overrides: Record<string, string> = {}) => ({
    SMS_PROVIDER: 'webhook',
    WEBHOOK_URL: receiver.url,
    WEBHOOK_HEADERS: JSON.stringify({ 'X-Api-Key': 'webhook-api-key-123456', 'X-Tenant': 'acme' }),
    ...overrides,
  });

  it('forwards the message as JSON with WEBHOOK_HEADERS and answers 200 on a 2xx', async () => {
    receiver.respondWith(202);
    const { app, metrics } = buildGateway(webhookEnv());
    const body = deliveryBody({ req: { ip: '203.0.113.5', 'user-agent': 'Mozilla/5.0' } });
    const res = await request(app).post('/sms').set('Idempotency-Key', 'delivery-7').send(body);
    expect(res.status).toBe(200);
    expect(receiver.requests).toHaveLength(1);
    const [received] = receiver.requests;
    expect(received?.headers['x-api-key']).toBe('webhook-api-key-123456');
    expect(received?.headers['x-tenant']).toBe('acme');
    expect(received?.headers['content-type']).toMatch(/^application\/json/);
    expect(received?.headers['idempotency-key']).toBe('delivery-7');
    expect(received?.body).toEqual({
      id: expect.any(String),
      recipient: '+14155550123',
      body: 'Your verification code is 482913',
      sender: '+15005550006',
      req: { ip: '203.0.113.5', 'user-agent': 'Mozilla/5.0' },
      // A request without a channel is an SMS, and the receiver is told so.
      channel: 'sms',
    });
    expect(await metricValue(metrics, 'sms_deliveries_total', { provider: 'webhook', outcome: 'delivered' })).toBe(1);
  });

  it('answers 500 provider_error naming the status when the webhook answers non-2xx', async () => {
    receiver.respondWith(503);
    const { app, metrics } = buildGateway(webhookEnv());
    const res = await request(app).post('/sms').send(deliveryBody());
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: 'provider_error', error_description: 'webhook answered HTTP 503' });
    expect(JSON.stringify(res.body)).not.toContain('webhook-api-key-123456');
    expect(await metricValue(metrics, 'sms_deliveries_total', { provider: 'webhook', outcome: 'failed' })).toBe(1);
  });

  it('does not follow a redirect from the webhook', async () => {
    receiver.respondWith(302);
    const { app } = buildGateway(webhookEnv());
    const res = await request(app).post('/sms').send(deliveryBody());
    expect(res.status).toBe(500);
    expect(res.body.error_description).toBe('webhook answered HTTP 302');
  });

  it('answers 500 provider_error when the webhook cannot be reached', async () => {
    const url = receiver.url;
    await receiver.close();
    const { app } = buildGateway(webhookEnv({ WEBHOOK_URL: url }));
    const res = await request(app).post('/sms').send(deliveryBody());
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: 'provider_error', error_description: 'webhook request failed: could not connect (ECONNREFUSED)' });
    receiver = await startWebhookReceiver();
  });

  it('replays the first outcome for a retried key even after the webhook recovers', async () => {
    receiver.respondWith(500);
    const { app } = buildGateway(webhookEnv());
    const first = await request(app).post('/sms').set('Idempotency-Key', 'delivery-9').send(deliveryBody());
    receiver.respondWith(200);
    const retry = await request(app).post('/sms').set('Idempotency-Key', 'delivery-9').send(deliveryBody());
    expect(first.status).toBe(500);
    expect(retry.status).toBe(500);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(receiver.requests).toHaveLength(1);
  });

  it('sends once for concurrent deliveries with the same Idempotency-Key', async () => {
    const config = loadConfig(configSchema, webhookEnv());
    const logs = captureLogs();
    const registry = createMetricsRegistry('test');
    const clock = { now: () => new Date(NOW) };
    const provider = createProvider('webhook', config, { logger: logs.logger, http: axios.create(), outbox: new OutboxStore(1), clock });
    const breakers = new CircuitBreakers({ failureThreshold: 5, cooldownMs: 30_000 }, clock);
    const delivery = new DeliveryService({
      providers: new Map([[provider.name, provider]]),
      routes: RouteTable.fromInput(undefined, [provider.name]),
      breakers,
      idempotency: new IdempotencyStore({ clock }),
      statuses: new MemoryMessageStatusStore({ now: () => NOW }),
      metrics: createDeliveryMetrics(registry, [provider.name], (name) => breakers.of(name).state),
      logger: logs.logger,
      clock,
    });
    const message = { recipient: '+14155550123', body: 'Your verification code is 482913' };

    receiver.hold();
    const first = delivery.deliver(message, 'same-key');
    const second = delivery.deliver(message, 'same-key');
    await receiver.waitForRequests(1);
    receiver.release();
    const results = await Promise.all([first, second]);

    expect(receiver.requests).toHaveLength(1);
    expect(results.map((result) => result.outcome.delivered)).toEqual([true, true]);
    expect(results.map((result) => result.replayed).sort()).toEqual([false, true]);
    expect(results[0]?.outcome.id).toBe(results[1]?.outcome.id);
  });

  it('sends once for concurrent HTTP deliveries with the same Idempotency-Key', async () => {
    const { app } = buildGateway(webhookEnv());
    const server = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', resolve));
    try {
      const send = () => request(server).post('/sms').set('Idempotency-Key', 'parallel').send(deliveryBody());
      const responses = await Promise.all([send(), send(), send()]);
      expect(responses.map((res) => res.status)).toEqual([200, 200, 200]);
      expect(receiver.requests).toHaveLength(1);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
