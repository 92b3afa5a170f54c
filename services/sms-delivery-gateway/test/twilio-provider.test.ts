import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { buildGateway, deliveryBody, metricValue } from './support/gateway';
import { startProvider } from './support/providers';
import { INVALID_TO, TWILIO_SID, TWILIO_TOKEN, startFakeTwilio, type FakeTwilio } from './support/fake-twilio';

const MESSAGING_SERVICE_SID = `MG${'abcdef0123456789'.repeat(2)}`;

describe('twilio provider', () => {
  let twilio: FakeTwilio;
  beforeAll(async () => {
    twilio = await startFakeTwilio();
  });
  afterAll(() => twilio.close());
  beforeEach(() => {
    twilio.requests.length = 0;
  });

  const twilioEnv = (overrides: Record<string, string> = {}) => ({
    SMS_PROVIDER: 'twilio',
    TWILIO_ACCOUNT_SID: TWILIO_SID,
    TWILIO_AUTH_TOKEN: TWILIO_TOKEN,
    TWILIO_FROM: '+15005550006',
    TWILIO_API_BASE_URL: twilio.baseUrl,
    ...overrides,
  });

  it('sends a form-encoded message with basic auth and answers 200 when Twilio accepts it', async () => {
    const { app, metrics, logs } = buildGateway(twilioEnv());
    const res = await request(app).post('/sms').send(deliveryBody({ sender: '+19995550000' }));
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    expect(twilio.requests).toHaveLength(1);
    const [sent] = twilio.requests;
    expect(sent?.method).toBe('POST');
    expect(sent?.url).toBe(`/2010-04-01/Accounts/${TWILIO_SID}/Messages.json`);
    expect(sent?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(sent?.form).toEqual({ To: '+14155550123', From: '+15005550006', Body: 'Your verification code is 482913' });
    expect(await metricValue(metrics, 'sms_deliveries_total', { provider: 'twilio', outcome: 'delivered' })).toBe(1);
    const delivered = logs.entries().find((entry) => entry.msg === 'sms delivered');
    expect(delivered?.providerMessageId).toMatch(/^SM[0-9a-f]{32}$/);
  });

  it('sends through a Messaging Service when TWILIO_MESSAGING_SERVICE_SID is set', async () => {
    const { TWILIO_FROM: _from, ...env } = twilioEnv({ TWILIO_MESSAGING_SERVICE_SID: MESSAGING_SERVICE_SID });
    const { app } = buildGateway(env);
    expect((await request(app).post('/sms').send(deliveryBody())).status).toBe(200);
    expect(twilio.requests[0]?.form).toEqual({
      To: '+14155550123',
      MessagingServiceSid: MESSAGING_SERVICE_SID,
      Body: 'Your verification code is 482913',
    });
  });

  it('answers 500 provider_error with Twilio code and message when Twilio refuses the number', async () => {
    const { app, metrics } = buildGateway(twilioEnv());
    const res = await request(app).post('/sms').send(deliveryBody({ recipient: INVALID_TO }));
    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      error: 'provider_error',
      error_description: `Twilio error 21211 (HTTP 400): The 'To' number ${INVALID_TO} is not a valid phone number.`,
    });
    expect(await metricValue(metrics, 'sms_deliveries_total', { provider: 'twilio', outcome: 'failed' })).toBe(1);
  });

  it('answers 500 provider_error naming the authentication failure but no credential when Twilio answers 401', async () => {
    const wrongToken = 'wrong-twilio-token-fedcba9876543210';
    const { app, logs } = buildGateway(twilioEnv({ TWILIO_AUTH_TOKEN: wrongToken }));
    const res = await request(app).post('/sms').send(deliveryBody());
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: 'provider_error', error_description: 'Twilio error 20003 (HTTP 401): Authenticate' });
    expect(JSON.stringify(res.body)).not.toContain(wrongToken);
    expect(logs.text()).not.toContain(wrongToken);
    expect(logs.text()).not.toContain(Buffer.from(`${TWILIO_SID}:${wrongToken}`).toString('base64'));
  });

  it('fails over to the next provider when Twilio refuses the account’s credentials (401), as Vonage, Telnyx and the others do', async () => {
    const backup = await startProvider();
    try {
      const { app, metrics, logs } = buildGateway({
        ...twilioEnv({ TWILIO_AUTH_TOKEN: 'wrong-twilio-token-fedcba9876543210' }),
        SMS_PROVIDER_INSTANCES: JSON.stringify({ backup: { provider: 'webhook', WEBHOOK_URL: backup.url() } }),
        SMS_ROUTES: JSON.stringify({ default: ['twilio', 'backup'] }),
      });
      expect((await request(app).post('/sms').send(deliveryBody())).status).toBe(200);
      expect(backup.requests).toHaveLength(1);
      expect(await metricValue(metrics, 'sms_failovers_total', { from: 'twilio', to: 'backup' })).toBe(1);
      expect(logs.entries().find((entry) => entry.msg === 'sms delivered')?.attempts).toEqual([
        { provider: 'twilio', outcome: 'failed', http_status: 401 },
        { provider: 'backup', outcome: 'accepted' },
      ]);
      // A refused message (invalid To, 21211) is still not handed to the next provider.
      backup.reset();
      const refused = await request(
        buildGateway({
          ...twilioEnv(),
          SMS_PROVIDER_INSTANCES: JSON.stringify({ backup: { provider: 'webhook', WEBHOOK_URL: backup.url() } }),
          SMS_ROUTES: JSON.stringify({ default: ['twilio', 'backup'] }),
        }).app,
      )
        .post('/sms')
        .send(deliveryBody({ recipient: INVALID_TO }));
      expect(refused.status).toBe(500);
      expect(backup.requests).toHaveLength(0);
    } finally {
      await backup.close();
    }
  });

  it('answers 500 provider_error when Twilio does not answer within TWILIO_TIMEOUT_MS', async () => {
    const silent: Server = createServer(() => {
      // Never answers.
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const port = (silent.address() as AddressInfo).port;
      const { app } = buildGateway(twilioEnv({ TWILIO_API_BASE_URL: `http://127.0.0.1:${port}`, TWILIO_TIMEOUT_MS: '200' }));
      const res = await request(app).post('/sms').send(deliveryBody());
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ error: 'provider_error', error_description: 'Twilio request failed: no answer within 200 ms' });
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('replays a failed outcome for a retried Idempotency-Key without calling Twilio again', async () => {
    const { app } = buildGateway(twilioEnv());
    const body = deliveryBody({ recipient: INVALID_TO });
    const first = await request(app).post('/sms').set('Idempotency-Key', 'k-1').send(body);
    const retry = await request(app).post('/sms').set('Idempotency-Key', 'k-1').send(body);
    expect(first.status).toBe(500);
    expect(retry.status).toBe(500);
    expect(retry.body).toEqual(first.body);
    expect(twilio.requests).toHaveLength(1);
  });
});
