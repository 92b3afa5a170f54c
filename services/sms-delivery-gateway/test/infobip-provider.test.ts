import { MESSAGE_ID_HEADER } from '@smsauth/contracts';
import type { RecordingServer } from '@smsauth/test-support';
import request from 'supertest';
import { INFOBIP_REJECTIONS, INFOBIP_REQUEST_ERRORS } from '../src/providers/infobip';
import { problemsOf } from './support/config';
import { INFOBIP_API_KEY, startFakeInfobip, type FakeInfobip } from './support/fake-infobip';
import { SINCH_API_TOKEN, SINCH_PLAN_ID, startFakeSinch } from './support/fake-sinch';
import { buildGateway, deliveryBody, metricValue } from './support/gateway';
import { expectFailover, withFakeAndBackup } from './support/provider-suite';

const PUBLIC_URL = 'https://sms-gateway.example.com';

describe('infobip provider', () => {
  let infobip: FakeInfobip;
  let backup: RecordingServer;
  withFakeAndBackup(startFakeInfobip, (fake, server) => {
    [infobip, backup] = [fake, server];
  });

  const infobipEnv = (overrides: Record<string, string> = {}) => ({
    SMS_PROVIDER: 'infobip',
    INFOBIP_API_KEY,
    INFOBIP_BASE_URL: infobip.baseUrl,
    INFOBIP_FROM: 'AcmeInc',
    ...overrides,
  });

  it('sends one message with the App key and answers 200 when Infobip accepts it', async () => {
    const { app, metrics, logs } = buildGateway(infobipEnv());
    const res = await request(app).post('/sms').send(deliveryBody({ sender: '+19995550000' }));
    expect(res.status).toBe(200);
    const id = res.headers[MESSAGE_ID_HEADER.toLowerCase()] as string;
    expect(infobip.requests).toHaveLength(1);
    const [sent] = infobip.requests;
    expect(sent?.method).toBe('POST');
    expect(sent?.url).toBe('/sms/2/text/advanced');
    expect(sent?.headers.authorization).toBe(`App ${INFOBIP_API_KEY}`);
    expect(sent?.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(sent?.json).toEqual({
      messages: [{ from: 'AcmeInc', destinations: [{ to: '14155550123' }], text: 'Your verification code is 482913', callbackData: id }],
    });
    expect(await metricValue(metrics, 'sms_deliveries_total', { provider: 'infobip', outcome: 'delivered' })).toBe(1);
    expect(logs.entries().find((entry) => entry.msg === 'sms delivered')?.providerMessageId).toMatch(/^[0-9a-f]{24}$/);
    expect(logs.text()).not.toContain(INFOBIP_API_KEY);
  });

  it('sends non-GSM text intact as UTF-8 JSON, and no from when INFOBIP_FROM is unset (the account’s default sender)', async () => {
    const { app } = buildGateway(infobipEnv({ INFOBIP_FROM: '' }));
    expect((await request(app).post('/sms').send(deliveryBody({ body: 'Kodunuz: 123456 — ğüşıöç' }))).status).toBe(200);
    const [message] = infobip.requests[0]?.json.messages ?? [];
    expect(message?.text).toBe('Kodunuz: 123456 — ğüşıöç');
    expect(message).not.toHaveProperty('from');
  });

  it('sends a numeric sender, like the recipient, without its +', async () => {
    const { app } = buildGateway(infobipEnv({ INFOBIP_FROM: '+41793026727' }));
    expect((await request(app).post('/sms').send(deliveryBody())).status).toBe(200);
    expect(infobip.requests[0]?.json.messages?.[0]).toMatchObject({ from: '41793026727', destinations: [{ to: '14155550123' }] });
  });

  it('fails over on Infobip’s 401 and names the refusal but no credential', async () => {
    const alone = buildGateway(infobipEnv({ INFOBIP_API_KEY: 'wrong-infobip-key' }));
    const res = await request(alone.app).post('/sms').send(deliveryBody());
    expect(res.body).toEqual({ error: 'provider_error', error_description: 'Infobip error UNAUTHORIZED (HTTP 401): Invalid login details' });
    expect(alone.logs.text()).not.toContain('wrong-infobip-key');
  });

  describe('error mapping: each answer decides between failing over and refusing the message', () => {
    const failsOverOn = async (answer: FakeInfobip['answerWith']) => {
      infobip.answerWith = answer;
      const { app, metrics } = buildGateway({
        SMS_PROVIDER_INSTANCES: JSON.stringify({ backup: { provider: 'webhook', WEBHOOK_URL: backup.url() } }),
        SMS_ROUTES: JSON.stringify({ default: ['infobip', 'backup'] }),
        ...infobipEnv(),
      });
      const res = await request(app).post('/sms').send(deliveryBody());
      expect(infobip.requests).toHaveLength(1);
      const failedOver = backup.requests.length === 1;
      if (failedOver) {
        expect(res.status).toBe(200);
        expect(await metricValue(metrics, 'sms_failovers_total', { from: 'infobip', to: 'backup' })).toBe(1);
      } else {
        expect(res.status).toBe(500);
      }
      return { failedOver, body: res.body as unknown };
    };

    const rejections: Array<[name: string, failsOver: boolean]> = [
      ['REJECTED_NETWORK', true],
      ['REJECTED_PREFIX_MISSING', false],
      ['REJECTED_DND', false],
      ['REJECTED_SOURCE', true],
      ['REJECTED_NOT_ENOUGH_CREDITS', true],
      ['REJECTED_SENDER', true],
      ['REJECTED_DESTINATION', false],
      ['REJECTED_PREPAID_PACKAGE_EXPIRED', true],
      ['REJECTED_DESTINATION_NOT_REGISTERED', true],
      ['REJECTED_ROUTE_NOT_AVAILABLE', true],
      ['REJECTED_FLOODING_FILTER', false],
      ['REJECTED_SYSTEM_ERROR', true],
      ['REJECTED_MESSAGE_TOO_LONG', false],
      ['MISSING_TO', false],
      ['REJECTED_INVALID_DESTINATION', false],
      ['REJECTED_A_NAME_INFOBIP_MAY_ADD', true],
    ];
    const requestErrors: Array<[httpStatus: number, messageId: string, failsOver: boolean]> = [
      [401, 'UNAUTHORIZED', true],
      [403, 'FORBIDDEN', true],
      [400, 'BAD_REQUEST', false],
      [429, 'TOO_MANY_REQUESTS', true],
      [500, 'GENERAL_ERROR', true],
      // Not in the table: the HTTP status decides.
      [400, 'AN_ID_INFOBIP_MAY_ADD', false],
      [503, 'ANOTHER_ID_INFOBIP_MAY_ADD', true],
    ];

    it('covers every entry of the provider tables', () => {
      expect(Object.keys(INFOBIP_REJECTIONS).sort()).toEqual(rejections.map(([name]) => name).filter((name) => !name.includes('MAY_ADD')).sort());
      expect(Object.keys(INFOBIP_REQUEST_ERRORS).sort()).toEqual(requestErrors.map(([, id]) => id).filter((id) => !id.includes('MAY_ADD')).sort());
    });

    it.each(rejections)('a 200 whose status is %s: fails over to the next provider = %s', async (name, failsOver) => {
      const { failedOver, body } = await failsOverOn({ rejected: name, description: `Infobip says ${name}` });
      expect(failedOver).toBe(failsOver);
      if (!failsOver) expect(body).toEqual({ error: 'provider_error', error_description: `Infobip rejected the message: ${name} (Infobip says ${name})` });
    });

    it.each(requestErrors)('HTTP %d %s: fails over to the next provider = %s', async (status, messageId, failsOver) => {
      const { failedOver, body } = await failsOverOn({ status, messageId, text: `Infobip says ${messageId}` });
      expect(failedOver).toBe(failsOver);
      if (!failsOver) expect(body).toEqual({ error: 'provider_error', error_description: `Infobip error ${messageId} (HTTP ${status}): Infobip says ${messageId}` });
    });
  });

  it('fails over to a Sinch instance when Infobip is down', async () => {
    await expectFailover({
      from: 'infobip',
      fromSettings: (origin) => infobipEnv({ INFOBIP_BASE_URL: origin }),
      answer: (_req, res) => res.writeHead(503).end(),
      to: 'sinch-eu',
      startNext: startFakeSinch,
      nextSettings: (next) => ({ provider: 'sinch', SINCH_SERVICE_PLAN_ID: SINCH_PLAN_ID, SINCH_API_TOKEN, SINCH_FROM: 'Acme', SINCH_API_BASE_URL: next.baseUrl }),
      failedWith: 503,
    });
  });

  it('refuses WhatsApp deliveries (SMS only)', async () => {
    const { app } = buildGateway(infobipEnv());
    const res = await request(app).post('/sms').send(deliveryBody({ channel: 'whatsapp' }));
    expect(res.status).toBe(500);
    expect(res.body.error_description).toBe('Infobip sends SMS only here, not whatsapp');
    expect(infobip.requests).toHaveLength(0);
  });
});

describe('infobip settings', () => {
  it('names every missing variable when infobip is selected', () => {
    expect(problemsOf({ SMS_PROVIDER: 'infobip' })).toEqual([
      'INFOBIP_API_KEY: is required when SMS_PROVIDER is infobip',
      'INFOBIP_BASE_URL: is required when SMS_PROVIDER is infobip',
    ]);
  });

  it('refuses a base URL without its scheme and a bad sender', () => {
    const base = { SMS_PROVIDER: 'infobip', INFOBIP_API_KEY, INFOBIP_BASE_URL: 'https://xyz123.api.infobip.com' };
    expect(problemsOf(base)).toEqual([]);
    expect(problemsOf({ ...base, INFOBIP_BASE_URL: 'xyz123.api.infobip.com' })).toEqual([
      "INFOBIP_BASE_URL: must be the account's base URL with its scheme, e.g. https://xxxxx.api.infobip.com",
    ]);
    expect(problemsOf({ ...base, INFOBIP_FROM: 'Acme-Inc' })).toEqual([expect.stringMatching(/^INFOBIP_FROM: must be an alphanumeric sender id/)]);
  });
});

describe('Infobip delivery reports', () => {
  let infobip: FakeInfobip;
  beforeAll(async () => {
    infobip = await startFakeInfobip();
  });
  afterAll(() => infobip.close());

  const gateway = () => buildGateway({ SMS_PROVIDER: 'infobip', INFOBIP_API_KEY, INFOBIP_BASE_URL: infobip.baseUrl, GATEWAY_PUBLIC_URL: PUBLIC_URL });
  type App = ReturnType<typeof gateway>['app'];

  async function sendOne(app: App) {
    const res = await request(app).post('/sms').send(deliveryBody());
    expect(res.status).toBe(200);
    const id = res.headers[MESSAGE_ID_HEADER.toLowerCase()] as string;
    const status = await request(app).get(`/messages/${id}`);
    const message = infobip.requests.at(-1)!.json.messages![0]!;
    const notifyUrl = new URL(String(message.notifyUrl));
    return { id, message, path: `${notifyUrl.pathname}${notifyUrl.search}`, messageId: (status.body as { provider_message_id: string }).provider_message_id };
  }
  const statusOf = async (app: App, id: string) => (await request(app).get(`/messages/${id}`)).body as unknown;
  /** A delivery report as Infobip's documentation shows it. */
  const report = (messageId: string, id: string, groupName: string, name: string, error = { id: 0, name: 'NO_ERROR', groupName: 'OK' }) =>
    JSON.stringify({
      results: [
        {
          bulkId: 'BULK-ID-123-xyz',
          messageId,
          to: '14155550123',
          sentAt: '2025-01-15T12:00:00.123+0000',
          doneAt: '2025-01-15T12:00:01.123+0000',
          smsCount: 1,
          price: { pricePerMessage: 0.01, currency: 'EUR' },
          status: { groupId: 3, groupName, id: 5, name, description: name },
          error: { ...error, description: error.name, permanent: error.id !== 0 },
          callbackData: id,
        },
      ],
    });
  const post = (app: App, path: string, body: string) => request(app).post(path).set('content-type', 'application/json').send(body);

  it('asks Infobip to post JSON reports to the gateway, with the message’s token in the URL', async () => {
    const { app } = gateway();
    const { id, message } = await sendOne(app);
    expect(message.notifyContentType).toBe('application/json');
    expect(String(message.notifyUrl)).toMatch(new RegExp(`^${PUBLIC_URL}/receipts/infobip/${id}\\?receipt_token=[A-Za-z0-9_-]{43}$`));
  });

  it('records reports on the tokened URL: delivered, and an undeliverable one with its error name', async () => {
    const { app } = gateway();
    const { id, path, messageId } = await sendOne(app);
    expect((await post(app, path, report(messageId, id, 'DELIVERED', 'DELIVERED_TO_OPERATOR'))).status).toBe(204);
    expect(await statusOf(app, id)).toMatchObject({ status: 'sent', error_code: null });
    expect((await post(app, path, report(messageId, id, 'DELIVERED', 'DELIVERED_TO_HANDSET'))).status).toBe(204);
    expect(await statusOf(app, id)).toMatchObject({ status: 'delivered', error_code: null });
    const second = await sendOne(app);
    const failed = report(second.messageId, second.id, 'UNDELIVERABLE', 'UNDELIVERABLE_NOT_DELIVERED', { id: 1, name: 'EC_UNKNOWN_SUBSCRIBER', groupName: 'HANDSET_ERRORS' });
    expect((await post(app, second.path, failed)).status).toBe(204);
    expect(await statusOf(app, second.id)).toMatchObject({ status: 'undelivered', error_code: 'EC_UNKNOWN_SUBSCRIBER' });
  });

  it('refuses a report without the token (unsigned) or with a forged or another message’s token (403), changing nothing', async () => {
    const { app } = gateway();
    const first = await sendOne(app);
    const second = await sendOne(app);
    const body = report(first.messageId, first.id, 'DELIVERED', 'DELIVERED_TO_HANDSET');
    expect((await post(app, `/receipts/infobip/${first.id}`, body)).status).toBe(403);
    expect((await post(app, `/receipts/infobip/${first.id}?receipt_token=forged`, body)).status).toBe(403);
    expect((await post(app, `/receipts/infobip/${first.id}${new URL(second.path, PUBLIC_URL).search}`, body)).status).toBe(403);
    expect(await statusOf(app, first.id)).toMatchObject({ status: 'accepted' });
  });

  it('refuses a genuine report of one message posted to another message’s URL', async () => {
    const { app } = gateway();
    const first = await sendOne(app);
    const second = await sendOne(app);
    expect((await post(app, second.path, report(first.messageId, first.id, 'DELIVERED', 'DELIVERED_TO_HANDSET'))).status).toBe(400);
    expect((await post(app, second.path, report(first.messageId, second.id, 'DELIVERED', 'DELIVERED_TO_HANDSET'))).status).toBe(404);
    expect(await statusOf(app, second.id)).toMatchObject({ status: 'accepted' });
  });
});
