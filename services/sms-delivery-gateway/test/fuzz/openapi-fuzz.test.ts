import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fuzzOpenApi, fuzzReport, fuzzSettings, propertyTimeout } from '@smsauth/test-support';
import request from 'supertest';
import { AWS_ACCESS_KEY_ID, AWS_REGION, AWS_SECRET_ACCESS_KEY, startFakeAws, type FakeAws } from '../support/fake-aws';
import { BIRD_ACCESS_KEY, BIRD_CHANNEL_ID, BIRD_SIGNING_KEY, BIRD_WORKSPACE_ID, startFakeBird, type FakeBird } from '../support/fake-bird';
import { buildGateway, deliveryBody } from '../support/gateway';
import { SECRET, signHs256 } from '../support/tokens';

// Requests generated from the gateway's own published document (GET /openapi.json), answers
// checked against it: see test-support/openapi-fuzz. A fresh seed each run, printed;
// FUZZ_SEED=<seed> replays one, FUZZ_RUNS=<n> makes it longer.

/** Requests per run: a few seconds in-process. */
const RUNS = 400;

describe('the SMS delivery gateway against its own OpenAPI document (fuzz)', () => {
  let server: Server;
  let baseUrl: string;
  let document: Record<string, unknown>;
  let messageId: string;
  let aws: FakeAws;
  let bird: FakeBird;
  const token = signHs256();

  beforeAll(async () => {
    // Every optional operation on: authentication, the receipt routes and the outbox; an AWS and
    // a Bird instance take events at /receipts/{provider}. They are routed for `+888` SMS, which a
    // generated recipient may start with: they send to local imitations (nothing leaves the
    // machine), and voice and WhatsApp, which they do not carry here, go to the outbox.
    aws = await startFakeAws();
    bird = await startFakeBird();
    const eventProviders = {
      'aws-events': {
        provider: 'aws-sms',
        AWS_SMS_REGION: AWS_REGION,
        AWS_SMS_ACCESS_KEY_ID: AWS_ACCESS_KEY_ID,
        AWS_SMS_SECRET_ACCESS_KEY: AWS_SECRET_ACCESS_KEY,
        AWS_SMS_ENDPOINT: aws.origin,
        AWS_SMS_CONFIGURATION_SET: 'otp-events',
        AWS_SMS_SNS_TOPIC_ARN: 'arn:aws:sns:eu-west-1:123456789012:sms-events',
      },
      'bird-events': { provider: 'bird', BIRD_ACCESS_KEY, BIRD_WORKSPACE_ID, BIRD_CHANNEL_ID, BIRD_SIGNING_KEY, BIRD_API_BASE_URL: bird.baseUrl },
    };
    const { app } = buildGateway({
      GATEWAY_AUTH_SECRET: SECRET,
      GATEWAY_PUBLIC_URL: 'https://gw.example.com',
      OUTBOX_TOKEN: 'outbox-token-for-the-fuzz-suite',
      SMS_PROVIDER_INSTANCES: JSON.stringify(eventProviders),
      SMS_ROUTES: JSON.stringify({ '+888': ['aws-events', 'bird-events'], 'voice:default': ['outbox'], 'whatsapp:default': ['outbox'] }),
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    document = (await request(baseUrl).get('/openapi.json')).body;
    const sent = await request(baseUrl).post('/sms').set('authorization', `Bearer ${token}`).send(deliveryBody());
    if (sent.status !== 200) throw new Error(`delivery: ${sent.status} ${sent.text}`);
    messageId = String(sent.headers['sms-message-id']);
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await aws.close();
    await bird.close();
  });

  it('answers every generated request with a documented status, content type and body, never a 5xx', async () => {
    const { seed, runs } = fuzzSettings(RUNS);
    console.log(`gateway fuzz: seed ${seed}, ${runs} requests (replay: FUZZ_SEED=${seed})`);
    const { findings, statuses } = await fuzzOpenApi({
      baseUrl,
      document,
      seed,
      runs,
      credentials: {
        deliveryToken: { authorization: `Bearer ${token}` },
        outboxToken: { authorization: 'Bearer outbox-token-for-the-fuzz-suite' },
      },
      knownValues: { id: [messageId], provider: ['outbox', 'twilio', 'webhook', 'vonage', 'telnyx', 'plivo', 'sinch', 'infobip', 'aws-events', 'bird-events'] },
    });
    console.log(`gateway fuzz: answers by status ${JSON.stringify(statuses)}`);
    if (findings.length) throw new Error(fuzzReport(findings, seed));
    expect((statuses['200'] ?? 0) + (statuses['204'] ?? 0)).toBeGreaterThan(runs / 10);
  }, propertyTimeout(120_000));
});
