import request from 'supertest';
import { OutboxMessageListSchema } from '@smsauth/contracts';
import { NOW, buildGateway, deliveryBody } from './support/gateway';

const OUTBOX_TOKEN = 'outbox-token-for-tests-0123456789';

describe('outbox provider', () => {
  it('is the default provider outside production', () => {
    expect(buildGateway().config.SMS_PROVIDER).toBe('outbox');
  });

  it('lists kept messages newest first with id, recipient, sender, body and received_at', async () => {
    let now = NOW;
    const { app } = buildGateway({}, { now: () => new Date(now) });
    await request(app).post('/sms').send(deliveryBody({ body: 'first 111111' }));
    now += 1000;
    const { sender: _sender, ...withoutSender } = deliveryBody({ body: 'second 222222' });
    await request(app).post('/sms').send(withoutSender);

    const res = await request(app).get('/outbox/messages');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(OutboxMessageListSchema.parse(res.body)).toEqual([
      { id: expect.any(String), recipient: '+14155550123', sender: null, body: 'second 222222', channel: 'sms', language: null, received_at: new Date(NOW + 1000).toISOString() },
      { id: expect.any(String), recipient: '+14155550123', sender: '+15005550006', body: 'first 111111', channel: 'sms', language: null, received_at: new Date(NOW).toISOString() },
    ]);
    expect(res.body[0].id).not.toBe(res.body[1].id);
  });

  it('filters by recipient, whether or not the + is percent-encoded', async () => {
    const { app } = buildGateway();
    await request(app).post('/sms').send(deliveryBody({ recipient: '+14155550123' }));
    await request(app).post('/sms').send(deliveryBody({ recipient: '+447700900123' }));
    const encoded = await request(app).get('/outbox/messages?recipient=%2B447700900123');
    expect(encoded.body.map((m: { recipient: string }) => m.recipient)).toEqual(['+447700900123']);
    const raw = await request(app).get('/outbox/messages?recipient=+447700900123');
    expect(raw.body.map((m: { recipient: string }) => m.recipient)).toEqual(['+447700900123']);
  });

  it('refuses a recipient filter that is not E.164 with 400', async () => {
    const { app } = buildGateway();
    const res = await request(app).get('/outbox/messages?recipient=abc');
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([expect.objectContaining({ path: 'recipient' })]);
  });

  it('keeps only the last OUTBOX_CAPACITY messages', async () => {
    const { app } = buildGateway({ OUTBOX_CAPACITY: '2' });
    for (const body of ['one', 'two', 'three']) await request(app).post('/sms').send(deliveryBody({ body }));
    const res = await request(app).get('/outbox/messages');
    expect(res.body.map((m: { body: string }) => m.body)).toEqual(['three', 'two']);
  });

  it('empties the outbox on DELETE /outbox/messages', async () => {
    const { app } = buildGateway();
    await request(app).post('/sms').send(deliveryBody());
    expect((await request(app).delete('/outbox/messages')).status).toBe(204);
    expect((await request(app).get('/outbox/messages')).body).toEqual([]);
  });
});

describe('outbox with OUTBOX_TOKEN', () => {
  const { app } = buildGateway({ OUTBOX_TOKEN });

  it('refuses reading without a token with 401 and a bearer challenge', async () => {
    const res = await request(app).get('/outbox/messages');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
    expect(res.body.error).toBe('invalid_token');
  });

  it('refuses reading with a wrong token with 401 invalid_token', async () => {
    const res = await request(app).get('/outbox/messages').set('Authorization', 'Bearer wrong-token');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
  });

  it('refuses emptying without the token and keeps the messages', async () => {
    await request(app).post('/sms').send(deliveryBody());
    expect((await request(app).delete('/outbox/messages')).status).toBe(401);
    const res = await request(app).get('/outbox/messages').set('Authorization', `Bearer ${OUTBOX_TOKEN}`);
    expect(res.body).toHaveLength(1);
  });

  it('serves and empties the outbox with the right token', async () => {
    const auth = `Bearer ${OUTBOX_TOKEN}`;
    expect((await request(app).get('/outbox/messages').set('Authorization', auth)).status).toBe(200);
    expect((await request(app).delete('/outbox/messages').set('Authorization', auth)).status).toBe(204);
    expect((await request(app).get('/outbox/messages').set('Authorization', auth)).body).toEqual([]);
  });

  it('does not protect POST /sms with the outbox token', async () => {
    expect((await request(app).post('/sms').send(deliveryBody())).status).toBe(200);
  });
});

describe('outbox in production', () => {
  const production = { NODE_ENV: 'production', SMS_PROVIDER: 'outbox', GATEWAY_AUTH_SECRET: 'p'.repeat(32) };

  it('keeps the read API off without OUTBOX_TOKEN and warns that messages never reach a phone', async () => {
    const { app, logs } = buildGateway(production);
    const startupWarnings = logs.entries().filter((entry) => entry.level === 40);
    expect((await request(app).get('/outbox/messages')).status).toBe(404);
    expect((await request(app).delete('/outbox/messages')).status).toBe(404);
    expect(startupWarnings).toEqual([expect.objectContaining({ msg: expect.stringMatching(/never reach a phone.*read API is off/) })]);
  });

  it('serves the read API with OUTBOX_TOKEN, behind the token', async () => {
    const { app } = buildGateway({ ...production, OUTBOX_TOKEN });
    expect((await request(app).get('/outbox/messages')).status).toBe(401);
    expect((await request(app).get('/outbox/messages').set('Authorization', `Bearer ${OUTBOX_TOKEN}`)).status).toBe(200);
  });

  it('has no outbox routes when another provider is configured', async () => {
    const { app } = buildGateway({ SMS_PROVIDER: 'webhook', WEBHOOK_URL: 'http://127.0.0.1:9/hook' });
    expect((await request(app).get('/outbox/messages')).status).toBe(404);
  });
});
