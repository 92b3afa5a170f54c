import { MESSAGE_ID_HEADER } from '@smsauth/contracts';
import type { RecordingServer } from '@smsauth/test-support';
import request from 'supertest';
import { PLIVO_HTTP_STATUSES, plivoSignatureV3 } from '../src/providers/plivo';
import { problemsOf } from './support/config';
import { PLIVO_AUTH_ID, PLIVO_AUTH_TOKEN, signLikePlivo, startFakePlivo, type FakePlivo } from './support/fake-plivo';
import { TELNYX_API_KEY, startFakeTelnyx } from './support/fake-telnyx';
import { buildGateway, deliveryBody, metricValue } from './support/gateway';
import { expectFailover, withFakeAndBackup } from './support/provider-suite';

const PUBLIC_URL = 'https://sms-gateway.example.com';
const POWERPACK = '6a5c8b3e-12d4-4f8a-9b1c-0d2e3f4a5b6c';

describe('plivo provider', () => {
  let plivo: FakePlivo;
  let backup: RecordingServer;
  withFakeAndBackup(startFakePlivo, (fake, server) => {
    [plivo, backup] = [fake, server];
  });

  const plivoEnv = (overrides: Record<string, string> = {}) => ({
    SMS_PROVIDER: 'plivo',
    PLIVO_AUTH_ID,
    PLIVO_AUTH_TOKEN,
    PLIVO_FROM: '+14155550100',
    PLIVO_API_BASE_URL: plivo.baseUrl,
    ...overrides,
  });

  it('sends JSON with basic auth to the account’s Message resource and answers 200 when Plivo queues it', async () => {
    const { app, metrics, logs } = buildGateway(plivoEnv());
    const res = await request(app).post('/sms').send(deliveryBody({ sender: '+19995550000' }));
    expect(res.status).toBe(200);
    expect(plivo.requests).toHaveLength(1);
    const [sent] = plivo.requests;
    expect(sent?.method).toBe('POST');
    expect(sent?.url).toBe(`/v1/Account/${PLIVO_AUTH_ID}/Message/`);
    expect(sent?.headers.authorization).toBe(`Basic ${Buffer.from(`${PLIVO_AUTH_ID}:${PLIVO_AUTH_TOKEN}`).toString('base64')}`);
    expect(sent?.headers['content-type']).toMatch(/^application\/json/);
    expect(sent?.json).toEqual({ src: '+14155550100', dst: '+14155550123', text: 'Your verification code is 482913', type: 'sms' });
    expect(await metricValue(metrics, 'sms_deliveries_total', { provider: 'plivo', outcome: 'delivered' })).toBe(1);
    expect(logs.entries().find((entry) => entry.msg === 'sms delivered')?.providerMessageId).toMatch(/^[0-9a-f-]{36}$/);
    expect(logs.text()).not.toContain(PLIVO_AUTH_TOKEN);
    expect(logs.text()).not.toContain('482913');
  });

  it('sends non-GSM text intact as UTF-8 JSON, and through a Powerpack when no sender is set', async () => {
    const { app } = buildGateway(plivoEnv({ PLIVO_FROM: '', PLIVO_POWERPACK_UUID: POWERPACK }));
    expect((await request(app).post('/sms').send(deliveryBody({ body: 'Код 123456 — ok' }))).status).toBe(200);
    expect(plivo.requests[0]?.headers['content-type']).toMatch(/charset=utf-8/i);
    expect(plivo.requests[0]?.json).toEqual({ powerpack_uuid: POWERPACK, dst: '+14155550123', text: 'Код 123456 — ok', type: 'sms' });
  });

  it('fails over on Plivo’s 401 and names the refusal but no credential', async () => {
    const { app, logs } = buildGateway({
      ...plivoEnv({ PLIVO_AUTH_TOKEN: 'wrong-plivo-token-0123' }),
      SMS_PROVIDER_INSTANCES: JSON.stringify({ backup: { provider: 'webhook', WEBHOOK_URL: backup.url() } }),
      SMS_ROUTES: JSON.stringify({ default: ['plivo', 'backup'] }),
    });
    expect((await request(app).post('/sms').send(deliveryBody())).status).toBe(200);
    expect(backup.requests).toHaveLength(1);
    expect(logs.text()).not.toContain('wrong-plivo-token-0123');
    const alone = buildGateway(plivoEnv({ PLIVO_AUTH_TOKEN: 'wrong-plivo-token-0123' }));
    const res = await request(alone.app).post('/sms').send(deliveryBody());
    expect(res.body).toEqual({ error: 'provider_error', error_description: 'Plivo answered HTTP 401: authentication failed' });
  });

  describe('error mapping: each answer decides between failing over and refusing the message', () => {
    const table: Array<[httpStatus: number, error: string, failsOver: boolean]> = [
      [400, "invalid 'dst' parameter", false],
      [400, 'text parameter exceeds the maximum length', false],
      [400, "'src' parameter is not a Plivo number of this account", true],
      [400, 'powerpack_uuid is invalid', true],
      [401, 'authentication failed', true],
      [403, 'account is suspended', true],
      [404, 'not found', true],
      [429, 'too many requests', true],
      [500, 'internal server error', true],
      [503, 'service unavailable', true],
      [405, 'method not allowed', false],
    ];

    it('covers every HTTP status of the provider table', () => {
      const statuses = new Set(table.map(([status]) => status));
      for (const status of Object.keys(PLIVO_HTTP_STATUSES)) expect(statuses.has(Number(status))).toBe(true);
    });

    it.each(table)('HTTP %d (%s): fails over to the next provider = %s', async (httpStatus, error, failsOver) => {
      plivo.answerWith = { status: httpStatus, error };
      const { app, metrics } = buildGateway({
        SMS_PROVIDER_INSTANCES: JSON.stringify({ backup: { provider: 'webhook', WEBHOOK_URL: backup.url() } }),
        SMS_ROUTES: JSON.stringify({ default: ['plivo', 'backup'] }),
        ...plivoEnv(),
      });
      const res = await request(app).post('/sms').send(deliveryBody());
      expect(plivo.requests).toHaveLength(1);
      if (failsOver) {
        expect(res.status).toBe(200);
        expect(backup.requests).toHaveLength(1);
        expect(await metricValue(metrics, 'sms_failovers_total', { from: 'plivo', to: 'backup' })).toBe(1);
      } else {
        expect(res.status).toBe(500);
        expect(res.body).toEqual({ error: 'provider_error', error_description: `Plivo answered HTTP ${httpStatus}: ${error}` });
        expect(backup.requests).toHaveLength(0);
      }
    });
  });

  it('fails over to a Telnyx instance when Plivo is down', async () => {
    await expectFailover({
      from: 'plivo',
      fromSettings: (origin) => plivoEnv({ PLIVO_API_BASE_URL: origin }),
      answer: (_req, res) => res.writeHead(502).end(),
      to: 'telnyx-us',
      startNext: startFakeTelnyx,
      nextSettings: (next) => ({ provider: 'telnyx', TELNYX_API_KEY, TELNYX_FROM: '+13125550100', TELNYX_API_BASE_URL: next.baseUrl }),
      failedWith: 502,
    });
  });

  it('refuses WhatsApp and voice deliveries (SMS only)', async () => {
    const { app } = buildGateway(plivoEnv());
    const res = await request(app).post('/sms').send(deliveryBody({ channel: 'whatsapp' }));
    expect(res.status).toBe(500);
    expect(res.body.error_description).toBe('Plivo sends SMS only here, not whatsapp');
    expect(plivo.requests).toHaveLength(0);
  });
});

describe('plivo settings', () => {
  it('names every missing variable when plivo is selected', () => {
    expect(problemsOf({ SMS_PROVIDER: 'plivo' })).toEqual([
      'PLIVO_AUTH_ID: is required when SMS_PROVIDER is plivo',
      'PLIVO_AUTH_TOKEN: is required when SMS_PROVIDER is plivo',
      'PLIVO_FROM: PLIVO_FROM or PLIVO_POWERPACK_UUID is required when SMS_PROVIDER is plivo',
    ]);
  });

  it('accepts a number, short code or alphanumeric sender, and refuses a bad sender, Auth ID or Powerpack', () => {
    const base = { SMS_PROVIDER: 'plivo', PLIVO_AUTH_ID, PLIVO_AUTH_TOKEN };
    for (const from of ['+14155550100', '12345', 'Acme']) expect(problemsOf({ ...base, PLIVO_FROM: from })).toEqual([]);
    expect(problemsOf({ ...base, PLIVO_FROM: '415-555-0100' })).toEqual([expect.stringMatching(/^PLIVO_FROM: must be an E.164 number/)]);
    expect(problemsOf({ ...base, PLIVO_FROM: 'Acme', PLIVO_AUTH_ID: 'abc' })).toEqual([expect.stringMatching(/^PLIVO_AUTH_ID: must be a Plivo Auth ID/)]);
    expect(problemsOf({ ...base, PLIVO_POWERPACK_UUID: 'pp-1' })).toEqual([expect.stringMatching(/^PLIVO_POWERPACK_UUID: must be a Plivo Powerpack UUID/)]);
  });
});

describe('Plivo signature V3', () => {
  it('matches the signature plivo-node 4.79 (validateV3Signature) accepts for a URL with a port, a query and non-ASCII parameters', () => {
    // Known answer: checked with Plivo's own SDK, which is not a dependency of the gateway.
    const params: Array<[string, string]> = [['Status', 'sent'], ['MessageUUID', 'u-2'], ['Text', 'Код — ok'], ['ErrorCode', '']];
    expect(plivoSignatureV3('plivo-auth-token-0123456789abcdef', 'https://gw.example.com:8443/receipts/plivo/abc?b=2&a=1', params, '1234567890')).toBe(
      'iJ0QAYnUXAqHm0DoQ/bOqPkCOS+VXvRZrGxTGWadsOI=',
    );
  });
});

describe('Plivo delivery reports', () => {
  let plivo: FakePlivo;
  beforeAll(async () => {
    plivo = await startFakePlivo();
  });
  afterAll(() => plivo.close());

  const gateway = () =>
    buildGateway({ SMS_PROVIDER: 'plivo', PLIVO_AUTH_ID, PLIVO_AUTH_TOKEN, PLIVO_FROM: '+14155550100', PLIVO_API_BASE_URL: plivo.baseUrl, GATEWAY_PUBLIC_URL: PUBLIC_URL });
  type App = ReturnType<typeof gateway>['app'];

  async function sendOne(app: App) {
    const res = await request(app).post('/sms').send(deliveryBody());
    expect(res.status).toBe(200);
    const id = res.headers[MESSAGE_ID_HEADER.toLowerCase()] as string;
    const status = await request(app).get(`/messages/${id}`);
    return { id, json: plivo.requests.at(-1)!.json, uuid: (status.body as { provider_message_id: string }).provider_message_id };
  }
  const statusOf = async (app: App, id: string) => (await request(app).get(`/messages/${id}`)).body as unknown;
  /** A status callback as Plivo's documentation shows it. */
  const callback = (uuid: string, status: string, errorCode = '') => ({
    From: '14155550100',
    To: '14155550123',
    Status: status,
    MessageUUID: uuid,
    ErrorCode: errorCode,
    TotalAmount: '0.00500',
    TotalRate: '0.00500',
    Units: '1',
  });
  const post = (app: App, id: string, form: Record<string, string>, headers: Record<string, string>) => {
    const req = request(app).post(`/receipts/plivo/${id}`).type('form');
    for (const [name, value] of Object.entries(headers)) req.set(name, value);
    return req.send(new URLSearchParams(form).toString());
  };
  const signed = (id: string, form: Record<string, string>, token = PLIVO_AUTH_TOKEN, nonce = '05429567804466091622') => ({
    'X-Plivo-Signature-V3': signLikePlivo(token, `${PUBLIC_URL}/receipts/plivo/${id}`, form, nonce),
    'X-Plivo-Signature-V3-Nonce': nonce,
  });

  it('asks Plivo to post this message’s status to the gateway', async () => {
    const { app } = gateway();
    const { id, json } = await sendOne(app);
    expect(json).toMatchObject({ url: `${PUBLIC_URL}/receipts/plivo/${id}`, method: 'POST' });
  });

  it('accepts signed callbacks: sent then delivered, and an undelivered one with its error code', async () => {
    const { app } = gateway();
    const { id, uuid } = await sendOne(app);
    for (const [status, expected] of [['sent', 'sent'], ['delivered', 'delivered']] as const) {
      const form = callback(uuid, status);
      expect((await post(app, id, form, signed(id, form))).status).toBe(204);
      expect(await statusOf(app, id)).toMatchObject({ status: expected, error_code: null });
    }
    const second = await sendOne(app);
    const failed = callback(second.uuid, 'undelivered', '200');
    expect((await post(app, second.id, failed, signed(second.id, failed))).status).toBe(204);
    expect(await statusOf(app, second.id)).toMatchObject({ status: 'undelivered', error_code: '200' });
  });

  it('accepts a callback whose header lists several signatures when one is right', async () => {
    const { app } = gateway();
    const { id, uuid } = await sendOne(app);
    const form = callback(uuid, 'delivered');
    const headers = signed(id, form);
    headers['X-Plivo-Signature-V3'] = `${signed(id, form, 'another-token')['X-Plivo-Signature-V3']},${headers['X-Plivo-Signature-V3']}`;
    expect((await post(app, id, form, headers)).status).toBe(204);
  });

  it('accepts a callback signed in X-Plivo-Signature-Ma-V3 only, as Plivo signs messaging callbacks of a main account', async () => {
    const { app } = gateway();
    const { id, uuid } = await sendOne(app);
    const form = callback(uuid, 'delivered');
    const { 'X-Plivo-Signature-V3': signature, 'X-Plivo-Signature-V3-Nonce': nonce } = signed(id, form);
    expect((await post(app, id, form, { 'X-Plivo-Signature-Ma-V3': signature, 'X-Plivo-Signature-V3-Nonce': nonce })).status).toBe(204);
    expect(await statusOf(app, id)).toMatchObject({ status: 'delivered' });
  });

  it('refuses an unsigned, forged, tampered or re-addressed callback with 403, changing nothing', async () => {
    const { app } = gateway();
    const { id, uuid } = await sendOne(app);
    const other = await sendOne(app);
    const form = callback(uuid, 'delivered');
    const cases: Array<[Record<string, string>, Record<string, string>]> = [
      [form, {}],
      [form, signed(id, form, 'forged-token-0123456789')],
      [{ ...form, Status: 'undelivered' }, signed(id, form)],
      [form, { ...signed(id, form), 'X-Plivo-Signature-V3-Nonce': '1' }],
      [form, { 'X-Plivo-Signature-Ma-V3': signed(id, form, 'forged-token-0123456789')['X-Plivo-Signature-V3'], 'X-Plivo-Signature-V3-Nonce': '05429567804466091622' }],
    ];
    for (const [body, headers] of cases) expect((await post(app, id, body, headers)).status).toBe(403);
    // Signed for one message's URL, posted to another's.
    expect((await post(app, other.id, form, signed(id, form))).status).toBe(403);
    expect(await statusOf(app, id)).toMatchObject({ status: 'accepted' });
  });
});
