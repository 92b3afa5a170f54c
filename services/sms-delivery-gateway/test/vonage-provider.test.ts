import { createHmac } from 'node:crypto';
import { MESSAGE_ID_HEADER } from '@smsauth/contracts';
import type { RecordingServer } from '@smsauth/test-support';
import request from 'supertest';
import { VONAGE_STATUS_CODES } from '../src/providers/vonage';
import { problemsOf } from './support/config';
import { VONAGE_KEY, VONAGE_SECRET, VONAGE_SIGNATURE_SECRET, signLikeVonageMd5, startFakeVonage, type FakeVonage } from './support/fake-vonage';
import { buildGateway, deliveryBody, metricValue, nowSeconds } from './support/gateway';
import { withFakeAndBackup } from './support/provider-suite';
import { startProvider } from './support/providers';

const PUBLIC_URL = 'https://sms-gateway.example.com';

describe('vonage provider', () => {
  let vonage: FakeVonage;
  let backup: RecordingServer;
  withFakeAndBackup(startFakeVonage, (fake, server) => {
    [vonage, backup] = [fake, server];
  });

  const vonageEnv = (overrides: Record<string, string> = {}) => ({
    SMS_PROVIDER: 'vonage',
    VONAGE_API_KEY: VONAGE_KEY,
    VONAGE_API_SECRET: VONAGE_SECRET,
    VONAGE_FROM: 'AcmeInc',
    VONAGE_API_BASE_URL: vonage.baseUrl,
    ...overrides,
  });

  it('sends a form-encoded message with api_key and api_secret and answers 200 when Vonage accepts it', async () => {
    const { app, metrics, logs } = buildGateway(vonageEnv());
    const res = await request(app).post('/sms').send(deliveryBody({ sender: '+19995550000' }));
    expect(res.status).toBe(200);
    expect(vonage.requests).toHaveLength(1);
    const [sent] = vonage.requests;
    expect(sent?.method).toBe('POST');
    expect(sent?.url).toBe('/sms/json');
    expect(sent?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(sent?.form).toEqual({
      api_key: VONAGE_KEY,
      api_secret: VONAGE_SECRET,
      from: 'AcmeInc',
      to: '14155550123',
      text: 'Your verification code is 482913',
      'client-ref': res.headers[MESSAGE_ID_HEADER.toLowerCase()],
    });
    expect(await metricValue(metrics, 'sms_deliveries_total', { provider: 'vonage', outcome: 'delivered' })).toBe(1);
    expect(logs.entries().find((entry) => entry.msg === 'sms delivered')?.providerMessageId).toMatch(/^[0-9A-F]{16}$/);
    expect(logs.text()).not.toContain(VONAGE_SECRET);
    expect(logs.text()).not.toContain('482913');
  });

  it('sends text outside GSM-7 as type=unicode, intact, and GSM-7 text with accents as plain text', async () => {
    const { app } = buildGateway(vonageEnv({ VONAGE_FROM: '+447700900000' }));
    expect((await request(app).post('/sms').send(deliveryBody({ body: 'Код 123456' }))).status).toBe(200);
    expect(vonage.requests[0]?.form).toMatchObject({ from: '447700900000', text: 'Код 123456', type: 'unicode' });

    expect((await request(app).post('/sms').send(deliveryBody({ body: 'Votre code: 123456 (valable 5 min) — é' }))).status).toBe(200);
    expect(vonage.requests[1]?.form.type).toBe('unicode');
    expect((await request(app).post('/sms').send(deliveryBody({ body: 'Ihr Code: 123456 – Über é' }))).status).toBe(200);
    expect(vonage.requests[2]?.form.type).toBe('unicode');
    expect((await request(app).post('/sms').send(deliveryBody({ body: 'Ihr Code: 123456. Über é {ok} €' }))).status).toBe(200);
    expect(vonage.requests[3]?.form.type).toBeUndefined();
  });

  it('signs the request with the signature secret when no API secret is set', async () => {
    const { VONAGE_API_SECRET: _secret, ...env } = vonageEnv({ VONAGE_SIGNATURE_SECRET });
    const { app } = buildGateway(env);
    expect((await request(app).post('/sms').send(deliveryBody())).status).toBe(200);
    const form = vonage.requests[0]!.form;
    expect(form.api_secret).toBeUndefined();
    expect(form.timestamp).toBe(String(nowSeconds()));
    expect(form.sig).toBe(signLikeVonageMd5(form, VONAGE_SIGNATURE_SECRET));
  });

  it('names the refusal but no credential when Vonage answers status 4 (bad credentials)', async () => {
    const wrong = 'wrong-vonage-secret-fedcba98';
    const { app, logs } = buildGateway(vonageEnv({ VONAGE_API_SECRET: wrong }));
    const res = await request(app).post('/sms').send(deliveryBody());
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: 'provider_error', error_description: 'Vonage status 4: Bad Credentials' });
    expect(JSON.stringify(res.body) + logs.text()).not.toContain(wrong);
  });

  describe('error mapping: each status code decides between failing over and refusing the message', () => {
    // Vonage's "SMS API error codes" table, read as: may another provider deliver it?
    const table: Array<[status: string, meaning: string, failsOver: boolean]> = [
      ['1', 'Throttled', true],
      ['2', 'Missing Parameters', true],
      ['3', 'Invalid Parameters', false],
      ['4', 'Invalid Credentials', true],
      ['5', 'Internal Error', true],
      ['6', 'Invalid Message', false],
      ['7', 'Number Barred', false],
      ['8', 'Partner Account Barred', true],
      ['9', 'Partner Quota Violation', true],
      ['10', 'Too Many Existing Binds', true],
      ['11', 'Account Not Enabled For HTTP', true],
      ['12', 'Message Too Long', false],
      ['14', 'Invalid Signature', true],
      ['15', 'Invalid Sender Address', true],
      ['22', 'Invalid Network Code', false],
      ['23', 'Invalid Callback URL', true],
      ['29', 'Non-Whitelisted Destination', true],
      ['32', 'Signature And API Secret Disallowed', true],
      ['33', 'Number De-activated', false],
      ['99', 'a code Vonage may add later', true],
    ];

    it('covers every code of the provider table', () => {
      expect(Object.keys(VONAGE_STATUS_CODES).sort()).toEqual(table.map(([status]) => status).filter((status) => status !== '99').sort());
    });

    const gateway = () =>
      buildGateway({
        SMS_PROVIDER_INSTANCES: JSON.stringify({ backup: { provider: 'webhook', WEBHOOK_URL: backup.url() } }),
        SMS_ROUTES: JSON.stringify({ default: ['vonage', 'backup'] }),
        ...vonageEnv(),
      });

    it.each(table)('status %s (%s): fails over to the next provider = %s', async (status, meaning, failsOver) => {
      vonage.answerWith = { status, errorText: meaning };
      const { app, metrics, logs } = gateway();
      const res = await request(app).post('/sms').send(deliveryBody());
      expect(vonage.requests).toHaveLength(1);
      if (failsOver) {
        expect(res.status).toBe(200);
        expect(backup.requests).toHaveLength(1);
        expect(await metricValue(metrics, 'sms_failovers_total', { from: 'vonage', to: 'backup' })).toBe(1);
        expect(logs.entries().find((entry) => entry.msg === 'sms delivered')?.attempts).toEqual([
          { provider: 'vonage', outcome: 'failed' },
          { provider: 'backup', outcome: 'accepted' },
        ]);
      } else {
        expect(res.status).toBe(500);
        expect(res.body).toEqual({ error: 'provider_error', error_description: `Vonage status ${status}: ${meaning}` });
        expect(backup.requests).toHaveLength(0);
      }
    });
  });

  it('fails over when Vonage does not answer with the SMS API (HTTP 503) and records the attempts', async () => {
    const down = await startProvider();
    try {
      down.respondWith((_req, res) => res.writeHead(503).end());
      const { app, metrics } = buildGateway({
        SMS_PROVIDER_INSTANCES: JSON.stringify({ backup: { provider: 'webhook', WEBHOOK_URL: backup.url() } }),
        SMS_ROUTES: JSON.stringify({ default: ['vonage', 'backup'] }),
        ...vonageEnv({ VONAGE_API_BASE_URL: down.origin }),
      });
      expect((await request(app).post('/sms').send(deliveryBody())).status).toBe(200);
      expect(down.requests).toHaveLength(1);
      expect(backup.requests).toHaveLength(1);
      expect(await metricValue(metrics, 'sms_failovers_total', { from: 'vonage', to: 'backup' })).toBe(1);
    } finally {
      await down.close();
    }
  });

  it('refuses WhatsApp deliveries without VONAGE_WHATSAPP_FROM (vonage-whatsapp.test.ts sends them)', async () => {
    const { app } = buildGateway(vonageEnv());
    const res = await request(app).post('/sms').send(deliveryBody({ channel: 'whatsapp' }));
    expect(res.status).toBe(500);
    expect(res.body.error_description).toBe('Vonage WhatsApp needs VONAGE_WHATSAPP_FROM (sent through the Messages API)');
    expect(vonage.requests).toHaveLength(0);
  });
});

describe('vonage settings', () => {
  it('names every missing variable when vonage is selected', () => {
    expect(problemsOf({ SMS_PROVIDER: 'vonage' })).toEqual([
      'VONAGE_API_KEY: is required when SMS_PROVIDER is vonage',
      'VONAGE_FROM: is required when SMS_PROVIDER is vonage',
      'VONAGE_API_SECRET: VONAGE_API_SECRET or VONAGE_SIGNATURE_SECRET is required when SMS_PROVIDER is vonage',
    ]);
  });

  it('refuses a sender that is neither E.164 nor an alphanumeric sender id, a malformed key and an unknown signature method', () => {
    expect(problemsOf({ SMS_PROVIDER: 'vonage', VONAGE_API_KEY: VONAGE_KEY, VONAGE_API_SECRET: 's', VONAGE_FROM: 'Acme Corporation' })).toEqual([
      expect.stringMatching(/^VONAGE_FROM: must be an E.164 number/),
    ]);
    expect(problemsOf({ SMS_PROVIDER: 'vonage', VONAGE_API_KEY: 'key/../x', VONAGE_API_SECRET: 's', VONAGE_FROM: '+447700900000' })).toEqual([
      expect.stringMatching(/^VONAGE_API_KEY: must be a Vonage API key/),
    ]);
    expect(problemsOf({ VONAGE_SIGNATURE_METHOD: 'sha3' })).toEqual([expect.stringMatching(/^VONAGE_SIGNATURE_METHOD: must be one of md5hash, /)]);
  });

  it('configures a vonage instance of SMS_PROVIDER_INSTANCES with its own variables', () => {
    const instances = JSON.stringify({ 'vonage-eu': { provider: 'vonage', VONAGE_API_KEY: VONAGE_KEY, VONAGE_API_SECRET: 's', VONAGE_FROM: 'Acme' } });
    expect(problemsOf({ SMS_PROVIDER: 'outbox', SMS_PROVIDER_INSTANCES: instances, SMS_ROUTES: '{"+44":["vonage-eu"]}' })).toEqual([]);
    const incomplete = JSON.stringify({ 'vonage-eu': { provider: 'vonage', VONAGE_API_KEY: VONAGE_KEY } });
    expect(problemsOf({ SMS_PROVIDER_INSTANCES: incomplete, SMS_ROUTES: '{"+44":["vonage-eu"]}' })).toEqual([
      'SMS_PROVIDER_INSTANCES: "vonage-eu".VONAGE_FROM: is required for a vonage provider',
      'SMS_PROVIDER_INSTANCES: "vonage-eu".VONAGE_API_SECRET: VONAGE_API_SECRET or VONAGE_SIGNATURE_SECRET is required when SMS_PROVIDER is vonage',
    ]);
  });
});

describe('Vonage delivery receipts', () => {
  let vonage: FakeVonage;
  beforeAll(async () => {
    vonage = await startFakeVonage();
  });
  afterAll(() => vonage.close());

  const gateway = (overrides: Record<string, string> = {}) =>
    buildGateway({
      SMS_PROVIDER: 'vonage',
      VONAGE_API_KEY: VONAGE_KEY,
      VONAGE_API_SECRET: VONAGE_SECRET,
      VONAGE_SIGNATURE_SECRET,
      VONAGE_FROM: 'AcmeInc',
      VONAGE_API_BASE_URL: vonage.baseUrl,
      GATEWAY_PUBLIC_URL: PUBLIC_URL,
      ...overrides,
    });
  type App = ReturnType<typeof gateway>['app'];

  async function sendOne(app: App) {
    const res = await request(app).post('/sms').send(deliveryBody());
    expect(res.status).toBe(200);
    const id = res.headers[MESSAGE_ID_HEADER.toLowerCase()] as string;
    const status = await request(app).get(`/messages/${id}`);
    return { id, form: vonage.requests.at(-1)!.form, providerMessageId: (status.body as { provider_message_id: string }).provider_message_id };
  }
  const statusOf = async (app: App, id: string) => (await request(app).get(`/messages/${id}`)).body as unknown;

  /** A DLR as Vonage documents its fields (before the signature). */
  const dlr = (id: string, messageId: string, status: string, extra: Record<string, string> = {}) => ({
    msisdn: '14155550123',
    to: 'AcmeInc',
    'network-code': '310090',
    messageId,
    price: '0.00570000',
    status,
    scts: '2501151200',
    'err-code': status === 'delivered' ? '0' : '5',
    'api-key': VONAGE_KEY,
    'client-ref': id,
    'message-timestamp': '2025-01-15 12:00:00',
    timestamp: String(nowSeconds()),
    nonce: 'a4ef6c3e-4f5b-4a0b-8c2d-1c1b0f2d3e4f',
    ...extra,
  });
  const signed = (params: Record<string, string>, secret = VONAGE_SIGNATURE_SECRET) => ({ ...params, sig: signLikeVonageMd5(params, secret) });
  const postForm = (app: App, id: string, params: Record<string, string>) =>
    request(app).post(`/receipts/vonage/${id}`).type('form').send(new URLSearchParams(params).toString());

  it('asks for a receipt at the gateway for each message', async () => {
    const { app } = gateway();
    const { id, form } = await sendOne(app);
    expect(form).toMatchObject({ 'status-report-req': 'true', callback: `${PUBLIC_URL}/receipts/vonage/${id}`, 'client-ref': id });
  });

  it('records a signed receipt (form) as delivered, and an HMAC-SHA256-signed JSON one as undelivered with its error code', async () => {
    const { app } = gateway();
    const first = await sendOne(app);
    expect((await postForm(app, first.id, signed(dlr(first.id, first.providerMessageId, 'delivered')))).status).toBe(204);
    expect(await statusOf(app, first.id)).toMatchObject({ status: 'delivered', error_code: null });

    const { app: hmacApp } = gateway({ VONAGE_SIGNATURE_METHOD: 'sha256hmac' });
    const second = await sendOne(hmacApp);
    const params = dlr(second.id, second.providerMessageId, 'failed');
    const sig = createHmac('sha256', VONAGE_SIGNATURE_SECRET)
      .update(Object.keys(params).sort().map((name) => `&${name}=${params[name as keyof typeof params].replace(/[&=]/g, '_')}`).join(''))
      .digest('hex')
      .toUpperCase();
    const res = await request(hmacApp).post(`/receipts/vonage/${second.id}`).set('content-type', 'application/json').send(JSON.stringify({ ...params, sig }));
    expect(res.status).toBe(204);
    expect(await statusOf(hmacApp, second.id)).toMatchObject({ status: 'undelivered', error_code: '5' });
  });

  it('refuses an unsigned receipt, a forged one, a tampered one and a stale one with 403, changing nothing', async () => {
    const { app } = gateway();
    const { id, providerMessageId } = await sendOne(app);
    const params = dlr(id, providerMessageId, 'delivered');
    const forged = signed(params, 'not-the-signature-secret-0123456789');
    const tampered = { ...signed(dlr(id, providerMessageId, 'failed')), status: 'delivered' };
    const stale = signed(dlr(id, providerMessageId, 'delivered', { timestamp: String(nowSeconds() - 301) }));
    for (const body of [params, forged, tampered, stale]) {
      const res = await postForm(app, id, body);
      expect(res.status).toBe(403);
    }
    expect(await statusOf(app, id)).toMatchObject({ status: 'accepted' });
  });

  it('refuses a genuine receipt of one message replayed to another message’s URL', async () => {
    const { app } = gateway();
    const first = await sendOne(app);
    const second = await sendOne(app);
    const receipt = signed(dlr(first.id, first.providerMessageId, 'delivered'));
    expect((await postForm(app, second.id, receipt)).status).toBe(400);
    const withoutRef = signed(Object.fromEntries(Object.entries(dlr(first.id, first.providerMessageId, 'delivered')).filter(([key]) => key !== 'client-ref')));
    expect((await postForm(app, second.id, withoutRef)).status).toBe(404);
    expect(await statusOf(app, second.id)).toMatchObject({ status: 'accepted' });
  });

  it('asks for no receipts and takes none without VONAGE_SIGNATURE_SECRET', async () => {
    const { app } = gateway({ VONAGE_SIGNATURE_SECRET: '' });
    const { id, form, providerMessageId } = await sendOne(app);
    expect(form.callback).toBeUndefined();
    expect((await postForm(app, id, signed(dlr(id, providerMessageId, 'delivered')))).status).toBe(404);
  });
});
