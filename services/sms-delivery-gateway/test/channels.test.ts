import request from 'supertest';
import type { RecordingServer } from '@smsauth/test-support';
import { loadConfig } from '@smsauth/service-kit';
import { configSchema } from '../src/config';
import { ChannelRoutes } from '../src/domain/routing';
import { problemsOf } from './support/config';
import { TWILIO_SID, TWILIO_TOKEN, startFakeTwilio, type FakeTwilio } from './support/fake-twilio';
import { buildGateway, deliveryBody, metricValue } from './support/gateway';
import { bodiesOf, startProvider, webhookInstances } from './support/providers';

const BRAZIL = '+5511987654321';
const WHATSAPP_FROM = '+14155238886';
const CONTENT_SID = `HX${'0123456789abcdef'.repeat(2)}`;

/** A twilio instance for routes, named as given, with the fake's base URL and credentials. */
function twilioInstance(twilio: FakeTwilio, extra: Record<string, string> = {}): Record<string, string> {
  return { provider: 'twilio', TWILIO_ACCOUNT_SID: TWILIO_SID, TWILIO_AUTH_TOKEN: TWILIO_TOKEN, TWILIO_FROM: '+15005550006', TWILIO_API_BASE_URL: twilio.baseUrl, ...extra };
}

describe('channels on SMS_ROUTES', () => {
  it('accepts channel route keys and refuses an unknown channel, naming the variable', () => {
    expect(problemsOf({ SMS_ROUTES: '{"default":["outbox"],"whatsapp:BR":["outbox"],"voice:default":["outbox"],"sms:+1":["outbox"]}' })).toEqual([]);
    expect(problemsOf({ SMS_ROUTES: '{"fax:default":["outbox"]}' })).toEqual([expect.stringMatching(/^SMS_ROUTES: fax:default: route keys are .*"whatsapp:BR"/)]);
  });

  it('routes each channel by its own keys, the SMS routes standing in for a channel without any', () => {
    const routes = ChannelRoutes.fromInput({ 'sms:default': ['sms-a'], '+55': ['sms-br'], 'whatsapp:BR': ['wa-br'] }, ['outbox']);
    expect(routes.routeFor('+5511987654321')).toEqual({ key: '+55', providers: ['sms-br'] });
    expect(routes.routeFor('+5511987654321', 'whatsapp')).toEqual({ key: 'whatsapp:BR', providers: ['wa-br'] });
    // WhatsApp has keys, none for Germany and no whatsapp:default: no route.
    expect(routes.routeFor('+4915112345678', 'whatsapp')).toEqual({ key: 'whatsapp:default', providers: [] });
    // Voice has no keys: the SMS routes, whose default is sms:default.
    expect(routes.routeFor('+4915112345678', 'voice')).toEqual({ key: 'default', providers: ['sms-a'] });
    // `sms:default` is the default route: SMS_PROVIDER's instance is not added beside it.
    const config = loadConfig(configSchema, {
      SMS_ROUTES: '{"sms:default":["hook"]}',
      SMS_PROVIDER_INSTANCES: '{"hook":{"provider":"webhook","WEBHOOK_URL":"https://hooks.example.com/sms"}}',
    });
    expect(config.providerInstances.map((instance) => instance.name)).toEqual(['hook']);
  });
});

describe('Twilio Messages and Calls by channel', () => {
  let twilio: FakeTwilio;
  beforeEach(async () => {
    twilio = await startFakeTwilio();
  });
  afterEach(() => twilio.close());

  const gateway = (extra: Record<string, string> = {}) =>
    buildGateway({
      SMS_PROVIDER_INSTANCES: JSON.stringify({
        'twilio-sms': twilioInstance(twilio),
        'twilio-wa': twilioInstance(twilio, { TWILIO_WHATSAPP_FROM: WHATSAPP_FROM, ...extra }),
        'twilio-voice': twilioInstance(twilio, { TWILIO_VOICE_FROM: '+15005550007' }),
      }),
      SMS_ROUTES: JSON.stringify({ default: ['twilio-sms'], 'whatsapp:BR': ['twilio-wa'], 'voice:default': ['twilio-voice'] }),
    }).app;

  it('still sends the spec’s three-field request as an SMS through Messages', async () => {
    const res = await request(gateway()).post('/sms').send({ recipient: BRAZIL, body: 'Your code is 482913', sender: '+15005550006' });
    expect(res.status).toBe(200);
    expect(twilio.requests).toHaveLength(1);
    expect(twilio.requests[0]!.url).toBe(`/2010-04-01/Accounts/${TWILIO_SID}/Messages.json`);
    expect(twilio.requests[0]!.form).toEqual({ To: BRAZIL, Body: 'Your code is 482913', From: '+15005550006' });
  });

  it('sends a WhatsApp message from the whatsapp: sender to the whatsapp: address', async () => {
    const res = await request(gateway()).post('/sms').send(deliveryBody({ recipient: BRAZIL, body: 'Seu código é 482913', channel: 'whatsapp', code: '482913' }));
    expect(res.status).toBe(200);
    expect(twilio.requests[0]!.url).toBe(`/2010-04-01/Accounts/${TWILIO_SID}/Messages.json`);
    expect(twilio.requests[0]!.form).toEqual({ To: `whatsapp:${BRAZIL}`, From: `whatsapp:${WHATSAPP_FROM}`, Body: 'Seu código é 482913' });
  });

  it('fills a WhatsApp content template with the code’s digits instead of sending free text', async () => {
    const app = gateway({ TWILIO_WHATSAPP_CONTENT_SID: CONTENT_SID });
    const res = await request(app).post('/sms').send(deliveryBody({ recipient: BRAZIL, body: 'Seu código é 482913', channel: 'whatsapp', code: '482913' }));
    expect(res.status).toBe(200);
    const form = twilio.requests[0]!.form;
    expect(form).toEqual({ To: `whatsapp:${BRAZIL}`, From: `whatsapp:${WHATSAPP_FROM}`, ContentSid: CONTENT_SID, ContentVariables: '{"1":"482913"}' });
  });

  it('places a voice call whose TwiML says the text in the request’s language', async () => {
    const body = 'Seu código do App é: 4, 8, 2, 9, 1, 3. Repetindo, seu código é: 4, 8, 2, 9, 1, 3.';
    const app = gateway();
    const res = await request(app).post('/sms').send(deliveryBody({ recipient: BRAZIL, body, channel: 'voice', code: '482913', language: 'pt-BR' }));
    expect(res.status).toBe(200);
    expect(twilio.requests[0]!.url).toBe(`/2010-04-01/Accounts/${TWILIO_SID}/Calls.json`);
    const form = twilio.requests[0]!.form;
    expect(form.To).toBe(BRAZIL);
    expect(form.From).toBe('+15005550007');
    expect(form.Twiml).toBe(`<?xml version="1.0" encoding="UTF-8"?><Response><Say language="pt-BR">${body}</Say></Response>`);
    // The call's sid is the message's provider id.
    const status = await request(app).get(`/messages/${res.headers['sms-message-id']}`);
    expect(status.body).toMatchObject({ status: 'accepted', provider: 'twilio-voice', provider_message_id: expect.stringMatching(/^CA[0-9a-f]{32}$/) });
  });

  it('counts deliveries by channel, so each channel’s traffic and failures can be watched apart', async () => {
    const built = buildGateway({
      SMS_PROVIDER_INSTANCES: JSON.stringify({
        'twilio-sms': twilioInstance(twilio),
        'twilio-voice': twilioInstance(twilio, { TWILIO_VOICE_FROM: '+15005550007' }),
      }),
      SMS_ROUTES: JSON.stringify({ default: ['twilio-sms'], 'voice:default': ['twilio-voice'] }),
    });
    await request(built.app).post('/sms').send(deliveryBody({ recipient: BRAZIL, body: 'Your code is 482913' }));
    await request(built.app).post('/sms').send(deliveryBody({ recipient: BRAZIL, body: 'Your code: 4, 8, 2, 9, 1, 3.', channel: 'voice', code: '482913', language: 'en' }));
    expect(await metricValue(built.metrics, 'sms_deliveries_total', { provider: 'twilio-sms', outcome: 'delivered', channel: 'sms' })).toBe(1);
    expect(await metricValue(built.metrics, 'sms_deliveries_total', { provider: 'twilio-voice', outcome: 'delivered', channel: 'voice' })).toBe(1);
    expect(await metricValue(built.metrics, 'sms_deliveries_total', { outcome: 'delivered', channel: 'whatsapp' })).toBe(0);
  });

  it('escapes what a call says, so text cannot become TwiML', async () => {
    await request(gateway()).post('/sms').send(deliveryBody({ body: 'Code 4, 8 <Play>http://x</Play> & "more"', channel: 'voice', language: 'en-US' }));
    expect(twilio.requests[0]!.form.Twiml).toContain('<Say language="en-US">Code 4, 8 &lt;Play&gt;http://x&lt;/Play&gt; &amp; &quot;more&quot;</Say>');
  });

  it('answers 500 naming the channel when the channel has routes and none for this number', async () => {
    const res = await request(gateway()).post('/sms').send(deliveryBody({ recipient: '+4915112345678', channel: 'whatsapp', code: '482913' }));
    expect(res.status).toBe(500);
    expect(res.body.error_description).toMatch(/no whatsapp route for this number/);
    expect(twilio.requests).toHaveLength(0);
  });

  it('fails a WhatsApp delivery through a provider with no WhatsApp sender, so the caller can fall back', async () => {
    const app = buildGateway({
      SMS_PROVIDER_INSTANCES: JSON.stringify({ 'twilio-sms': twilioInstance(twilio) }),
      SMS_ROUTES: JSON.stringify({ default: ['twilio-sms'] }),
    }).app;
    const res = await request(app).post('/sms').send(deliveryBody({ channel: 'whatsapp', code: '482913' }));
    expect(res.status).toBe(500);
    expect(res.body.error_description).toMatch(/TWILIO_WHATSAPP_FROM/);
  });
});

describe('the webhook provider and the outbox with channels', () => {
  let receiver: RecordingServer;
  beforeEach(async () => {
    receiver = await startProvider();
  });
  afterEach(() => receiver.close());

  it('forwards the channel, the code and the language to the webhook receiver', async () => {
    const { app } = buildGateway({ SMS_PROVIDER_INSTANCES: webhookInstances({ hook: receiver }), SMS_ROUTES: '{"default":["hook"]}' });
    await request(app).post('/sms').send(deliveryBody({ channel: 'voice', code: '482913', language: 'de-DE' }));
    expect(bodiesOf(receiver)[0]).toMatchObject({ channel: 'voice', code: '482913', language: 'de-DE' });
  });

  it('keeps each message’s channel and shows it in the JSON list and on the page', async () => {
    const { app } = buildGateway();
    await request(app).post('/sms').send(deliveryBody({ body: 'sms 111111' }));
    await request(app).post('/sms').send(deliveryBody({ body: 'voice 222222', channel: 'voice', code: '222222', language: 'fr-FR' }));
    const list = await request(app).get('/outbox/messages');
    expect(list.body.map((m: { channel: string; language: string | null }) => [m.channel, m.language])).toEqual([
      ['voice', 'fr-FR'],
      ['sms', null],
    ]);
    const page = await request(app).get('/outbox');
    expect(page.text).toContain('<td data-label="Channel">Voice call <span lang="en">(fr-FR)</span></td>');
    expect(page.text).toContain('<td data-label="Channel">SMS</td>');
  });
});
