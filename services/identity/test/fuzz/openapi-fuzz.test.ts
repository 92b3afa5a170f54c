import { fuzzOpenApi, fuzzReport, fuzzSettings, propertyTimeout } from '@smsauth/test-support';
import { FlowHarness, type LoginSetup } from '../passwordless/flow-harness';

// Requests generated from identity's own published document (GET /openapi.json), answers
// checked against it: see test-support/openapi-fuzz. A fresh seed each run, printed;
// FUZZ_SEED=<seed> replays one, FUZZ_RUNS=<n> makes it longer (`pnpm test:soak` runs it often).

/** Requests per run: under a minute on a loaded 2-core machine. */
const RUNS = 400;

/**
 * Operations the fuzzer leaves out, each with why: they change the whole tenant, so a random
 * call would make every later answer a test of that change instead of the document.
 */
const SKIP: Record<string, string> = {
  'POST /api/v2/keys/signing/rotate': 'rotating the signing key invalidates nothing but churns keys on every hit; covered by signing-keys tests',
  'PUT /api/v2/keys/signing/{kid}/revoke': 'revoking the key that signed the admin token would turn every later call into a 401',
  'DELETE /api/v2/clients/{id}': 'deleting the admin or the login client would end the run early',
  'DELETE /api/v2/connections/{id}': 'deleting the login connection would end the run early',
  'DELETE /api/v2/resource-servers/{id}': 'deleting the fuzz API would end the run early',
};

describe('identity against its own OpenAPI document (fuzz)', () => {
  let harness: FlowHarness;
  let setup: LoginSetup;
  let document: Record<string, unknown>;

  beforeAll(async () => {
    // Callers are told apart by X-Forwarded-For, so per-IP limits do not turn every answer into a 429.
    harness = await FlowHarness.start({ TRUST_PROXY: 'true' });
    setup = await harness.loginSetup();
    document = (await harness.http().get('/openapi.json')).body;
  }, 60_000);

  afterAll(() => harness?.close());

  it('answers every generated request with a documented status, content type and body, never a 5xx', async () => {
    const { seed, runs } = fuzzSettings(RUNS);
    console.log(`identity fuzz: seed ${seed}, ${runs} requests (replay: FUZZ_SEED=${seed})`);
    const { findings, statuses } = await fuzzOpenApi({
      baseUrl: harness.url,
      document,
      seed,
      runs,
      skip: SKIP,
      credentials: { managementApi: { authorization: `Bearer ${harness.admin}` } },
      knownValues: {
        id: [setup.clientId, setup.connectionId],
        client_id: [setup.clientId],
        connection: [setup.connection],
      },
      headers: (run) => ({ 'x-forwarded-for': `198.19.${Math.floor(run / 250)}.${(run % 250) + 1}` }),
    });
    console.log(`identity fuzz: answers by status ${JSON.stringify(statuses)}`);
    if (findings.length) throw new Error(fuzzReport(findings, seed));
    // Most requests got past authentication and validation to an answer of the operation itself.
    expect((statuses['200'] ?? 0) + (statuses['201'] ?? 0) + (statuses['204'] ?? 0)).toBeGreaterThan(runs / 10);
  }, propertyTimeout(120_000));
});
