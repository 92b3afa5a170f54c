import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../src/ports';
import { launchStack, type LaunchedStack } from '../src/launcher';
import { repoRoot } from '../src/processes';

jest.setTimeout(240_000);

/** Runs the built `pnpm demo` script against the stack; resolves with its exit code and output. */
function runDemo(stack: LaunchedStack): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(repoRoot, 'packages', 'stack', 'dist', 'demo.js')], {
      env: {
        PATH: process.env.PATH,
        AUTH_URL: stack.urls.authUrl,
        GATEWAY_URL: stack.urls.gatewayUrl,
        BASE_URL: stack.urls.baseUrl,
        API_AUDIENCE: stack.apiAudience,
        DEMO_CLIENT_ID: stack.tenant.demoClientId,
      },
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('exit', (code) => resolve({ code, output }));
  });
}

describe('pnpm demo', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'smsauth-demo-runs-'));
  let stack: LaunchedStack;

  beforeAll(async () => {
    const ports = { identity: await freePort(), gateway: await freePort(), airport: await freePort() };
    stack = await launchStack({ ports, dataDir, env: {} });
  });

  afterAll(async () => {
    await stack?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('passes twenty runs in a row against one stack, never locked out by the start limits', async () => {
    const numbers = new Set<string>();
    for (let run = 1; run <= 20; run += 1) {
      const { code, output } = await runDemo(stack);
      if (code !== 0) throw new Error(`run ${run} failed (exit ${code}):\n${output}`);
      expect(output).toMatch(/All \d+ steps passed: \+\d+ signed in with SMS codes/);
      expect(output).not.toContain('spec');
      numbers.add(/a login code by SMS to (\+\d+)/.exec(output)?.[1] ?? '');
    }
    // A fresh number per run is what keeps the per-number limit (10 an hour) out of the way.
    expect(numbers.size).toBeGreaterThan(15);
  });
});
