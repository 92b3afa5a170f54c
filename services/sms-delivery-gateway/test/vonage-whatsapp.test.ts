import { MESSAGE_ID_HEADER } from '@smsauth/contracts';
import type { RecordingServer } from '@smsauth/test-support';
import request from 'supertest';
import { VONAGE_MESSAGES_HTTP_STATUSES } from '../src/providers/vonage-messages';
import { problemsOf } from './support/config';
import {
  VONAGE_APPLICATION_ID,
  VONAGE_KEY,
  VONAGE_PRIVATE_KEY,
  VONAGE_SECRET,
  VONAGE_SIGNATURE_SECRET,
  signLikeVonageMessages,
  startFakeVonage,
  type FakeVonage,
} from './support/fake-vonage';
import { buildGateway, deliveryBody, metricValue, nowSeconds } from './support/gateway';
import { withFakeAndBackup } from './support/provider-suite';

const PUBLIC_URL = 'https://sms-gateway.example.com';

describe('vonage provider: WhatsApp through the Messages API', () => {
  let vonage: FakeVonage;
  let backup: RecordingServer;
  withFakeAndBackup(startFakeVonage, (fake, server) => {
    [vonage, backup] = [fake, server];
  });
  beforeEach(() => {
    vonage.answerMessagesWith = undefined;
    vonage.lastJwtClaims = undefined;
  });

  const vonageEnv = (overrides: Record<string, string> = {}) => ({
    SMS_PROVIDER: 'vonage',
    VONAGE_API_KEY: VONAGE_KEY,
    VONAGE_API_SECRET: VONAGE_SECRET,
    VONAGE_FROM: 'AcmeInc',
    VONAGE_WHATSAPP_FROM: '+447700900000',
    VONAGE_APPLICATION_ID,
    // As a one-line environment value carries it.
    VONAGE_PRIVATE_KEY: VONAGE_PRIVATE_KEY.replace(/\n/g, '\\n'),
    VONAGE_API_BASE_URL: vonage.baseUrl,
    VONAGE_MESSAGES_API_BASE_URL: vonage.baseUrl,
    ...overrides,
  });

  it("sends a WhatsApp text with the application's RS256 JWT, and SMS still through the SMS API", async () => {
    const { app, metrics, logs } = buildGateway(vonageEnv());
    const res = await request(app).post('/sms').send(deliveryBody({ channel: 'whatsapp', body: 'Ваш код 482913' }));
    expect(res.status).toBe(200);
    expect(vonage.requests).toHaveLength(1);
    const [sent] = vonage.requests;
    expect(sent?.url).toBe('/v1/messages');
    expect(sent?.headers['content-type']).toMatch(/^application\/json/);
    expect(sent?.json).toEqual({
      message_type: 'text',
      channel: 'whatsapp',
      to: '14155550123',
      from: '447700900000',
      text: 'Ваш код 482913',
      client_ref: res.headers[MESSAGE_ID_HEADER.toLowerCase()],
    });
    expect(vonage.lastJwtClaims).toMatchObject({ application_id: VONAGE_APPLICATION_ID, iat: nowSeconds(), exp: nowSeconds() + 300, jti: expect.any(String) });
    expect(await metricValue(metrics, 'sms_deliveries_total', { provider: 'vonage', outcome: 'delivered', channel: 'whatsapp' })).toBe(1);
    expect(logs.entries().find((entry) => entry.msg === 'sms delivered')?.providerMessageId).toMatch(/^[0-9a-f-]{36}$/);
    expect(logs.text()).not.toContain('PRIVATE KEY');
    expect(logs.text()).not.toContain('482913');

    expect((await request(app).post('/sms').send(deliveryBody())).status).toBe(200);
    expect(vonage.requests[1]?.url).toBe('/sms/json');
  });

  it('calls the Messages API with Basic auth (API key and secret) when no application is configured', async () => {
    const { VONAGE_APPLICATION_ID: _id, VONAGE_PRIVATE_KEY: _key, ...env } = vonageEnv({ VONAGE_SIGNATURE_SECRET, GATEWAY_PUBLIC_URL: PUBLIC_URL });
    const { app } = buildGateway(env);
    expect((await request(app).post('/sms').send(deliveryBody({ channel: 'whatsapp' }))).status).toBe(200);
    const sent = vonage.requests[0]!;
    expect(sent.headers.authorization).toBe(`Basic ${Buffer.from(`${VONAGE_KEY}:${VONAGE_SECRET}`).toString('base64')}`);
    // Vonage sends no status webhooks to Basic-auth callers: none is asked for.
    expect(sent.json.webhook_url).toBeUndefined();
  });

  it('refuses WhatsApp without VONAGE_WHATSAPP_FROM, and voice, without calling Vonage', async () => {
    const { VONAGE_WHATSAPP_FROM: _from, ...env } = vonageEnv();
    const { app } = buildGateway(env);
    const whatsapp = await request(app).post('/sms').send(deliveryBody({ channel: 'whatsapp' }));
    expect(whatsapp.status).toBe(500);
    expect(whatsapp.body.error_description).toBe('Vonage WhatsApp needs VONAGE_WHATSAPP_FROM (sent through the Messages API)');
    const voice = await request(app).post('/sms').send(deliveryBody({ channel: 'voice' }));
    expect(voice.body.error_description).toBe('Vonage sends SMS and WhatsApp only, not voice');
    expect(vonage.requests).toHaveLength(0);
  });

  describe('error mapping: each HTTP status of the Messages API decides between failing over and refusing the message', () => {
    const listed = Object.entries(VONAGE_MESSAGES_HTTP_STATUSES).map(([status, { transient }]) => [Number(status), transient] as const);
    // Statuses outside the table: decided as for every provider.
    const table: Array<readonly [status: number, failsOver: boolean]> = [...listed, [409, false], [502, true]];

    it('reads the documented statuses as expected', () => {
      expect(Object.fromEntries(listed)).toEqual({ 400: false, 401: true, 402: true, 403: true, 404: true, 413: false, 422: false, 429: true, 500: true, 503: true });
    });

    it.each(table)('HTTP %s: fails over to the next provider = %s', async (httpStatus, failsOver) => {
      vonage.answerMessagesWith = { httpStatus, title: 'Problem title', detail: 'What Vonage says' };
      const { app } = buildGateway({
        SMS_PROVIDER_INSTANCES: JSON.stringify({ backup: { provider: 'webhook', WEBHOOK_URL: backup.url() } }),
        SMS_ROUTES: JSON.stringify({ default: ['vonage', 'backup'] }),
        ...vonageEnv(),
      });
      const res = await request(app).post('/sms').send(deliveryBody({ channel: 'whatsapp' }));
      expect(vonage.requests).toHaveLength(1);
      if (failsOver) {
        expect(res.status).toBe(200);
        expect(backup.requests).toHaveLength(1);
      } else {
        expect(res.status).toBe(500);
        expect(res.body).toEqual({ error: 'provider_error', error_description: `Vonage Messages HTTP ${httpStatus}: Problem title: What Vonage says` });
        expect(backup.requests).toHaveLength(0);
      }
    });
  });

  describe('status webhooks', () => {
    const gateway = () => buildGateway(vonageEnv({ VONAGE_SIGNATURE_SECRET, GATEWAY_PUBLIC_URL: PUBLIC_URL }));
    type App = ReturnType<typeof gateway>['app'];

    async function sendOne(app: App) {
      const res = await request(app).post('/sms').send(deliveryBody({ channel: 'whatsapp' }));
      expect(res.status).toBe(200);
      const id = res.headers[MESSAGE_ID_HEADER.toLowerCase()] as string;
      const status = await request(app).get(`/messages/${id}`);
      return { id, sent: vonage.requests.at(-1)!, uuid: (status.body as { provider_message_id: string }).provider_message_id };
    }
    const statusOf = async (app: App, id: string) => (await request(app).get(`/messages/${id}`)).body as unknown;
    /** A status webhook as Vonage documents its fields. */
    const event = (id: string, uuid: string, status: string, extra: Record<string, unknown> = {}) =>
      JSON.stringify({ message_uuid: uuid, to: '14155550123', from: '447700900000', timestamp: '2025-01-15T12:00:00Z', status, channel: 'whatsapp', client_ref: id, ...extra });
    const post = (app: App, id: string, body: string, token?: string) => {
      const req = request(app).post(`/receipts/vonage/${id}`).set('content-type', 'application/json');
      return (token === undefined ? req : req.set('authorization', `Bearer ${token}`)).send(body);
    };

    it('asks for each message’s status at the gateway and records a signed delivered webhook, and a rejected one with its error', async () => {
      const { app } = gateway();
      const first = await sendOne(app);
      expect(first.sent.json.webhook_url).toBe(`${PUBLIC_URL}/receipts/vonage/${first.id}`);
      const delivered = event(first.id, first.uuid, 'delivered');
      expect((await post(app, first.id, delivered, signLikeVonageMessages(delivered, VONAGE_SIGNATURE_SECRET, nowSeconds()))).status).toBe(204);
      expect(await statusOf(app, first.id)).toMatchObject({ status: 'delivered', error_code: null });

      const second = await sendOne(app);
      const rejected = event(second.id, second.uuid, 'rejected', { error: { type: 'https://developer.vonage.com/api-errors/messages#1320', title: '1320', detail: 'Not a WhatsApp user' } });
      expect((await post(app, second.id, rejected, signLikeVonageMessages(rejected, VONAGE_SIGNATURE_SECRET, nowSeconds()))).status).toBe(204);
      expect(await statusOf(app, second.id)).toMatchObject({ status: 'failed', error_code: '1320' });
    });

    it('refuses an unsigned webhook, a forged one, one whose body was changed and a stale one with 403, changing nothing', async () => {
      const { app } = gateway();
      const { id, uuid } = await sendOne(app);
      const body = event(id, uuid, 'delivered');
      const forged = signLikeVonageMessages(body, 'not-the-signature-secret-0123456789', nowSeconds());
      const forOtherBody = signLikeVonageMessages(event(id, uuid, 'rejected'), VONAGE_SIGNATURE_SECRET, nowSeconds());
      const stale = signLikeVonageMessages(body, VONAGE_SIGNATURE_SECRET, nowSeconds() - 301);
      const noneAlgorithm = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from(JSON.stringify({ iat: nowSeconds() })).toString('base64url')}.`;
      for (const token of [undefined, forged, forOtherBody, stale, noneAlgorithm]) {
        expect((await post(app, id, body, token)).status).toBe(403);
      }
      expect(await statusOf(app, id)).toMatchObject({ status: 'accepted' });
    });

    it('refuses a genuine webhook of one message replayed to another message’s URL', async () => {
      const { app } = gateway();
      const first = await sendOne(app);
      const second = await sendOne(app);
      const body = event(first.id, first.uuid, 'delivered');
      expect((await post(app, second.id, body, signLikeVonageMessages(body, VONAGE_SIGNATURE_SECRET, nowSeconds()))).status).toBe(400);
      expect(await statusOf(app, second.id)).toMatchObject({ status: 'accepted' });
    });
  });
});

describe('vonage WhatsApp settings', () => {
  const base = { SMS_PROVIDER: 'vonage', VONAGE_API_KEY: VONAGE_KEY, VONAGE_API_SECRET: 's', VONAGE_FROM: 'Acme' };

  it('takes an application with its PEM key, and names an incomplete or malformed one', () => {
    expect(problemsOf({ ...base, VONAGE_WHATSAPP_FROM: '+447700900000', VONAGE_APPLICATION_ID, VONAGE_PRIVATE_KEY })).toEqual([]);
    expect(problemsOf({ ...base, VONAGE_APPLICATION_ID })).toEqual(['VONAGE_PRIVATE_KEY: VONAGE_APPLICATION_ID and VONAGE_PRIVATE_KEY go together']);
    expect(problemsOf({ ...base, VONAGE_APPLICATION_ID, VONAGE_PRIVATE_KEY: 'not a key' })).toEqual([expect.stringMatching(/^VONAGE_PRIVATE_KEY: must be a PEM private key/)]);
    expect(problemsOf({ ...base, VONAGE_APPLICATION_ID: 'app-1', VONAGE_PRIVATE_KEY })).toEqual([
      'VONAGE_APPLICATION_ID: must be a Vonage application id (a UUID)',
    ]);
  });

  it('names a WhatsApp sender that is not E.164 and one with no way to call the Messages API', () => {
    expect(problemsOf({ ...base, VONAGE_WHATSAPP_FROM: 'AcmeInc' })).toEqual([expect.stringMatching(/^VONAGE_WHATSAPP_FROM: must be an E.164 number/)]);
    const { VONAGE_API_SECRET: _secret, ...signed } = base;
    expect(problemsOf({ ...signed, VONAGE_SIGNATURE_SECRET, VONAGE_WHATSAPP_FROM: '+447700900000' })).toEqual([
      'VONAGE_WHATSAPP_FROM: WhatsApp through the Messages API needs VONAGE_APPLICATION_ID and VONAGE_PRIVATE_KEY, or VONAGE_API_SECRET',
    ]);
  });
});
