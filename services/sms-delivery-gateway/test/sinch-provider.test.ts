import { MESSAGE_ID_HEADER } from '@smsauth/contracts';
import type { RecordingServer } from '@smsauth/test-support';
import request from 'supertest';
import { SINCH_ERROR_CODES, sinchCallbackSignature } from '../src/providers/sinch';
import { problemsOf } from './support/config';
import { PLIVO_AUTH_ID, PLIVO_AUTH_TOKEN, startFakePlivo } from './support/fake-plivo';
import { SINCH_API_TOKEN, SINCH_CALLBACK_SECRET, SINCH_PLAN_ID, signLikeSinch, startFakeSinch, type FakeSinch } from './support/fake-sinch';
import { buildGateway, deliveryBody, metricValue, nowSeconds } from './support/gateway';
import { expectFailover, withFakeAndBackup } from './support/provider-suite';

const PUBLIC_URL = 'https://sms-gateway.example.com';

describe('sinch provider', () => {
  let sinch: FakeSinch;
  let backup: RecordingServer;
  withFakeAndBackup(startFakeSinch, (fake, server) => {
    [sinch, backup] = [fake, server];
  });

  const sinchEnv = (overrides: Record<string, string> = {}) => ({
    SMS_PROVIDER: 'sinch',
    SINCH_SERVICE_PLAN_ID: SINCH_PLAN_ID,
    SINCH_API_TOKEN,
    SINCH_FROM: 'Acme',
    SINCH_API_BASE_URL: sinch.baseUrl,
    ...overrides,
  });

  it('posts a one-recipient batch with the Bearer token and answers 200 when Sinch creates it', async () => {
    const { app, metrics, logs } = buildGateway(sinchEnv());
    const res = await request(app).post('/sms').send(deliveryBody({ sender: '+19995550000' }));
    expect(res.status).toBe(200);
    const id = res.headers[MESSAGE_ID_HEADER.toLowerCase()] as string;
    expect(sinch.requests).toHaveLength(1);
    const [sent] = sinch.requests;
    expect(sent?.method).toBe('POST');
    expect(sent?.url).toBe(`/xms/v1/${SINCH_PLAN_ID}/batches`);
    expect(sent?.headers.authorization).toBe(`Bearer ${SINCH_API_TOKEN}`);
    expect(sent?.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(sent?.json).toEqual({ from: 'Acme', to: ['+14155550123'], body: 'Your verification code is 482913', client_reference: id });
    expect(await metricValue(metrics, 'sms_deliveries_total', { provider: 'sinch', outcome: 'delivered' })).toBe(1);
    expect(logs.entries().find((entry) => entry.msg === 'sms delivered')?.providerMessageId).toMatch(/^[0-9A-F]{26}$/);
    expect(logs.text()).not.toContain(SINCH_API_TOKEN);
  });

  it('sends non-GSM text intact as UTF-8 JSON, from the route’s sender when it has one', async () => {
    const { app } = buildGateway(sinchEnv({ SMS_ROUTES: JSON.stringify({ default: { providers: ['sinch'], sender: '+12025550100' } }) }));
    expect((await request(app).post('/sms').send(deliveryBody({ body: 'Ваш код 123456 🔐' }))).status).toBe(200);
    expect(sinch.requests[0]?.json).toMatchObject({ from: '+12025550100', body: 'Ваш код 123456 🔐' });
  });

  it('derives the base URL from SINCH_REGION when no base URL is set', () => {
    // The region's host is not reachable from the tests; the configuration says which it is.
    const { config } = buildGateway(sinchEnv({ SINCH_API_BASE_URL: '', SINCH_REGION: 'eu' }));
    expect(config.SINCH_REGION).toBe('eu');
    expect(problemsOf(sinchEnv({ SINCH_REGION: 'mars' }))).toEqual([expect.stringMatching(/^SINCH_REGION: must be one of us, eu, au, br, ca/)]);
  });

  it('fails over on Sinch’s 401 (empty body) and names the refusal but no credential', async () => {
    const alone = buildGateway(sinchEnv({ SINCH_API_TOKEN: 'wrong-sinch-token' }));
    const res = await request(alone.app).post('/sms').send(deliveryBody());
    expect(res.body).toEqual({ error: 'provider_error', error_description: 'Sinch error unauthorized (HTTP 401): The API token is not valid for this service plan' });
    expect(alone.logs.text()).not.toContain('wrong-sinch-token');
  });

  describe('error mapping: each error code decides between failing over and refusing the message', () => {
    const table: Array<[code: string | undefined, httpStatus: number, failsOver: boolean]> = [
      ['syntax_invalid_json', 400, true],
      ['syntax_invalid_parameter_format', 400, false],
      ['syntax_constraint_violation', 400, false],
      ['unauthorized', 401, true],
      ['forbidden', 403, true],
      ['unprovisioned_region', 403, true],
      ['missing_callback_url', 403, true],
      ['not_found', 404, true],
      ['too_many_requests', 429, true],
      ['internal_error', 500, true],
      // Not in the table: the HTTP status decides.
      ['a_code_sinch_may_add', 400, false],
      ['another_code_sinch_may_add', 503, true],
      [undefined, 401, true],
      [undefined, 502, true],
    ];

    it('covers every code of the provider table', () => {
      expect(Object.keys(SINCH_ERROR_CODES).sort()).toEqual(
        table
          .map(([code]) => code)
          .filter((code): code is string => code !== undefined && !code.includes('may_add'))
          .sort(),
      );
    });

    it.each(table)('code %s (HTTP %d): fails over to the next provider = %s', async (code, httpStatus, failsOver) => {
      sinch.answerWith = { status: httpStatus, ...(code !== undefined ? { code, text: `Sinch says ${code}` } : {}) };
      const { app, metrics } = buildGateway({
        SMS_PROVIDER_INSTANCES: JSON.stringify({ backup: { provider: 'webhook', WEBHOOK_URL: backup.url() } }),
        SMS_ROUTES: JSON.stringify({ default: ['sinch', 'backup'] }),
        ...sinchEnv(),
      });
      const res = await request(app).post('/sms').send(deliveryBody());
      expect(sinch.requests).toHaveLength(1);
      if (failsOver) {
        expect(res.status).toBe(200);
        expect(backup.requests).toHaveLength(1);
        expect(await metricValue(metrics, 'sms_failovers_total', { from: 'sinch', to: 'backup' })).toBe(1);
      } else {
        expect(res.status).toBe(500);
        expect(res.body).toEqual({ error: 'provider_error', error_description: `Sinch error ${code} (HTTP ${httpStatus}): Sinch says ${code}` });
        expect(backup.requests).toHaveLength(0);
      }
    });
  });

  it('fails over to a Plivo instance when Sinch does not answer in time', async () => {
    await expectFailover({
      from: 'sinch',
      fromSettings: (origin) => sinchEnv({ SINCH_API_BASE_URL: origin, SINCH_TIMEOUT_MS: '300' }),
      answer: (_req, _res) => undefined,
      to: 'plivo-us',
      startNext: startFakePlivo,
      nextSettings: (next) => ({ provider: 'plivo', PLIVO_AUTH_ID, PLIVO_AUTH_TOKEN, PLIVO_FROM: '+14155550100', PLIVO_API_BASE_URL: next.baseUrl }),
    });
  });

  it('refuses voice deliveries (SMS only)', async () => {
    const { app } = buildGateway(sinchEnv());
    const res = await request(app).post('/sms').send(deliveryBody({ channel: 'voice' }));
    expect(res.status).toBe(500);
    expect(res.body.error_description).toBe('Sinch sends SMS only here, not voice');
    expect(sinch.requests).toHaveLength(0);
  });
});

describe('sinch settings', () => {
  it('names every missing variable when sinch is selected', () => {
    expect(problemsOf({ SMS_PROVIDER: 'sinch' })).toEqual([
      'SINCH_SERVICE_PLAN_ID: is required when SMS_PROVIDER is sinch',
      'SINCH_API_TOKEN: is required when SMS_PROVIDER is sinch',
      'SINCH_FROM: is required when SMS_PROVIDER is sinch',
    ]);
  });

  it('refuses a bad service plan id, sender or base URL', () => {
    const base = { SMS_PROVIDER: 'sinch', SINCH_SERVICE_PLAN_ID: SINCH_PLAN_ID, SINCH_API_TOKEN, SINCH_FROM: '+12025550100' };
    expect(problemsOf(base)).toEqual([]);
    expect(problemsOf({ ...base, SINCH_SERVICE_PLAN_ID: 'plan-1' })).toEqual([expect.stringMatching(/^SINCH_SERVICE_PLAN_ID: must be a Sinch service plan id/)]);
    expect(problemsOf({ ...base, SINCH_FROM: 'Way Too Long Sender' })).toEqual([expect.stringMatching(/^SINCH_FROM: must be an E.164 number/)]);
    expect(problemsOf({ ...base, SINCH_API_BASE_URL: 'ftp://sinch' })).toEqual(['SINCH_API_BASE_URL: must be an http(s) URL']);
  });
});

describe('Sinch callback signature', () => {
  it('matches what the Sinch SDK (@sinch/sdk-client 1.x calculateWebhookSignature) computes', () => {
    // Known answer: checked with Sinch's own SDK, which is not a dependency of the gateway.
    const body = Buffer.from('{"type":"recipient_delivery_report_sms","batch_id":"01"}');
    expect(sinchCallbackSignature('secret', body, 'nonce1', '1634579353')).toBe('O8AJM9+yvIseI3dfrYaDj2k6IzRckLr1Bb4cJAK6h7Y=');
    expect(sinchCallbackSignature('secret', body, 'nonce1', '1634579353', 'HmacMD5')).toBeUndefined();
  });
});

describe('Sinch delivery reports', () => {
  let sinch: FakeSinch;
  beforeAll(async () => {
    sinch = await startFakeSinch();
  });
  afterAll(() => sinch.close());

  const gateway = (overrides: Record<string, string> = {}) =>
    buildGateway({
      SMS_PROVIDER: 'sinch',
      SINCH_SERVICE_PLAN_ID: SINCH_PLAN_ID,
      SINCH_API_TOKEN,
      SINCH_FROM: '+12025550100',
      SINCH_API_BASE_URL: sinch.baseUrl,
      GATEWAY_PUBLIC_URL: PUBLIC_URL,
      ...overrides,
    });
  type App = ReturnType<typeof gateway>['app'];

  async function sendOne(app: App) {
    const res = await request(app).post('/sms').send(deliveryBody());
    expect(res.status).toBe(200);
    const id = res.headers[MESSAGE_ID_HEADER.toLowerCase()] as string;
    const status = await request(app).get(`/messages/${id}`);
    const callbackUrl = new URL(String(sinch.requests.at(-1)!.json.callback_url));
    return { id, json: sinch.requests.at(-1)!.json, path: `${callbackUrl.pathname}${callbackUrl.search}`, batchId: (status.body as { provider_message_id: string }).provider_message_id };
  }
  const statusOf = async (app: App, id: string) => (await request(app).get(`/messages/${id}`)).body as unknown;
  /** A recipient delivery report as Sinch's documentation shows it. */
  const report = (batchId: string, id: string, status: string, code: number) =>
    JSON.stringify({
      at: '2025-01-15T12:00:02.000Z',
      batch_id: batchId,
      code,
      operator_status_at: '2025-01-15T12:00:01.000Z',
      recipient: '14155550123',
      status,
      type: 'recipient_delivery_report_sms',
      client_reference: id,
    });
  const post = (app: App, path: string, body: string, headers: Record<string, string> = {}) => {
    const req = request(app).post(path).set('content-type', 'application/json');
    for (const [name, value] of Object.entries(headers)) req.set(name, value);
    return req.send(body);
  };
  const hmacHeaders = (body: string, timestamp = String(nowSeconds()), secret = SINCH_CALLBACK_SECRET, nonce = '01FJA8B4A7BM43YGWSG9GBV067') => ({
    'x-sinch-webhook-signature-nonce': nonce,
    'x-sinch-webhook-signature-timestamp': timestamp,
    'x-sinch-webhook-signature-algorithm': 'HmacSHA256',
    'x-sinch-webhook-signature': signLikeSinch(secret, body, nonce, timestamp),
  });

  it('asks Sinch for per-recipient reports at the gateway, with the message’s token in the URL', async () => {
    const { app } = gateway();
    const { id, json } = await sendOne(app);
    expect(json.delivery_report).toBe('per_recipient');
    expect(String(json.callback_url)).toMatch(new RegExp(`^${PUBLIC_URL}/receipts/sinch/${id}\\?receipt_token=[A-Za-z0-9_-]{43}$`));
  });

  it('records reports on the tokened URL: dispatched, delivered, and a failed one with its code', async () => {
    const { app, logs } = gateway();
    const { id, path, batchId } = await sendOne(app);
    for (const [status, code, expected] of [['Dispatched', 401, 'sent'], ['Delivered', 0, 'delivered']] as const) {
      expect((await post(app, path, report(batchId, id, status, code))).status).toBe(204);
      expect(await statusOf(app, id)).toMatchObject({ status: expected, error_code: null });
    }
    const second = await sendOne(app);
    expect((await post(app, second.path, report(second.batchId, second.id, 'Failed', 402))).status).toBe(204);
    expect(await statusOf(app, second.id)).toMatchObject({ status: 'undelivered', error_code: '402' });
    expect(logs.text()).not.toMatch(/receipt_token=[A-Za-z0-9_-]{43}/);
  });

  it('refuses a report without the token, with a forged one, or with another message’s token (403), changing nothing', async () => {
    const { app } = gateway();
    const first = await sendOne(app);
    const second = await sendOne(app);
    const body = report(first.batchId, first.id, 'Delivered', 0);
    expect((await post(app, `/receipts/sinch/${first.id}`, body)).status).toBe(403);
    expect((await post(app, `/receipts/sinch/${first.id}?receipt_token=${'A'.repeat(43)}`, body)).status).toBe(403);
    expect((await post(app, `/receipts/sinch/${first.id}${new URL(second.path, PUBLIC_URL).search}`, body)).status).toBe(403);
    expect(await statusOf(app, first.id)).toMatchObject({ status: 'accepted' });
  });

  it('with SINCH_CALLBACK_SECRET, accepts an HMAC-signed report and refuses a forged, tampered or stale one', async () => {
    const { app } = gateway({ SINCH_CALLBACK_SECRET });
    const { id, path, batchId } = await sendOne(app);
    const body = report(batchId, id, 'Delivered', 0);
    const cases: Array<[string, Record<string, string>]> = [
      [body, {}],
      [body, hmacHeaders(body, String(nowSeconds()), 'forged-secret')],
      [report(batchId, id, 'Failed', 402), hmacHeaders(body)],
      [body, hmacHeaders(body, String(nowSeconds() - 301))],
    ];
    for (const [sent, headers] of cases) expect((await post(app, path, sent, headers)).status).toBe(403);
    expect(await statusOf(app, id)).toMatchObject({ status: 'accepted' });
    expect((await post(app, path, body, hmacHeaders(body))).status).toBe(204);
    expect(await statusOf(app, id)).toMatchObject({ status: 'delivered' });
  });

  it('refuses a genuine report of one message posted to another message (400 or 404)', async () => {
    const { app } = gateway();
    const first = await sendOne(app);
    const second = await sendOne(app);
    const res = await post(app, second.path, report(first.batchId, first.id, 'Delivered', 0));
    expect(res.status).toBe(400);
    const sameReference = await post(app, second.path, report(first.batchId, second.id, 'Delivered', 0));
    expect(sameReference.status).toBe(404);
    expect(await statusOf(app, second.id)).toMatchObject({ status: 'accepted' });
  });
});
