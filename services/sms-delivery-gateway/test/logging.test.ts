import request from 'supertest';
import { INVALID_TO, TWILIO_SID, TWILIO_TOKEN, startFakeTwilio, type FakeTwilio } from './support/fake-twilio';
import { buildGateway, deliveryBody } from './support/gateway';
import { SECRET, deliveryClaims, signHs256 } from './support/tokens';

const CODE_BODY = 'Your verification code is 730194';

describe('gateway logs', () => {
  let twilio: FakeTwilio;
  beforeAll(async () => {
    twilio = await startFakeTwilio();
  });
  afterAll(() => twilio.close());

  it('never contain the message body, the token or the secret, and mask the recipient', async () => {
    const { app, logs } = buildGateway({ GATEWAY_AUTH_SECRET: SECRET });
    const token = signHs256();
    const badToken = signHs256(deliveryClaims({ aud: 'x' }), 'some-other-secret-that-is-long-enough!!');
    await request(app).post('/sms').set('Authorization', `Bearer ${token}`).set('Idempotency-Key', 'k1').send(deliveryBody({ body: CODE_BODY }));
    await request(app).post('/sms').set('Authorization', `Bearer ${token}`).set('Idempotency-Key', 'k1').send(deliveryBody({ body: CODE_BODY }));
    await request(app).post('/sms').set('Authorization', `Bearer ${badToken}`).send(deliveryBody({ body: CODE_BODY }));
    await request(app).post('/sms').set('Authorization', `Bearer ${token}`).send(deliveryBody({ body: CODE_BODY, recipient: 'bad' }));

    const text = logs.text();
    expect(text).toContain('sms delivered');
    expect(text).toContain('delivery refused');
    expect(text).not.toContain('730194');
    expect(text).not.toContain(token);
    expect(text).not.toContain(badToken);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('4155550123');
    const delivered = logs.entries().find((entry) => entry.msg === 'sms delivered');
    expect(delivered?.recipient).toBe('***0123');
  });

  it('keep the recipient filter of an outbox read out of the access log', async () => {
    const { app, logs } = buildGateway({});
    await request(app).post('/sms').send(deliveryBody({ body: CODE_BODY }));
    const res = await request(app).get('/outbox/messages?recipient=%2B14155550123');
    expect(res.status).toBe(200);
    expect(logs.text()).toContain('recipient=[REDACTED]');
    expect(logs.text()).not.toContain('4155550123');
  });

  it('mask the recipient quoted in a provider error and never log the provider credential', async () => {
    const { app, logs } = buildGateway({
      SMS_PROVIDER: 'twilio',
      TWILIO_ACCOUNT_SID: TWILIO_SID,
      TWILIO_AUTH_TOKEN: TWILIO_TOKEN,
      TWILIO_FROM: '+15005550006',
      TWILIO_API_BASE_URL: twilio.baseUrl,
    });
    const res = await request(app).post('/sms').send(deliveryBody({ recipient: INVALID_TO, body: CODE_BODY }));
    expect(res.status).toBe(500);
    const refused = logs.entries().find((entry) => entry.msg === 'sms provider refused the message');
    expect(refused).toMatchObject({ provider: 'twilio', recipient: '***0001', providerCode: 21211, providerStatus: 400 });
    const text = logs.text();
    expect(text).not.toContain('5005550001');
    expect(text).not.toContain('730194');
    expect(text).not.toContain(TWILIO_TOKEN);
  });
});
