import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fuzzOpenApi, fuzzReport, fuzzSettings, propertyTimeout } from '@smsauth/test-support';
import request from 'supertest';
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
  const token = signHs256();

  beforeAll(async () => {
    // Every optional operation on: authentication, the receipt route and the outbox.
    const { app } = buildGateway({ GATEWAY_AUTH_SECRET: SECRET, GATEWAY_PUBLIC_URL: 'https://gw.example.com', OUTBOX_TOKEN: 'outbox-token-for-the-fuzz-suite' });
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
      knownValues: { id: [messageId], provider: ['outbox', 'twilio', 'webhook', 'vonage', 'telnyx', 'plivo', 'sinch', 'infobip'] },
    });
    console.log(`gateway fuzz: answers by status ${JSON.stringify(statuses)}`);
    if (findings.length) throw new Error(fuzzReport(findings, seed));
    expect((statuses['200'] ?? 0) + (statuses['204'] ?? 0)).toBeGreaterThan(runs / 10);
  }, propertyTimeout(120_000));
});
