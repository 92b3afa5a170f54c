import { MESSAGE_ID_HEADER } from '@smsauth/contracts';
import type { RecordingServer } from '@smsauth/test-support';
import request from 'supertest';
import { TELNYX_ERROR_CODES } from '../src/providers/telnyx';
import { problemsOf } from './support/config';
import { VONAGE_KEY, VONAGE_SECRET, startFakeVonage } from './support/fake-vonage';
import { TELNYX_API_KEY, TELNYX_PROFILE_ID, signLikeTelnyx, startFakeTelnyx, telnyxKeyPair, type FakeTelnyx } from './support/fake-telnyx';
import { buildGateway, deliveryBody, metricValue, nowSeconds } from './support/gateway';
import { expectFailover, withFakeAndBackup } from './support/provider-suite';

const PUBLIC_URL = 'https://sms-gateway.example.com';

describe('telnyx provider', () => {
  let telnyx: FakeTelnyx;
  let backup: RecordingServer;
  withFakeAndBackup(startFakeTelnyx, (fake, server) => {
    [telnyx, backup] = [fake, server];
  });

  const telnyxEnv = (overrides: Record<string, string> = {}) => ({
    SMS_PROVIDER: 'telnyx',
    TELNYX_API_KEY,
    TELNYX_FROM: '+13125550100',
    TELNYX_API_BASE_URL: telnyx.baseUrl,
    ...overrides,
  });

  it('sends JSON with the Bearer key and answers 200 when Telnyx accepts it', async () => {
    const { app, metrics, logs } = buildGateway(telnyxEnv());
    const res = await request(app).post('/sms').send(deliveryBody({ sender: '+19995550000' }));
    expect(res.status).toBe(200);
    expect(telnyx.requests).toHaveLength(1);
    const [sent] = telnyx.requests;
    expect(sent?.method).toBe('POST');
    expect(sent?.url).toBe('/v2/messages');
    expect(sent?.headers.authorization).toBe(`Bearer ${TELNYX_API_KEY}`);
    expect(sent?.headers['content-type']).toMatch(/^application\/json/);
    expect(sent?.json).toEqual({ to: '+14155550123', from: '+13125550100', text: 'Your verification code is 482913', type: 'SMS' });
    expect(await metricValue(metrics, 'sms_deliveries_total', { provider: 'telnyx', outcome: 'delivered' })).toBe(1);
    expect(logs.entries().find((entry) => entry.msg === 'sms delivered')?.providerMessageId).toMatch(/^[0-9a-f-]{36}$/);
    expect(logs.text()).not.toContain(TELNYX_API_KEY);
    expect(logs.text()).not.toContain('482913');
  });

  it('sends non-GSM text intact as UTF-8 JSON, and through a messaging profile with an alphanumeric sender', async () => {
    const { app } = buildGateway(telnyxEnv({ TELNYX_FROM: 'Acme', TELNYX_MESSAGING_PROFILE_ID: TELNYX_PROFILE_ID }));
    expect((await request(app).post('/sms').send(deliveryBody({ body: 'Код 123456' }))).status).toBe(200);
    expect(telnyx.requests[0]?.json).toEqual({ to: '+14155550123', from: 'Acme', messaging_profile_id: TELNYX_PROFILE_ID, text: 'Код 123456', type: 'SMS' });
  });

  it('names the refusal but no credential when Telnyx answers 401', async () => {
    const { app, logs } = buildGateway(telnyxEnv({ TELNYX_API_KEY: 'KEYwrong-telnyx-key-0123' }));
    const res = await request(app).post('/sms').send(deliveryBody());
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: 'provider_error', error_description: 'Telnyx error 10009 (HTTP 401): Authentication failed: The API key is invalid.' });
    expect(JSON.stringify(res.body) + logs.text()).not.toContain('KEYwrong-telnyx-key-0123');
  });

  describe('error mapping: each error code decides between failing over and refusing the message', () => {
    // Telnyx's API and messaging error codes, read as: may another provider deliver it?
    const table: Array<[code: string, httpStatus: number, title: string, failsOver: boolean]> = [
      ['10001', 422, 'Inactive phone number', true],
      ['10002', 422, 'Invalid phone number', false],
      ['10004', 422, 'Missing required parameter', true],
      ['10005', 404, 'Resource not found', true],
      ['10007', 500, 'Unexpected error', true],
      ['10008', 408, 'Request timeout', true],
      ['10009', 401, 'Authentication failed', true],
      ['10010', 403, 'Authorization failed', true],
      ['10011', 429, 'Too many requests', true],
      ['10016', 422, 'Phone number must be in +E.164 format', false],
      ['40001', 422, 'Not routable', false],
      ['40002', 422, 'Blocked as spam (temporary)', true],
      ['40003', 422, 'Blocked as spam (permanent)', true],
      ['40004', 422, 'Rejected by destination', true],
      ['40005', 422, 'Message expired', true],
      ['40006', 422, 'Recipient unavailable', true],
      ['40008', 422, 'Undeliverable', true],
      ['40009', 422, 'Invalid message body', false],
      ['40011', 429, 'Rate limit', true],
      // Not in the table: the HTTP status decides.
      ['99999', 422, 'A code Telnyx may add later (4xx)', false],
      ['99998', 503, 'A code Telnyx may add later (5xx)', true],
    ];

    it('covers every code of the provider table', () => {
      expect(Object.keys(TELNYX_ERROR_CODES).sort()).toEqual(table.map(([code]) => code).filter((code) => !code.startsWith('9999')).sort());
    });

    it.each(table)('error %s (HTTP %d, %s): fails over to the next provider = %s', async (code, httpStatus, title, failsOver) => {
      telnyx.answerWith = { status: httpStatus, code, title };
      const { app, metrics } = buildGateway({
        SMS_PROVIDER_INSTANCES: JSON.stringify({ backup: { provider: 'webhook', WEBHOOK_URL: backup.url() } }),
        SMS_ROUTES: JSON.stringify({ default: ['telnyx', 'backup'] }),
        ...telnyxEnv(),
      });
      const res = await request(app).post('/sms').send(deliveryBody());
      expect(telnyx.requests).toHaveLength(1);
      if (failsOver) {
        expect(res.status).toBe(200);
        expect(backup.requests).toHaveLength(1);
        expect(await metricValue(metrics, 'sms_failovers_total', { from: 'telnyx', to: 'backup' })).toBe(1);
      } else {
        expect(res.status).toBe(500);
        expect(res.body).toEqual({ error: 'provider_error', error_description: `Telnyx error ${code} (HTTP ${httpStatus}): ${title}` });
        expect(backup.requests).toHaveLength(0);
      }
    });
  });

  it('fails over to a Vonage instance when Telnyx is down (HTTP 503 without an error body)', async () => {
    await expectFailover({
      from: 'telnyx',
      fromSettings: (origin) => telnyxEnv({ TELNYX_API_BASE_URL: origin }),
      answer: (_req, res) => res.writeHead(503).end(),
      to: 'vonage-eu',
      startNext: startFakeVonage,
      nextSettings: (next) => ({ provider: 'vonage', VONAGE_API_KEY: VONAGE_KEY, VONAGE_API_SECRET: VONAGE_SECRET, VONAGE_FROM: 'AcmeInc', VONAGE_API_BASE_URL: next.baseUrl }),
      failedWith: 503,
    });
  });

  it('refuses WhatsApp and voice deliveries (SMS only)', async () => {
    const { app } = buildGateway(telnyxEnv());
    const res = await request(app).post('/sms').send(deliveryBody({ channel: 'voice' }));
    expect(res.status).toBe(500);
    expect(res.body.error_description).toBe('Telnyx sends SMS only here, not voice');
    expect(telnyx.requests).toHaveLength(0);
  });
});

describe('telnyx settings', () => {
  it('names every missing variable when telnyx is selected', () => {
    expect(problemsOf({ SMS_PROVIDER: 'telnyx' })).toEqual([
      'TELNYX_API_KEY: is required when SMS_PROVIDER is telnyx',
      'TELNYX_FROM: TELNYX_FROM or TELNYX_MESSAGING_PROFILE_ID is required when SMS_PROVIDER is telnyx',
    ]);
  });

  it('accepts a messaging profile alone, and refuses an alphanumeric sender without one, a bad sender, profile id or public key', () => {
    expect(problemsOf({ SMS_PROVIDER: 'telnyx', TELNYX_API_KEY, TELNYX_MESSAGING_PROFILE_ID: TELNYX_PROFILE_ID })).toEqual([]);
    expect(problemsOf({ SMS_PROVIDER: 'telnyx', TELNYX_API_KEY, TELNYX_FROM: 'Acme' })).toEqual([expect.stringMatching(/^TELNYX_FROM: an alphanumeric sender id needs TELNYX_MESSAGING_PROFILE_ID/)]);
    expect(problemsOf({ SMS_PROVIDER: 'telnyx', TELNYX_API_KEY, TELNYX_FROM: '312-555-0100' })).toEqual([expect.stringMatching(/^TELNYX_FROM: must be an E.164 number/)]);
    expect(problemsOf({ TELNYX_MESSAGING_PROFILE_ID: 'profile-1' })).toEqual([expect.stringMatching(/^TELNYX_MESSAGING_PROFILE_ID: must be a Telnyx messaging profile id/)]);
    expect(problemsOf({ TELNYX_PUBLIC_KEY: 'bm90IGEga2V5' })).toEqual([expect.stringMatching(/^TELNYX_PUBLIC_KEY: must be the account's Ed25519 public key/)]);
    expect(problemsOf({ TELNYX_PUBLIC_KEY: telnyxKeyPair().publicKeyBase64 })).toEqual([]);
  });
});

describe('routing by country across providers: each kind a route names is configured by its own variables', () => {
  it('loads with each kind configured by its own variables, and names what a used kind misses', () => {
    const routes = '{"+1": ["twilio", "telnyx"], "+44": ["vonage", "telnyx"], "DE": ["vonage", "telnyx"], "FR": ["vonage", "telnyx"], "default": ["twilio", "telnyx"]}';
    const env = {
      SMS_ROUTES: routes,
      TWILIO_ACCOUNT_SID: `AC${'0123456789abcdef'.repeat(2)}`,
      TWILIO_AUTH_TOKEN: 't',
      TWILIO_FROM: '+15005550006',
      VONAGE_API_KEY: 'abcd1234',
      VONAGE_API_SECRET: 's',
      VONAGE_FROM: 'AcmeInc',
      TELNYX_API_KEY,
      TELNYX_FROM: '+13125550100',
    };
    expect(problemsOf({ ...env, NODE_ENV: 'production' })).toEqual([]);
    const { TELNYX_API_KEY: _key, ...withoutTelnyxKey } = env;
    expect(problemsOf(withoutTelnyxKey)).toEqual(['TELNYX_API_KEY: is required when SMS_ROUTES uses telnyx']);
  });
});

describe('Telnyx delivery receipts', () => {
  let telnyx: FakeTelnyx;
  beforeAll(async () => {
    telnyx = await startFakeTelnyx();
  });
  afterAll(() => telnyx.close());
  const account = telnyxKeyPair();

  const gateway = (overrides: Record<string, string> = {}) =>
    buildGateway({
      SMS_PROVIDER: 'telnyx',
      TELNYX_API_KEY,
      TELNYX_FROM: '+13125550100',
      TELNYX_API_BASE_URL: telnyx.baseUrl,
      TELNYX_PUBLIC_KEY: account.publicKeyBase64,
      GATEWAY_PUBLIC_URL: PUBLIC_URL,
      ...overrides,
    });
  type App = ReturnType<typeof gateway>['app'];

  async function sendOne(app: App) {
    const res = await request(app).post('/sms').send(deliveryBody());
    expect(res.status).toBe(200);
    const id = res.headers[MESSAGE_ID_HEADER.toLowerCase()] as string;
    const status = await request(app).get(`/messages/${id}`);
    return { id, json: telnyx.requests.at(-1)!.json, telnyxId: (status.body as { provider_message_id: string }).provider_message_id };
  }
  const statusOf = async (app: App, id: string) => (await request(app).get(`/messages/${id}`)).body as unknown;

  /** A message webhook as Telnyx's documentation shows it. */
  const event = (telnyxId: string, eventType: string, status: string, errors: Array<{ code: string; title: string }> = []) =>
    JSON.stringify({
      data: {
        event_type: eventType,
        id: '4ee8c3a6-4995-4309-a3c6-38e3db9ea4be',
        occurred_at: '2025-01-15T12:00:01.000+00:00',
        payload: {
          id: telnyxId,
          record_type: 'message',
          direction: 'outbound',
          type: 'SMS',
          to: [{ phone_number: '+14155550123', status, carrier: 'T-MOBILE USA, INC.', line_type: 'Wireless' }],
          errors,
        },
        record_type: 'event',
      },
      meta: { attempt: 1, delivered_to: `${PUBLIC_URL}/receipts/telnyx/x` },
    });
  const post = (app: App, id: string, body: string, headers: Record<string, string>) => {
    const req = request(app).post(`/receipts/telnyx/${id}`).set('content-type', 'application/json');
    for (const [name, value] of Object.entries(headers)) req.set(name, value);
    return req.send(body);
  };
  const signedHeaders = (body: string, timestamp = String(nowSeconds()), key = account.privateKey) => ({
    'telnyx-timestamp': timestamp,
    'telnyx-signature-ed25519': signLikeTelnyx(key, timestamp, body),
  });

  it('asks Telnyx to send this message’s webhooks to the gateway', async () => {
    const { app } = gateway();
    const { id, json } = await sendOne(app);
    expect(json).toMatchObject({ webhook_url: `${PUBLIC_URL}/receipts/telnyx/${id}`, use_profile_webhooks: false });
  });

  it('moves the message to sent then delivered on signed webhooks, and records a failed delivery with its error code', async () => {
    const { app } = gateway();
    const { id, telnyxId } = await sendOne(app);
    for (const [type, status, expected] of [['message.sent', 'sent', 'sent'], ['message.finalized', 'delivered', 'delivered']] as const) {
      const body = event(telnyxId, type, status);
      expect((await post(app, id, body, signedHeaders(body))).status).toBe(204);
      expect(await statusOf(app, id)).toMatchObject({ status: expected, error_code: null });
    }
    const second = await sendOne(app);
    const failed = event(second.telnyxId, 'message.finalized', 'delivery_failed', [{ code: '40008', title: 'Undeliverable' }]);
    expect((await post(app, second.id, failed, signedHeaders(failed))).status).toBe(204);
    expect(await statusOf(app, second.id)).toMatchObject({ status: 'undelivered', error_code: '40008' });
  });

  it('refuses an unsigned webhook, a forged one, a tampered one and a stale one with 403, changing nothing', async () => {
    const { app } = gateway();
    const { id, telnyxId } = await sendOne(app);
    const body = event(telnyxId, 'message.finalized', 'delivered');
    const forger = telnyxKeyPair();
    const stale = String(nowSeconds() - 301);
    const cases: Array<Record<string, string>> = [
      {},
      signedHeaders(body, String(nowSeconds()), forger.privateKey),
      { ...signedHeaders(body), 'telnyx-timestamp': String(nowSeconds() + 1) },
      signedHeaders(body, stale),
    ];
    for (const headers of cases) expect((await post(app, id, body, headers)).status).toBe(403);
    const reserialised = JSON.stringify(JSON.parse(body), null, 1);
    expect((await post(app, id, reserialised, signedHeaders(body))).status).toBe(403);
    expect(await statusOf(app, id)).toMatchObject({ status: 'accepted' });
  });

  it('refuses a genuine webhook of one message replayed to another message’s URL', async () => {
    const { app } = gateway();
    const first = await sendOne(app);
    const second = await sendOne(app);
    const body = event(first.telnyxId, 'message.finalized', 'delivered');
    expect((await post(app, second.id, body, signedHeaders(body))).status).toBe(404);
    expect(await statusOf(app, second.id)).toMatchObject({ status: 'accepted' });
  });

  it('asks for no webhooks and takes none without TELNYX_PUBLIC_KEY', async () => {
    const { app } = gateway({ TELNYX_PUBLIC_KEY: '' });
    const { id, json, telnyxId } = await sendOne(app);
    expect(json.webhook_url).toBeUndefined();
    const body = event(telnyxId, 'message.finalized', 'delivered');
    expect((await post(app, id, body, signedHeaders(body))).status).toBe(404);
  });
});
