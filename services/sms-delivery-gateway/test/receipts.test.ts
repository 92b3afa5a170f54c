import { createHmac } from 'node:crypto';
import { MESSAGE_ID_HEADER, MessageStatusSchema } from '@smsauth/contracts';
import type { RecordingServer } from '@smsauth/test-support';
import request from 'supertest';
import { twilioSignature } from '../src/domain/receipt-signatures';
import { buildGateway, deliveryBody, metricValue, NOW } from './support/gateway';
import { TWILIO_SID, TWILIO_TOKEN, startFakeTwilio, type FakeTwilio } from './support/fake-twilio';
import { bodiesOf, startProvider } from './support/providers';
import { SECRET, signHs256 } from './support/tokens';

const PUBLIC_URL = 'https://sms-gateway.example.com';
const CALLBACK_SECRET = 'webhook-callback-secret-0123456789abcdef';

/** X-Twilio-Signature computed here the way Twilio's security docs describe it, independently of the gateway's code. */
function signLikeTwilio(authToken: string, url: string, params: Record<string, string>): string {
  const data = Object.keys(params)
    .sort()
    .reduce((acc, key) => acc + key + params[key], url);
  return createHmac('sha1', authToken).update(Buffer.from(data, 'utf-8')).digest('base64');
}

describe('the Twilio request signature', () => {
  it('matches the example of Twilio’s documentation', () => {
    // Twilio's published example: auth token 12345, this URL and these POST parameters.
    const params = { CallSid: 'CA1234567890ABCDE', Caller: '+14158675310', Digits: '1234', From: '+14158675310', To: '+18005551212' };
    expect(twilioSignature('12345', 'https://mycompany.com/myapp.php?foo=1&bar=2', Object.entries(params))).toBe('GvWf1cFY/Q7PnoempGyD5oXAezc=');
  });
});

describe('Twilio delivery receipts', () => {
  let twilio: FakeTwilio;
  beforeAll(async () => {
    twilio = await startFakeTwilio();
  });
  afterAll(() => twilio.close());

  const gateway = () =>
    buildGateway({
      SMS_PROVIDER: 'twilio',
      TWILIO_ACCOUNT_SID: TWILIO_SID,
      TWILIO_AUTH_TOKEN: TWILIO_TOKEN,
      TWILIO_FROM: '+15005550006',
      TWILIO_API_BASE_URL: twilio.baseUrl,
      GATEWAY_PUBLIC_URL: `${PUBLIC_URL}/`,
      GATEWAY_AUTH_SECRET: SECRET,
    });
  const bearer = () => `Bearer ${signHs256()}`;

  async function sendOne(app: ReturnType<typeof gateway>['app']) {
    const res = await request(app).post('/sms').set('Authorization', bearer()).send(deliveryBody());
    expect(res.status).toBe(200);
    const id = res.headers[MESSAGE_ID_HEADER.toLowerCase()] as string;
    return { id, form: twilio.requests.at(-1)?.form ?? {} };
  }

  function callback(app: ReturnType<typeof gateway>['app'], id: string, params: Record<string, string>, signature?: string) {
    const path = `/receipts/twilio/${id}`;
    const req = request(app).post(path).type('form').send(new URLSearchParams(params).toString());
    return signature === undefined ? req : req.set('X-Twilio-Signature', signature);
  }
  const statusOf = async (app: ReturnType<typeof gateway>['app'], id: string) =>
    (await request(app).get(`/messages/${id}`).set('Authorization', bearer())).body as unknown;

  it('asks Twilio for status callbacks at the gateway’s public URL', async () => {
    const { app } = gateway();
    const { id, form } = await sendOne(app);
    expect(form.StatusCallback).toBe(`${PUBLIC_URL}/receipts/twilio/${id}`);
  });

  it('moves the message through accepted, sent and delivered on signed callbacks, never back', async () => {
    const { app, metrics } = gateway();
    const { id } = await sendOne(app);
    const accepted = await request(app).get(`/messages/${id}`).set('Authorization', bearer());
    expect(accepted.status).toBe(200);
    expect(MessageStatusSchema.parse(accepted.body)).toEqual({
      id,
      status: 'accepted',
      provider: 'twilio',
      provider_message_id: expect.stringMatching(/^SM[0-9a-f]{32}$/),
      error_code: null,
      attempts: [{ provider: 'twilio', outcome: 'accepted' }],
      created_at: new Date(NOW).toISOString(),
      updated_at: new Date(NOW).toISOString(),
    });
    const sid = (accepted.body as { provider_message_id: string }).provider_message_id;
    const url = `${PUBLIC_URL}/receipts/twilio/${id}`;
    const receipt = (status: string) => ({ MessageSid: sid, SmsSid: sid, AccountSid: TWILIO_SID, MessageStatus: status, SmsStatus: status, To: '+14155550123', ApiVersion: '2010-04-01' });

    for (const [status, expected] of [['sent', 'sent'], ['delivered', 'delivered'], ['sent', 'delivered']] as const) {
      const params = receipt(status);
      const res = await callback(app, id, params, signLikeTwilio(TWILIO_TOKEN, url, params));
      expect(res.status).toBe(204);
      expect(await statusOf(app, id)).toMatchObject({ status: expected, error_code: null });
    }
    expect(await metricValue(metrics, 'sms_delivery_status_total', { provider: 'twilio', status: 'accepted' })).toBe(1);
    expect(await metricValue(metrics, 'sms_delivery_status_total', { provider: 'twilio', status: 'sent' })).toBe(1);
    expect(await metricValue(metrics, 'sms_delivery_status_total', { provider: 'twilio', status: 'delivered' })).toBe(1);
  });

  it('records undelivered with Twilio’s error code', async () => {
    const { app } = gateway();
    const { id } = await sendOne(app);
    const sid = ((await statusOf(app, id)) as { provider_message_id: string }).provider_message_id;
    const params = { MessageSid: sid, MessageStatus: 'undelivered', ErrorCode: '30003' };
    const res = await callback(app, id, params, signLikeTwilio(TWILIO_TOKEN, `${PUBLIC_URL}/receipts/twilio/${id}`, params));
    expect(res.status).toBe(204);
    expect(await statusOf(app, id)).toMatchObject({ status: 'undelivered', error_code: '30003' });
  });

  it('asks for a voice call’s status callbacks and reads an unanswered call as undelivered, a completed one as delivered', async () => {
    const { app } = gateway();
    for (const [callStatus, status] of [['no-answer', 'undelivered'], ['completed', 'delivered']] as const) {
      const res = await request(app).post('/sms').set('Authorization', bearer()).send(deliveryBody({ channel: 'voice', code: '482913', language: 'en-US' }));
      expect(res.status).toBe(200);
      const id = res.headers[MESSAGE_ID_HEADER.toLowerCase()] as string;
      const call = twilio.requests.at(-1)!;
      expect(call.url.endsWith('/Calls.json')).toBe(true);
      expect(call.form.StatusCallback).toBe(`${PUBLIC_URL}/receipts/twilio/${id}`);
      const sid = ((await statusOf(app, id)) as { provider_message_id: string }).provider_message_id;
      expect(sid).toMatch(/^CA/);
      const params = { CallSid: sid, CallStatus: callStatus };
      const receipt = await callback(app, id, params, signLikeTwilio(TWILIO_TOKEN, `${PUBLIC_URL}/receipts/twilio/${id}`, params));
      expect(receipt.status).toBe(204);
      expect(await statusOf(app, id)).toMatchObject({ status });
    }
  });

  it('refuses an unsigned callback and one signed with another token or for another URL, with 403, and changes nothing', async () => {
    const { app, logs } = gateway();
    const { id } = await sendOne(app);
    const params = { MessageSid: 'SM0', MessageStatus: 'delivered' };
    const url = `${PUBLIC_URL}/receipts/twilio/${id}`;

    const unsigned = await callback(app, id, params);
    const wrongToken = await callback(app, id, params, signLikeTwilio('not-the-auth-token', url, params));
    const wrongUrl = await callback(app, id, params, signLikeTwilio(TWILIO_TOKEN, `http://127.0.0.1/receipts/twilio/${id}`, params));
    const tampered = await callback(app, id, { ...params, MessageStatus: 'failed' }, signLikeTwilio(TWILIO_TOKEN, url, params));

    expect(unsigned.status).toBe(403);
    expect(unsigned.body).toEqual({ error: 'forbidden', error_description: 'The delivery receipt is not signed' });
    for (const res of [wrongToken, wrongUrl, tampered]) {
      expect(res.status).toBe(403);
      expect(res.body.error_description).toBe('The delivery receipt signature does not verify');
    }
    expect(await statusOf(app, id)).toMatchObject({ status: 'accepted' });
    expect(logs.text()).not.toContain(TWILIO_TOKEN);
  });

  it('answers 404 to a correctly signed receipt for a message it does not know', async () => {
    const { app } = gateway();
    const params = { MessageSid: 'SM1', MessageStatus: 'delivered' };
    const res = await callback(app, 'no-such-message', params, signLikeTwilio(TWILIO_TOKEN, `${PUBLIC_URL}/receipts/twilio/no-such-message`, params));
    expect(res.status).toBe(404);
  });

  it('answers 400 to a signed callback that is not a status callback', async () => {
    const { app } = gateway();
    const { id } = await sendOne(app);
    const params = { MessageSid: 'SM1', MessageStatus: 'teleported' };
    const res = await callback(app, id, params, signLikeTwilio(TWILIO_TOKEN, `${PUBLIC_URL}/receipts/twilio/${id}`, params));
    expect(res.status).toBe(400);
    expect(res.body.error_description).toBe('Unknown Twilio MessageStatus teleported');
  });

  it('guards GET /messages/{id} like POST /sms and answers 404 for an unknown id', async () => {
    const { app } = gateway();
    const { id } = await sendOne(app);
    expect((await request(app).get(`/messages/${id}`)).status).toBe(401);
    const unknown = await request(app).get('/messages/unknown').set('Authorization', bearer());
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('not_found');
  });
});

describe('webhook delivery receipts', () => {
  let receiver: RecordingServer;
  beforeEach(async () => {
    receiver = await startProvider();
  });
  afterEach(() => receiver.close());

  const gateway = () =>
    buildGateway({
      SMS_PROVIDER_INSTANCES: JSON.stringify({ regional: { provider: 'webhook', WEBHOOK_URL: receiver.url(), WEBHOOK_CALLBACK_SECRET: CALLBACK_SECRET } }),
      SMS_ROUTES: '{"default":["regional"]}',
      GATEWAY_PUBLIC_URL: PUBLIC_URL,
    });
  const sign = (body: string, secret = CALLBACK_SECRET) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
  const post = (app: ReturnType<typeof gateway>['app'], url: string, body: string, signature?: string) => {
    const req = request(app).post(url).set('content-type', 'application/json').send(body);
    return signature === undefined ? req : req.set('Webhook-Signature', signature);
  };

  it('tells the receiver where to send receipts and records a signed one with its error code', async () => {
    const { app, metrics } = gateway();
    const sent = await request(app).post('/sms').send(deliveryBody());
    const id = sent.headers[MESSAGE_ID_HEADER.toLowerCase()] as string;
    const callbackUrl = `${PUBLIC_URL}/receipts/regional/${id}`;
    expect(bodiesOf(receiver)).toEqual([expect.objectContaining({ id, status_callback: callbackUrl })]);

    // Spacing kept as sent: the signature covers the exact bytes.
    const body = '{ "status": "failed", "error_code": 4711, "provider_message_id": "rg-1" }';
    const res = await post(app, new URL(callbackUrl).pathname, body, sign(body));
    expect(res.status).toBe(204);
    const status = await request(app).get(`/messages/${id}`);
    expect(status.body).toMatchObject({ status: 'failed', provider: 'regional', provider_message_id: 'rg-1', error_code: '4711' });
    expect(await metricValue(metrics, 'sms_delivery_status_total', { provider: 'regional', status: 'failed' })).toBe(1);
  });

  it('refuses a receipt without signature, with a wrong one, or re-serialised after signing', async () => {
    const { app } = gateway();
    const sent = await request(app).post('/sms').send(deliveryBody());
    const path = `/receipts/regional/${sent.headers[MESSAGE_ID_HEADER.toLowerCase()] as string}`;
    const body = '{ "status": "delivered" }';
    expect((await post(app, path, body)).status).toBe(403);
    expect((await post(app, path, body, sign(body, 'another-secret-0123456789abcdef-0123'))).status).toBe(403);
    expect((await post(app, path, JSON.stringify(JSON.parse(body)), sign(body))).status).toBe(403);
    expect((await request(app).get(path.replace('/receipts/regional', '/messages'))).body.status).toBe('accepted');
  });

  it('answers 404 to receipts for a provider that sends none', async () => {
    const { app } = gateway();
    const body = '{"status":"delivered"}';
    expect((await post(app, '/receipts/outbox/any', body, sign(body))).status).toBe(404);
  });
});
