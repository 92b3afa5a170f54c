import { MESSAGE_ID_HEADER } from '@smsauth/contracts';
import type { RecordingServer } from '@smsauth/test-support';
import request from 'supertest';
import { BIRD_ERROR_CODES } from '../src/providers/bird';
import { problemsOf } from './support/config';
import { BIRD_ACCESS_KEY, BIRD_CHANNEL_ID, BIRD_SIGNING_KEY, BIRD_WORKSPACE_ID, signLikeBird, startFakeBird, type FakeBird } from './support/fake-bird';
import { TELNYX_API_KEY, startFakeTelnyx } from './support/fake-telnyx';
import { buildGateway, deliveryBody, metricValue, nowSeconds } from './support/gateway';
import { expectFailover, withFakeAndBackup } from './support/provider-suite';

const PUBLIC_URL = 'https://sms-gateway.example.com';

describe('bird provider', () => {
  let bird: FakeBird;
  let backup: RecordingServer;
  withFakeAndBackup(startFakeBird, (fake, server) => {
    [bird, backup] = [fake, server];
  });

  const birdEnv = (overrides: Record<string, string> = {}) => ({
    SMS_PROVIDER: 'bird',
    BIRD_ACCESS_KEY,
    BIRD_WORKSPACE_ID,
    BIRD_CHANNEL_ID,
    BIRD_API_BASE_URL: bird.baseUrl,
    ...overrides,
  });

  it('sends a text message to the channel with the AccessKey and the gateway’s id as reference', async () => {
    const { app, metrics, logs } = buildGateway(birdEnv());
    const res = await request(app).post('/sms').send(deliveryBody({ sender: '+19995550000' }));
    expect(res.status).toBe(200);
    expect(bird.requests).toHaveLength(1);
    const [sent] = bird.requests;
    expect(sent?.method).toBe('POST');
    expect(sent?.url).toBe(`/workspaces/${BIRD_WORKSPACE_ID}/channels/${BIRD_CHANNEL_ID}/messages`);
    expect(sent?.headers.authorization).toBe(`AccessKey ${BIRD_ACCESS_KEY}`);
    expect(sent?.headers['content-type']).toMatch(/^application\/json/);
    expect(sent?.json).toEqual({
      receiver: { contacts: [{ identifierKey: 'phonenumber', identifierValue: '+14155550123' }] },
      body: { type: 'text', text: { text: 'Your verification code is 482913' } },
      reference: res.headers[MESSAGE_ID_HEADER.toLowerCase()],
    });
    expect(await metricValue(metrics, 'sms_deliveries_total', { provider: 'bird', outcome: 'delivered' })).toBe(1);
    expect(logs.entries().find((entry) => entry.msg === 'sms delivered')?.providerMessageId).toMatch(/^[0-9a-f-]{36}$/);
    expect(logs.text()).not.toContain(BIRD_ACCESS_KEY);
    expect(logs.text()).not.toContain('482913');
  });

  it('sends text outside GSM-7 intact as UTF-8 JSON (Bird picks UCS-2 itself)', async () => {
    const { app } = buildGateway(birdEnv());
    expect((await request(app).post('/sms').send(deliveryBody({ body: 'Ο κωδικός σας: 123456 ✅' }))).status).toBe(200);
    expect(bird.requests[0]?.json.body).toEqual({ type: 'text', text: { text: 'Ο κωδικός σας: 123456 ✅' } });
  });

  it('names the refusal but no credential when Bird answers 401', async () => {
    const { app, logs } = buildGateway(birdEnv({ BIRD_ACCESS_KEY: 'wrong-bird-access-key-0123' }));
    const res = await request(app).post('/sms').send(deliveryBody());
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: 'provider_error', error_description: 'Bird error Unauthorized (HTTP 401): Invalid access key' });
    expect(JSON.stringify(res.body) + logs.text()).not.toContain('wrong-bird-access-key-0123');
  });

  describe('error mapping: each error code decides between failing over and refusing the message', () => {
    // Bird's API error codes, read as: may another provider deliver it?
    const table: Array<[code: string, httpStatus: number, failsOver: boolean]> = [
      ['Unauthorized', 401, true],
      ['Forbidden', 403, true],
      ['NotFound', 404, true],
      ['TooManyRequests', 429, true],
      ['DestinationBlocked', 422, true],
      ['ChannelNotActive', 422, true],
      ['InternalServerError', 500, true],
      ['InvalidPayload', 422, false],
      ['InvalidReceiver', 422, false],
      // Not in the table: the HTTP status decides.
      ['SomeFutureCode', 422, false],
      ['SomeFutureOutage', 503, true],
    ];

    it('covers every code of the provider table', () => {
      expect(Object.keys(BIRD_ERROR_CODES).sort()).toEqual(table.map(([code]) => code).filter((code) => !code.startsWith('SomeFuture')).sort());
    });

    it.each(table)('%s (HTTP %d): fails over to the next provider = %s', async (code, httpStatus, failsOver) => {
      bird.answerWith = { status: httpStatus, code, message: 'refused' };
      const { app, metrics } = buildGateway({
        SMS_PROVIDER_INSTANCES: JSON.stringify({ backup: { provider: 'webhook', WEBHOOK_URL: backup.url() } }),
        SMS_ROUTES: JSON.stringify({ default: ['bird', 'backup'] }),
        ...birdEnv(),
      });
      const res = await request(app).post('/sms').send(deliveryBody());
      expect(bird.requests).toHaveLength(1);
      if (failsOver) {
        expect(res.status).toBe(200);
        expect(backup.requests).toHaveLength(1);
        expect(await metricValue(metrics, 'sms_failovers_total', { from: 'bird', to: 'backup' })).toBe(1);
      } else {
        expect(res.status).toBe(500);
        expect(res.body).toEqual({ error: 'provider_error', error_description: `Bird error ${code} (HTTP ${httpStatus}): refused` });
        expect(backup.requests).toHaveLength(0);
      }
    });
  });

  it('fails over to a Telnyx instance when Bird is down (HTTP 503 without an error body)', async () => {
    await expectFailover({
      from: 'bird',
      fromSettings: (origin) => birdEnv({ BIRD_API_BASE_URL: origin }),
      answer: (_req, res) => res.writeHead(503).end(),
      to: 'telnyx-us',
      startNext: startFakeTelnyx,
      nextSettings: (next) => ({ provider: 'telnyx', TELNYX_API_KEY, TELNYX_FROM: '+13125550100', TELNYX_API_BASE_URL: next.baseUrl }),
      failedWith: 503,
    });
  });

  it('does not send from the channel when a route asks for another sender, and moves on to the next provider', async () => {
    const { app } = buildGateway({
      SMS_PROVIDER_INSTANCES: JSON.stringify({ backup: { provider: 'webhook', WEBHOOK_URL: backup.url() } }),
      SMS_ROUTES: JSON.stringify({ default: { providers: ['bird', 'backup'], sender: 'AcmeEU' } }),
      ...birdEnv(),
    });
    expect((await request(app).post('/sms').send(deliveryBody())).status).toBe(200);
    expect(bird.requests).toHaveLength(0);
    expect(backup.requests).toHaveLength(1);
  });

  it('refuses WhatsApp and voice deliveries (SMS only)', async () => {
    const { app } = buildGateway(birdEnv());
    const res = await request(app).post('/sms').send(deliveryBody({ channel: 'whatsapp' }));
    expect(res.status).toBe(500);
    expect(res.body.error_description).toBe('Bird sends SMS only here, not whatsapp');
    expect(bird.requests).toHaveLength(0);
  });
});

describe('bird settings', () => {
  it('names every missing variable when bird is selected', () => {
    expect(problemsOf({ SMS_PROVIDER: 'bird' })).toEqual([
      'BIRD_ACCESS_KEY: is required when SMS_PROVIDER is bird',
      'BIRD_WORKSPACE_ID: is required when SMS_PROVIDER is bird',
      'BIRD_CHANNEL_ID: is required when SMS_PROVIDER is bird',
    ]);
  });

  it('refuses a workspace or channel id that is not a UUID', () => {
    expect(problemsOf({ BIRD_WORKSPACE_ID: 'acme' })).toEqual(['BIRD_WORKSPACE_ID: must be a Bird workspace id (a UUID)']);
    expect(problemsOf({ BIRD_CHANNEL_ID: 'sms' })).toEqual(['BIRD_CHANNEL_ID: must be a Bird channel id (a UUID)']);
  });
});

describe('Bird delivery receipts (sms.outbound webhooks)', () => {
  let bird: FakeBird;
  beforeAll(async () => {
    bird = await startFakeBird();
  });
  afterAll(() => bird.close());

  const gateway = (overrides: Record<string, string> = {}) =>
    buildGateway({
      SMS_PROVIDER: 'bird',
      BIRD_ACCESS_KEY,
      BIRD_WORKSPACE_ID,
      BIRD_CHANNEL_ID,
      BIRD_API_BASE_URL: bird.baseUrl,
      BIRD_SIGNING_KEY,
      GATEWAY_PUBLIC_URL: PUBLIC_URL,
      ...overrides,
    });
  type App = ReturnType<typeof gateway>['app'];
  const EVENTS_URL = `${PUBLIC_URL}/receipts/bird`;

  async function sendOne(app: App) {
    const res = await request(app).post('/sms').send(deliveryBody());
    expect(res.status).toBe(200);
    const id = res.headers[MESSAGE_ID_HEADER.toLowerCase()] as string;
    const status = await request(app).get(`/messages/${id}`);
    return { id, birdId: (status.body as { provider_message_id: string }).provider_message_id };
  }
  const statusOf = async (app: App, id: string) => (await request(app).get(`/messages/${id}`)).body as unknown;

  /** An sms.outbound event as Bird's "Message status and interactions" shows it. */
  const event = (id: string, birdId: string, status: string, failure?: { code: number; description: string }) =>
    JSON.stringify({
      service: 'channels',
      event: 'sms.outbound',
      payload: {
        id: birdId,
        channelId: BIRD_CHANNEL_ID,
        sender: { connector: { id: '1c6f2a4e-0d2b-4c58-9a7e-3b1f5e8d9c00', identifierValue: 'Acme' } },
        receiver: { contacts: [{ id: '5b9c', identifierKey: 'phonenumber', identifierValue: '+14155550123' }] },
        body: { type: 'text', text: { text: 'Your verification code is 482913' } },
        reference: id,
        status,
        direction: 'outgoing',
        ...(failure !== undefined ? { failure } : {}),
        lastStatusAt: '2025-01-15T12:00:01.000Z',
        createdAt: '2025-01-15T12:00:00.000Z',
        updatedAt: '2025-01-15T12:00:01.000Z',
      },
    });
  const post = (app: App, body: string, headers: Record<string, string>) => {
    const req = request(app).post('/receipts/bird').set('content-type', 'application/json');
    for (const [name, value] of Object.entries(headers)) req.set(name, value);
    return req.send(body);
  };
  const signedHeaders = (body: string, timestamp = String(nowSeconds()), key = BIRD_SIGNING_KEY, url = EVENTS_URL) => ({
    'messagebird-request-timestamp': timestamp,
    'messagebird-signature': signLikeBird(key, timestamp, url, body),
  });

  it('moves the message to sent then delivered on signed events, and records a failed delivery with its failure code', async () => {
    const { app } = gateway();
    const { id, birdId } = await sendOne(app);
    for (const status of ['sent', 'delivered']) {
      const body = event(id, birdId, status);
      expect((await post(app, body, signedHeaders(body))).status).toBe(204);
      expect(await statusOf(app, id)).toMatchObject({ status, error_code: null });
    }
    const second = await sendOne(app);
    const failed = event(second.id, second.birdId, 'delivery_failed', { code: 27, description: 'Absent subscriber' });
    expect((await post(app, failed, signedHeaders(failed))).status).toBe(204);
    expect(await statusOf(app, second.id)).toMatchObject({ status: 'undelivered', error_code: '27' });
  });

  it('refuses an unsigned, a forged, a tampered, a stale event and one signed for another URL with 403, changing nothing', async () => {
    const { app } = gateway();
    const { id, birdId } = await sendOne(app);
    const body = event(id, birdId, 'delivered');
    const cases: Array<Record<string, string>> = [
      {},
      signedHeaders(body, String(nowSeconds()), 'not-the-signing-key'),
      { ...signedHeaders(body), 'messagebird-request-timestamp': String(nowSeconds() + 1) },
      signedHeaders(body, String(nowSeconds() - 301)),
      signedHeaders(body, String(nowSeconds()), BIRD_SIGNING_KEY, `${PUBLIC_URL}/receipts/other`),
    ];
    for (const headers of cases) expect((await post(app, body, headers)).status).toBe(403);
    const reserialised = JSON.stringify(JSON.parse(body), null, 1);
    expect((await post(app, reserialised, signedHeaders(body))).status).toBe(403);
    expect(await statusOf(app, id)).toMatchObject({ status: 'accepted' });
  });

  it('acknowledges, recording nothing, a signed event of a message others sent on the channel (no reference)', async () => {
    const { app } = gateway();
    const { id, birdId } = await sendOne(app);
    const withoutReference = JSON.stringify({ ...JSON.parse(event(id, birdId, 'delivered')), payload: { id: birdId, status: 'delivered' } });
    expect((await post(app, withoutReference, signedHeaders(withoutReference))).status).toBe(204);
    expect(await statusOf(app, id)).toMatchObject({ status: 'accepted' });
  });

  it('refuses a genuine event whose Bird id is not the one of the message it names (404)', async () => {
    const { app } = gateway();
    const first = await sendOne(app);
    const second = await sendOne(app);
    const crossed = event(second.id, first.birdId, 'delivered');
    expect((await post(app, crossed, signedHeaders(crossed))).status).toBe(404);
    expect(await statusOf(app, second.id)).toMatchObject({ status: 'accepted' });
  });

  it('takes no events without BIRD_SIGNING_KEY (404)', async () => {
    const { app } = gateway({ BIRD_SIGNING_KEY: '' });
    const { id, birdId } = await sendOne(app);
    const body = event(id, birdId, 'delivered');
    expect((await post(app, body, signedHeaders(body))).status).toBe(404);
  });
});
