import { loadConfig } from '@smsauth/service-kit';
import type { RecordingServer } from '@smsauth/test-support';
import request from 'supertest';
import { configSchema } from '../src/config';
import { problemsOf } from './support/config';
import { RouteTable } from '../src/domain/routing';
import { TWILIO_SID, TWILIO_TOKEN, startFakeTwilio, type FakeTwilio } from './support/fake-twilio';
import { buildGateway, deliveryBody } from './support/gateway';
import { bodiesOf, startProvider, webhookInstances } from './support/providers';

describe('SMS_ROUTES configuration', () => {
  it('keeps the single SMS_PROVIDER as the default route when SMS_ROUTES is unset', () => {
    const config = loadConfig(configSchema, { SMS_PROVIDER: 'webhook', WEBHOOK_URL: 'https://hooks.example.com/sms' });
    expect(config.providerInstances).toEqual([expect.objectContaining({ name: 'webhook', kind: 'webhook' })]);
    expect(RouteTable.fromInput(config.SMS_ROUTES, [config.SMS_PROVIDER]).routeFor('+4915112345678')).toEqual({ key: 'default', providers: ['webhook'] });
  });

  it('refuses SMS_ROUTES that is not JSON, naming the variable', () => {
    expect(problemsOf({ SMS_ROUTES: '+1=twilio' })).toEqual([expect.stringMatching(/^SMS_ROUTES: must be JSON, e\.g\. /)]);
  });

  it('refuses a route key that is neither a prefix, a country nor default', () => {
    expect(problemsOf({ SMS_ROUTES: '{"49":["outbox"]}' })).toEqual([expect.stringMatching(/^SMS_ROUTES: 49: route keys are "\+<1-6 digits>"/)]);
    expect(problemsOf({ SMS_ROUTES: '{"XX":["outbox"]}' })).toEqual([expect.stringMatching(/^SMS_ROUTES: XX: route keys are/)]);
  });

  it('refuses a route with no providers or a bad sender', () => {
    expect(problemsOf({ SMS_ROUTES: '{"+1":[]}' })).toEqual([expect.stringContaining('SMS_ROUTES: +1: needs at least one provider')]);
    expect(problemsOf({ SMS_ROUTES: '{"+1":{"providers":["outbox"],"sender":"not a valid sender id"}}' })).toEqual([
      expect.stringContaining('SMS_ROUTES: +1.sender: must be an E.164 number'),
    ]);
  });

  it('refuses a route naming a provider that is not configured', () => {
    expect(problemsOf({ SMS_ROUTES: '{"+49":["regional"]}' })).toEqual([
      'SMS_ROUTES: route "+49" names provider "regional", which is neither outbox, twilio, webhook, vonage, telnyx, plivo, sinch, infobip nor an SMS_PROVIDER_INSTANCES name',
    ]);
  });

  it("applies a kind's own rules when a route uses it", () => {
    expect(problemsOf({ SMS_ROUTES: '{"+49":["webhook"]}' })).toEqual(['WEBHOOK_URL: is required when SMS_ROUTES uses webhook']);
  });

  it('checks each SMS_PROVIDER_INSTANCES entry with its kind’s own schema and rules', () => {
    const routes = '{"default":["a","b","c"]}';
    expect(
      problemsOf({
        SMS_ROUTES: routes,
        SMS_PROVIDER_INSTANCES: JSON.stringify({
          a: { provider: 'webhook', WEBHOOK_URL: 'ftp://x' },
          b: { provider: 'twilio', TWILIO_AUTH_TOKEN: 't', TWILIO_FROM: '+15005550006' },
          c: { provider: 'carrier-pigeon' },
        }),
      }),
    ).toEqual([
      'SMS_PROVIDER_INSTANCES: "a".WEBHOOK_URL: must be an http(s) URL',
      'SMS_PROVIDER_INSTANCES: "b".TWILIO_ACCOUNT_SID: is required for a twilio provider',
      'SMS_PROVIDER_INSTANCES: "c".provider: must be one of outbox, twilio, webhook, vonage, telnyx, plivo, sinch, infobip',
    ]);
  });

  it('refuses an instance named like a provider kind, or a variable of another kind', () => {
    expect(problemsOf({ SMS_PROVIDER_INSTANCES: '{"twilio":{"provider":"webhook","WEBHOOK_URL":"https://a.example"}}' })).toEqual([
      expect.stringMatching(/^SMS_PROVIDER_INSTANCES: twilio: instance names must differ from the provider kinds/),
    ]);
    expect(
      problemsOf({
        SMS_ROUTES: '{"default":["hook"]}',
        SMS_PROVIDER_INSTANCES: '{"hook":{"provider":"webhook","WEBHOOK_URL":"https://a.example","TWILIO_FROM":"+15005550006"}}',
      }),
    ).toEqual([expect.stringMatching(/^SMS_PROVIDER_INSTANCES: "hook".TWILIO_FROM: is not a webhook variable/)]);
  });

  it('needs no SMS_PROVIDER in production when SMS_ROUTES has a default route', () => {
    const env = { NODE_ENV: 'production', SMS_ROUTES: '{"default":["webhook"]}', WEBHOOK_URL: 'https://hooks.example.com/sms' };
    expect(problemsOf(env)).toEqual([]);
    expect(problemsOf({ NODE_ENV: 'production' })).toEqual([expect.stringMatching(/^SMS_PROVIDER: must be set in production/)]);
  });
});

describe('route matching', () => {
  const table = RouteTable.fromInput(
    { '+1': ['us'], '+1415': ['sf'], US: ['us-country'], DE: ['de'], '+49': ['de-prefix'], default: ['fallback'] },
    ['unused'],
  );

  it('prefers the longest prefix, then a country over a prefix as long as its calling code', () => {
    expect(table.routeFor('+14155550123').providers).toEqual(['sf']);
    expect(table.routeFor('+12025550123').providers).toEqual(['us-country']);
    expect(table.routeFor('+4915112345678').providers).toEqual(['de']);
  });

  it('falls back to the prefix when the number belongs to no country, and to default when nothing matches', () => {
    // +1 555 numbers are not assigned to a country.
    expect(table.routeFor('+15555550123').providers).toEqual(['us']);
    expect(table.routeFor('+33612345678')).toEqual({ key: 'default', providers: ['fallback'] });
  });
});

describe('routing by destination', () => {
  let us: RecordingServer;
  let de: RecordingServer;
  beforeEach(async () => {
    [us, de] = await Promise.all([startProvider(), startProvider()]);
  });
  afterEach(async () => {
    await Promise.all([us.close(), de.close()]);
  });

  const routedGateway = () =>
    buildGateway({
      SMS_PROVIDER_INSTANCES: webhookInstances({ 'webhook-us': us, 'webhook-de': de }),
      SMS_ROUTES: JSON.stringify({ '+1': { providers: ['webhook-us'], sender: '+12025550100' }, DE: ['webhook-de'], default: ['webhook-us'] }),
    });

  it('sends +1 numbers to the US provider with the route’s sender and German numbers to the regional one', async () => {
    const { app } = routedGateway();
    expect((await request(app).post('/sms').send(deliveryBody({ recipient: '+14155550123' }))).status).toBe(200);
    expect((await request(app).post('/sms').send(deliveryBody({ recipient: '+4915112345678' }))).status).toBe(200);

    expect(bodiesOf(us)).toEqual([expect.objectContaining({ recipient: '+14155550123', sender: '+12025550100' })]);
    // No route sender: the request's own sender goes on.
    expect(bodiesOf(de)).toEqual([expect.objectContaining({ recipient: '+4915112345678', sender: '+15005550006' })]);
  });

  it('sends a number no route names to the default route', async () => {
    const { app } = routedGateway();
    expect((await request(app).post('/sms').send(deliveryBody({ recipient: '+33612345678' }))).status).toBe(200);
    expect(bodiesOf(us)).toEqual([expect.objectContaining({ recipient: '+33612345678' })]);
    expect(de.requests).toHaveLength(0);
  });
});

describe('routing to Twilio', () => {
  let twilio: FakeTwilio;
  let regional: RecordingServer;
  beforeEach(async () => {
    [twilio, regional] = await Promise.all([startFakeTwilio(), startProvider()]);
  });
  afterEach(async () => {
    await Promise.all([twilio.close(), regional.close()]);
  });

  it('sends +1 numbers through Twilio from the route’s US sender instead of TWILIO_FROM, and +49 to the regional webhook', async () => {
    const { app } = buildGateway({
      TWILIO_ACCOUNT_SID: TWILIO_SID,
      TWILIO_AUTH_TOKEN: TWILIO_TOKEN,
      TWILIO_FROM: 'SMSAUTH',
      TWILIO_API_BASE_URL: twilio.baseUrl,
      SMS_PROVIDER_INSTANCES: webhookInstances({ 'webhook-de': regional }),
      SMS_ROUTES: JSON.stringify({ '+1': { providers: ['twilio'], sender: '+12025550100' }, '+49': ['webhook-de'], default: ['twilio'] }),
    });
    expect((await request(app).post('/sms').send(deliveryBody({ recipient: '+14155550123' }))).status).toBe(200);
    expect((await request(app).post('/sms').send(deliveryBody({ recipient: '+4915112345678' }))).status).toBe(200);
    expect((await request(app).post('/sms').send(deliveryBody({ recipient: '+447700900123' }))).status).toBe(200);

    expect(twilio.requests.map((r) => [r.form.To, r.form.From])).toEqual([
      ['+14155550123', '+12025550100'],
      ['+447700900123', 'SMSAUTH'],
    ]);
    expect(bodiesOf(regional)).toEqual([expect.objectContaining({ recipient: '+4915112345678' })]);
  });
});
