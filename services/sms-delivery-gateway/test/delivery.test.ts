import request from 'supertest';
import { NOW, buildGateway, deliveryBody, metricValue } from './support/gateway';

describe('POST /sms request body', () => {
  const { app } = buildGateway();

  it('answers 200 with an empty body and keeps the message', async () => {
    const res = await request(app).post('/sms').send(deliveryBody());
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    const [message] = (await request(app).get('/outbox/messages?recipient=%2B14155550123')).body as Array<Record<string, unknown>>;
    expect(message).toMatchObject({ recipient: '+14155550123', sender: '+15005550006', body: 'Your verification code is 482913' });
  });

  it('accepts a message without sender', async () => {
    const { sender: _sender, ...body } = deliveryBody();
    expect((await request(app).post('/sms').send(body)).status).toBe(200);
  });

  it('accepts forwarded request info and ignores unknown fields', async () => {
    const body = deliveryBody({ req: { ip: '203.0.113.5', 'user-agent': 'Mozilla/5.0' }, connection: 'sms', extra: 1 });
    expect((await request(app).post('/sms').send(body)).status).toBe(200);
  });

  it('accepts a body of exactly 1,600 characters', async () => {
    expect((await request(app).post('/sms').send(deliveryBody({ body: 'x'.repeat(1600) }))).status).toBe(200);
  });

  const invalidCases: Array<[string, Record<string, unknown>, string]> = [
    ['a missing recipient', { recipient: undefined }, 'recipient'],
    ['a numeric recipient', { recipient: 14155550123 }, 'recipient'],
    ['a recipient without the leading +', { recipient: '14155550123' }, 'recipient'],
    ['a recipient with spaces', { recipient: '+1 415 555 0123' }, 'recipient'],
    ['a recipient of 16 digits', { recipient: '+1234567890123456' }, 'recipient'],
    ['a missing body', { body: undefined }, 'body'],
    ['an empty body', { body: '' }, 'body'],
    ['a body over 1,600 characters', { body: 'x'.repeat(1601) }, 'body'],
    ['a non-string body', { body: 482913 }, 'body'],
    ['a non-string sender', { sender: 15005550006 }, 'sender'],
    ['forwarded request info without ip', { req: { 'user-agent': 'curl' } }, 'req.ip'],
  ];
  it.each(invalidCases)('refuses %s with 400 naming the field', async (_name, overrides, field) => {
    const res = await request(app).post('/sms').send(JSON.parse(JSON.stringify(deliveryBody(overrides))));
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
    expect(res.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: field })]));
    expect(res.body.error_description).toContain(field);
  });

  it('refuses malformed JSON with 400', async () => {
    const res = await request(app).post('/sms').set('Content-Type', 'application/json').send('{"recipient": "+1415');
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
  });

  it('refuses a JSON array with 400', async () => {
    const res = await request(app).post('/sms').send([deliveryBody()]);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_request', error_description: expect.stringMatching(/JSON object/) });
  });

  it('refuses a JSON string with 400', async () => {
    const res = await request(app).post('/sms').set('Content-Type', 'application/json').send('"hello"');
    expect(res.status).toBe(400);
  });

  it('refuses a body that is not JSON with 400', async () => {
    const res = await request(app).post('/sms').set('Content-Type', 'text/plain').send('recipient=+14155550123');
    expect(res.status).toBe(400);
    expect(res.body.error_description).toMatch(/JSON object/);
  });

  it('refuses an invalid Idempotency-Key header with 400', async () => {
    const res = await request(app).post('/sms').set('Idempotency-Key', 'x'.repeat(256)).send(deliveryBody());
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([expect.objectContaining({ path: 'Idempotency-Key' })]);
  });

  it('stores nothing for a refused body', async () => {
    const fresh = buildGateway();
    await request(fresh.app).post('/sms').send(deliveryBody({ body: '' }));
    expect((await request(fresh.app).get('/outbox/messages')).body).toEqual([]);
  });
});

describe('POST /sms with Idempotency-Key', () => {
  it('answers a retried key with the first outcome without sending again', async () => {
    const { app, metrics } = buildGateway();
    const first = await request(app).post('/sms').set('Idempotency-Key', 'delivery-1').send(deliveryBody());
    const retry = await request(app).post('/sms').set('Idempotency-Key', 'delivery-1').send(deliveryBody());
    expect(first.status).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect((await request(app).get('/outbox/messages')).body).toHaveLength(1);
    expect(await metricValue(metrics, 'sms_deliveries_total', { provider: 'outbox', outcome: 'delivered' })).toBe(1);
    expect(await metricValue(metrics, 'sms_idempotent_replays_total', { provider: 'outbox' })).toBe(1);
  });

  it('sends again for a different key', async () => {
    const { app } = buildGateway();
    await request(app).post('/sms').set('Idempotency-Key', 'delivery-1').send(deliveryBody());
    await request(app).post('/sms').set('Idempotency-Key', 'delivery-2').send(deliveryBody());
    expect((await request(app).get('/outbox/messages')).body).toHaveLength(2);
  });

  it('sends again without a key', async () => {
    const { app } = buildGateway();
    await request(app).post('/sms').send(deliveryBody());
    await request(app).post('/sms').send(deliveryBody());
    expect((await request(app).get('/outbox/messages')).body).toHaveLength(2);
  });

  it('forgets a key after 10 minutes', async () => {
    let now = NOW;
    const { app } = buildGateway({}, { now: () => new Date(now) });
    await request(app).post('/sms').set('Idempotency-Key', 'delivery-1').send(deliveryBody());
    now += 10 * 60 * 1000 - 1;
    await request(app).post('/sms').set('Idempotency-Key', 'delivery-1').send(deliveryBody());
    expect((await request(app).get('/outbox/messages')).body).toHaveLength(1);
    now += 2;
    const late = await request(app).post('/sms').set('Idempotency-Key', 'delivery-1').send(deliveryBody());
    expect(late.headers['idempotent-replayed']).toBeUndefined();
    expect((await request(app).get('/outbox/messages')).body).toHaveLength(2);
  });

  it('refuses a key reused for a different message with 422 and sends nothing', async () => {
    const { app } = buildGateway();
    await request(app).post('/sms').set('Idempotency-Key', 'delivery-1').send(deliveryBody());
    const res = await request(app)
      .post('/sms')
      .set('Idempotency-Key', 'delivery-1')
      .send(deliveryBody({ body: 'Your verification code is 000000' }));
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('invalid_request');
    expect((await request(app).get('/outbox/messages')).body).toHaveLength(1);
  });
});

describe('delivery metrics', () => {
  it('counts delivered messages per provider and records the provider latency', async () => {
    const { app, metrics } = buildGateway();
    await request(app).post('/sms').send(deliveryBody());
    await request(app).post('/sms').send(deliveryBody());
    const text = (await request(app).get('/metrics')).text;
    expect(text).toContain('sms_deliveries_total');
    expect(await metricValue(metrics, 'sms_deliveries_total', { provider: 'outbox', outcome: 'delivered' })).toBe(2);
    expect(await metricValue(metrics, 'sms_deliveries_total', { provider: 'outbox', outcome: 'failed' })).toBe(0);
    expect(
      await metricValue(metrics, 'sms_provider_request_duration_seconds_count', { provider: 'outbox', outcome: 'delivered' }),
    ).toBe(2);
  });
});
