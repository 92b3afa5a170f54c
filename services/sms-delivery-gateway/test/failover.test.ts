import { MESSAGE_ID_HEADER, PROVIDER_HEADER } from '@smsauth/contracts';
import type { RecordingServer } from '@smsauth/test-support';
import request from 'supertest';
import { buildGateway, deliveryBody, metricValue } from './support/gateway';
import { answer, failWith, hang, manualClock, startProvider, webhookInstances } from './support/providers';

describe('failover between the providers of a route', () => {
  let primary: RecordingServer;
  let secondary: RecordingServer;
  let tertiary: RecordingServer;
  beforeEach(async () => {
    [primary, secondary, tertiary] = await Promise.all([startProvider(), startProvider(), startProvider()]);
  });
  afterEach(async () => {
    await Promise.all([primary.close(), secondary.close(), tertiary.close()]);
  });

  const gateway = (extra: Record<string, string> = {}, clock = manualClock(), timeoutsMs: Record<string, number> = {}) => ({
    clock,
    ...buildGateway(
      {
        SMS_PROVIDER_INSTANCES: webhookInstances({ primary, secondary, tertiary }, {}, timeoutsMs),
        SMS_ROUTES: JSON.stringify({ default: ['primary', 'secondary', 'tertiary'] }),
        ...extra,
      },
      clock,
    ),
  });

  it('tries the next provider when one answers 500 and another does not answer in time, and answers 200 once one accepted', async () => {
    primary.respondWith(failWith(500));
    secondary.respondWith(hang);
    const { app, metrics, logs } = gateway({}, manualClock(), { secondary: 200 });

    const res = await request(app).post('/sms').send(deliveryBody());

    expect(res.status).toBe(200);
    // The answer names the provider that took the message, for identity's figures per provider.
    expect(res.headers[PROVIDER_HEADER.toLowerCase()]).toBe('tertiary');
    expect([primary.requests.length, secondary.requests.length, tertiary.requests.length]).toEqual([1, 1, 1]);
    expect(await metricValue(metrics, 'sms_failovers_total', { from: 'primary', to: 'secondary' })).toBe(1);
    expect(await metricValue(metrics, 'sms_failovers_total', { from: 'secondary', to: 'tertiary' })).toBe(1);
    const delivered = logs.entries().find((entry) => entry.msg === 'sms delivered');
    expect(delivered).toMatchObject({
      provider: 'tertiary',
      messageId: res.headers[MESSAGE_ID_HEADER.toLowerCase()],
      attempts: [
        { provider: 'primary', outcome: 'failed', http_status: 500 },
        { provider: 'secondary', outcome: 'failed' },
        { provider: 'tertiary', outcome: 'accepted' },
      ],
    });
    expect(logs.text()).not.toContain('482913');
  });

  it('does not try another provider when one refuses the message with a 4xx', async () => {
    primary.respondWith(failWith(400));
    const { app, metrics } = gateway();

    const res = await request(app).post('/sms').send(deliveryBody());

    expect(res.status).toBe(500);
    expect(res.headers[PROVIDER_HEADER.toLowerCase()]).toBeUndefined();
    expect(res.body).toEqual({ error: 'provider_error', error_description: 'webhook answered HTTP 400' });
    expect(secondary.requests).toHaveLength(0);
    expect(await metricValue(metrics, 'sms_failovers_total', { from: 'primary', to: 'secondary' })).toBeUndefined();
  });

  it('answers provider_error with the last reason when every provider fails', async () => {
    for (const server of [primary, secondary, tertiary]) server.respondWith(failWith(503));
    const { app } = gateway();

    const res = await request(app).post('/sms').send(deliveryBody());

    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: 'provider_error', error_description: 'webhook answered HTTP 503' });
    expect([primary, secondary, tertiary].map((server) => server.requests.length)).toEqual([1, 1, 1]);
  });

  it('treats 429 as a provider failure and tries the next one', async () => {
    primary.respondWith(failWith(429));
    const { app } = gateway();
    expect((await request(app).post('/sms').send(deliveryBody())).status).toBe(200);
    expect(secondary.requests).toHaveLength(1);
  });
});

describe('circuit breaker per provider', () => {
  let flaky: RecordingServer;
  let backup: RecordingServer;
  beforeEach(async () => {
    [flaky, backup] = await Promise.all([startProvider(), startProvider()]);
  });
  afterEach(async () => {
    await Promise.all([flaky.close(), backup.close()]);
  });

  const gateway = (clock = manualClock()) => ({
    clock,
    ...buildGateway(
      {
        SMS_PROVIDER_INSTANCES: webhookInstances({ flaky, backup }, { WEBHOOK_TIMEOUT_MS: '10000' }),
        SMS_ROUTES: JSON.stringify({ default: ['flaky', 'backup'] }),
        SMS_BREAKER_FAILURES: '3',
        SMS_BREAKER_COOLDOWN_MS: '30000',
      },
      clock,
    ),
  });
  const breakerState = (metrics: Parameters<typeof metricValue>[0], provider: string) =>
    metricValue(metrics, 'sms_provider_breaker_state', { provider });

  it('opens after consecutive failures, skips the provider, probes it once after the cool-down and closes when the probe succeeds', async () => {
    flaky.respondWith(failWith(500));
    const { app, metrics, clock } = gateway();
    const send = () => request(app).post('/sms').send(deliveryBody());

    for (let i = 0; i < 3; i++) expect((await send()).status).toBe(200);
    expect(flaky.requests).toHaveLength(3);
    expect(await breakerState(metrics, 'flaky')).toBe(1);

    // Open: skipped, straight to the backup.
    expect((await send()).status).toBe(200);
    expect(flaky.requests).toHaveLength(3);
    expect(backup.requests).toHaveLength(4);
    expect(await metricValue(metrics, 'sms_failovers_total', { from: 'flaky', to: 'backup' })).toBe(4);

    clock.advance(29_999);
    expect((await send()).status).toBe(200);
    expect(flaky.requests).toHaveLength(3);

    clock.advance(1);
    expect(await breakerState(metrics, 'flaky')).toBe(2);
    flaky.respondWith(answer(200));
    expect((await send()).status).toBe(200);
    expect(flaky.requests).toHaveLength(4);
    expect(await breakerState(metrics, 'flaky')).toBe(0);
    expect(backup.requests).toHaveLength(5);

    expect((await send()).status).toBe(200);
    expect(flaky.requests).toHaveLength(5);
  });

  it('opens again for another cool-down when the half-open probe fails', async () => {
    flaky.respondWith(failWith(502));
    const { app, metrics, clock } = gateway();
    const send = () => request(app).post('/sms').send(deliveryBody());
    for (let i = 0; i < 3; i++) await send();

    clock.advance(30_000);
    expect((await send()).status).toBe(200);
    expect(flaky.requests).toHaveLength(4);
    expect(await breakerState(metrics, 'flaky')).toBe(1);

    expect((await send()).status).toBe(200);
    expect(flaky.requests).toHaveLength(4);
  });

  it('lets only one message probe a half-open provider while others skip it', async () => {
    flaky.respondWith(failWith(500));
    const { app, clock } = gateway();
    const send = () => request(app).post('/sms').send(deliveryBody());
    for (let i = 0; i < 3; i++) await send();
    clock.advance(30_000);

    flaky.respondWith(answer(200));
    flaky.hold();
    // supertest sends once then() is called.
    const probe = send().then((res) => res);
    await flaky.waitForRequests(4);
    expect((await send()).status).toBe(200);
    expect(flaky.requests).toHaveLength(4);
    flaky.release();
    expect((await probe).status).toBe(200);
  });

  it('answers provider_error without calling anyone when every provider of the route is open', async () => {
    flaky.respondWith(failWith(500));
    backup.respondWith(failWith(500));
    const { app } = gateway();
    const send = () => request(app).post('/sms').send(deliveryBody());
    for (let i = 0; i < 3; i++) expect((await send()).status).toBe(500);

    const res = await send();
    expect(res.status).toBe(500);
    expect(res.body.error_description).toBe('no provider of the route is available (circuit open: flaky, backup)');
    expect([flaky.requests.length, backup.requests.length]).toEqual([3, 3]);
  });

  it('counts a 4xx refusal as a working provider: it does not open the breaker', async () => {
    flaky.respondWith(failWith(400));
    const { app, metrics } = gateway();
    for (let i = 0; i < 5; i++) expect((await request(app).post('/sms').send(deliveryBody())).status).toBe(500);
    expect(flaky.requests).toHaveLength(5);
    expect(await breakerState(metrics, 'flaky')).toBe(0);
  });
});
