import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MESSAGE_ID_HEADER } from '@smsauth/contracts';
import type { RecordingServer } from '@smsauth/test-support';
import request from 'supertest';
import { problemsOf } from './support/config';
import { AWS_ACCESS_KEY_ID, AWS_REGION, AWS_SECRET_ACCESS_KEY, startFakeAws, type FakeAws } from './support/fake-aws';
import { BIRD_ACCESS_KEY, BIRD_CHANNEL_ID, BIRD_WORKSPACE_ID, startFakeBird, type FakeBird } from './support/fake-bird';
import { TELNYX_API_KEY, startFakeTelnyx, type FakeTelnyx } from './support/fake-telnyx';
import { TWILIO_SID, TWILIO_TOKEN, startFakeTwilio, type FakeTwilio } from './support/fake-twilio';
import { VONAGE_KEY, VONAGE_SECRET, startFakeVonage, type FakeVonage } from './support/fake-vonage';
import { buildGateway, deliveryBody } from './support/gateway';
import { startProvider } from './support/providers';

/** The recipe as docs/sms-delivery-gateway.md shows it: its SMS_ROUTES and its table of recipients. */
function documentedRecipe(): { routes: string; rows: Array<{ recipient: string; key: string; providers: string[] }> } {
  const doc = readFileSync(join(__dirname, '../../../docs/sms-delivery-gateway.md'), 'utf8');
  const block = /<!-- routing-recipe:start[^>]*-->([\s\S]*?)<!-- routing-recipe:end -->/.exec(doc)?.[1];
  if (block === undefined) throw new Error('docs/sms-delivery-gateway.md has no routing recipe block');
  const routes = /SMS_ROUTES='([\s\S]*?)'/.exec(block)?.[1];
  if (routes === undefined) throw new Error('the routing recipe sets no SMS_ROUTES');
  const rows = [...block.matchAll(/^\| (\+\d+) \([^)]*\) \| `([^`]+)` \| ([a-z, -]+) \|$/gm)].map((match) => ({
    recipient: match[1]!,
    key: match[2]!,
    providers: match[3]!.split(',').map((name) => name.trim()),
  }));
  return { routes, rows };
}

/** Every kind of the recipe configured by its own variables, each at the base URL `baseUrlOf` gives. */
function recipeEnv(routes: string, baseUrlOf: (kind: string) => string): Record<string, string> {
  return {
    NODE_ENV: 'production',
    SMS_ROUTES: routes,
    TWILIO_ACCOUNT_SID: TWILIO_SID,
    TWILIO_AUTH_TOKEN: TWILIO_TOKEN,
    TWILIO_FROM: '+15005550006',
    TWILIO_API_BASE_URL: baseUrlOf('twilio'),
    VONAGE_API_KEY: VONAGE_KEY,
    VONAGE_API_SECRET: VONAGE_SECRET,
    VONAGE_FROM: 'AcmeInc',
    VONAGE_API_BASE_URL: baseUrlOf('vonage'),
    TELNYX_API_KEY,
    TELNYX_FROM: '+13125550100',
    TELNYX_API_BASE_URL: baseUrlOf('telnyx'),
    BIRD_ACCESS_KEY,
    BIRD_WORKSPACE_ID,
    BIRD_CHANNEL_ID,
    BIRD_API_BASE_URL: baseUrlOf('bird'),
    AWS_SMS_REGION: AWS_REGION,
    AWS_SMS_ACCESS_KEY_ID: AWS_ACCESS_KEY_ID,
    AWS_SMS_SECRET_ACCESS_KEY: AWS_SECRET_ACCESS_KEY,
    AWS_SMS_ENDPOINT: baseUrlOf('aws-sms'),
  };
}

describe('routing by country across providers (the recipe of docs/sms-delivery-gateway.md)', () => {
  const recipe = documentedRecipe();
  let twilio: FakeTwilio;
  let vonage: FakeVonage;
  let telnyx: FakeTelnyx;
  let bird: FakeBird;
  let aws: FakeAws;
  let down: RecordingServer;
  beforeAll(async () => {
    [twilio, vonage, telnyx, bird, aws, down] = await Promise.all([startFakeTwilio(), startFakeVonage(), startFakeTelnyx(), startFakeBird(), startFakeAws(), startProvider()]);
    down.respondWith((_req, res) => res.writeHead(503).end());
  });
  afterAll(async () => {
    await Promise.all([twilio.close(), vonage.close(), telnyx.close(), bird.close(), aws.close(), down.close()]);
  });

  /** How many messages each provider's imitation received. */
  const received = () => ({
    twilio: twilio.requests.length,
    vonage: vonage.requests.length,
    telnyx: telnyx.requests.length,
    bird: bird.requests.length,
    'aws-sms': aws.requests.length,
  });

  it('documents a route for every kind it uses, and the configuration loads in production', () => {
    expect(recipe.rows.length).toBeGreaterThanOrEqual(5);
    expect(new Set(recipe.rows.flatMap((row) => row.providers))).toEqual(new Set(['twilio', 'vonage', 'telnyx', 'bird', 'aws-sms']));
    expect(problemsOf(recipeEnv(recipe.routes, () => 'https://provider.example.com'))).toEqual([]);
  });

  it.each(recipe.rows)('sends to $recipient by route $key through the first provider of its route', async ({ recipient, key, providers }) => {
    const baseUrls: Record<string, string> = { twilio: twilio.baseUrl, vonage: vonage.baseUrl, telnyx: telnyx.baseUrl, bird: bird.baseUrl, 'aws-sms': aws.origin };
    const { app, logs } = buildGateway(recipeEnv(recipe.routes, (kind) => baseUrls[kind]!));
    const before = received();
    expect((await request(app).post('/sms').send(deliveryBody({ recipient }))).status).toBe(200);
    const after = received();
    const reached = Object.keys(after).filter((kind) => after[kind as keyof typeof after] > before[kind as keyof typeof before]);
    expect(reached).toEqual([providers[0]]);
    expect(logs.entries().find((entry) => entry.msg === 'sms delivered')).toMatchObject({ route: key, provider: providers[0] });
  });

  it.each(recipe.rows)('tries the providers of $recipient (route $key) in the documented order when each fails', async ({ recipient, providers }) => {
    const { app } = buildGateway(recipeEnv(recipe.routes, () => down.origin));
    const res = await request(app).post('/sms').send(deliveryBody({ recipient }));
    expect(res.status).toBe(500);
    const status = await request(app).get(`/messages/${res.headers[MESSAGE_ID_HEADER.toLowerCase()] as string}`);
    expect((status.body as { attempts: Array<{ provider: string; outcome: string }> }).attempts.map((attempt) => [attempt.provider, attempt.outcome])).toEqual(
      providers.map((provider) => [provider, 'failed']),
    );
  });

  it('delivers through Telnyx, the fallback, when Vonage is down for a European number', async () => {
    const baseUrls: Record<string, string> = { twilio: twilio.baseUrl, vonage: down.origin, telnyx: telnyx.baseUrl, bird: bird.baseUrl, 'aws-sms': aws.origin };
    const { app } = buildGateway(recipeEnv(recipe.routes, (kind) => baseUrls[kind]!));
    const before = received();
    const res = await request(app).post('/sms').send(deliveryBody({ recipient: '+4915123456789' }));
    expect(res.status).toBe(200);
    expect(received().telnyx).toBe(before.telnyx + 1);
    const status = await request(app).get(`/messages/${res.headers[MESSAGE_ID_HEADER.toLowerCase()] as string}`);
    expect(status.body).toMatchObject({ provider: 'telnyx', attempts: [{ provider: 'vonage', outcome: 'failed' }, { provider: 'telnyx', outcome: 'accepted' }] });
  });
});
