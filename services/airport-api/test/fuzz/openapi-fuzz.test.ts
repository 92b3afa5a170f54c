import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, loadConfig } from '@smsauth/service-kit';
import { fuzzOpenApi, fuzzReport, fuzzSettings, propertyTimeout } from '@smsauth/test-support';
import request from 'supertest';
import { parse as parseYaml } from 'yaml';
import { buildApp } from '../../src/app';
import { configSchema } from '../../src/config';
import { FakeIdentity } from '../support/identity';

// Requests generated from the airport API's own published Swagger 2.0 document (GET
// /openapi.yaml, as ESP serves it), answers checked against it: see test-support/openapi-fuzz.
// A fresh seed each run, printed; FUZZ_SEED=<seed> replays one, FUZZ_RUNS=<n> makes it longer.

const RUNS = 300;
const NOW = Date.UTC(2031, 5, 1, 8, 0, 0);
const AUDIENCE = 'https://airports.example.org';

describe('the airport API against its own OpenAPI 2.0 document (fuzz)', () => {
  let identity: FakeIdentity;
  let server: Server;
  let baseUrl: string;
  let document: Record<string, unknown>;

  beforeAll(async () => {
    identity = await FakeIdentity.start();
    const config = loadConfig(configSchema, { AUTH_URL: identity.authUrl, API_AUDIENCE: AUDIENCE });
    const { app } = buildApp({ config, logger: createLogger({ name: 'fuzz', level: 'silent' }), clock: { now: () => new Date(NOW) } });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    document = parseYaml((await request(baseUrl).get('/openapi.yaml')).text);
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await identity.close();
  });

  it('answers every generated request with a documented status, content type and body, never a 5xx', async () => {
    const { seed, runs } = fuzzSettings(RUNS);
    console.log(`airport fuzz: seed ${seed}, ${runs} requests (replay: FUZZ_SEED=${seed})`);
    const { findings, statuses } = await fuzzOpenApi({
      baseUrl,
      document,
      seed,
      runs,
      credentials: { identity_jwt: { authorization: `Bearer ${identity.token(NOW, { aud: AUDIENCE })}` } },
      documentedRefusals: [
        { operation: 'GET /airportName', answer: /^IATA code not found/, reason: 'a well-formed code that names no known airport is a 400, as the document says' },
      ],
    });
    console.log(`airport fuzz: answers by status ${JSON.stringify(statuses)}`);
    if (findings.length) throw new Error(fuzzReport(findings, seed));
    expect(statuses['200'] ?? 0).toBeGreaterThan(0);
    expect(statuses['401'] ?? 0).toBeGreaterThan(0);
  }, propertyTimeout(60_000));
});
