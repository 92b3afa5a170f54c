import { checkRecordedResponses, recordIdentityResponses } from '../src/openapi-recorder';
import { targetsFromEnv } from '../src/targets';

// Launching the stack (and a browser) takes seconds on a loaded 2-core machine. testTimeout in a
// project's config is ignored in a multi-project run (it is a global option), so set it here.
jest.setTimeout(60_000);

// Every response a test file gets from identity must be one its OpenAPI document describes
// (status and body): checked once the file's tests are done; a violation fails the file.
const { authUrl, controlUrl } = targetsFromEnv();
const stopRecording = recordIdentityResponses(authUrl);

// A launched stack is shared with the suites in jest's other workers: this file is "inside" it
// from its first hook to its last, so a restart (stack.test.ts) waits until it is alone.
const gate = (step: 'enter' | 'leave') => async () => {
  if (!controlUrl) return;
  const res = await fetch(`${controlUrl}/suites/${step}`, { method: 'POST' });
  if (res.status !== 204) throw new Error(`the e2e control server answered ${res.status} to ${step}: ${await res.text()}`);
};
beforeAll(gate('enter'));

afterAll(async () => {
  try {
    stopRecording();
    const { checked, problems } = await checkRecordedResponses(authUrl);
    if (problems.length > 0) {
      throw new Error(`${problems.length} of ${checked} identity responses do not match GET /openapi.json:\n${problems.join('\n')}`);
    }
    console.info(`identity responses checked against GET /openapi.json: ${checked}`);
  } finally {
    await gate('leave')();
  }
});
