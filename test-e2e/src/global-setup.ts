import { existsSync, mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, GATEWAY_AUTH_SUBJECT, launchStack, type LaunchedStack, repoRoot, type ServiceName, StackUseGate } from '@smsauth/stack';

declare global {
  var __SMSAUTH_E2E__: { stack: LaunchedStack; control: Server } | undefined;
}

/**
 * With AUTH_URL set, the suite tests that deployment as it is. Otherwise it launches the
 * built services on free ports (identity on PGlite in a temp dir, so a restart keeps its
 * data), and exposes a loopback control endpoint the restart test uses.
 */
export default async function globalSetup(): Promise<void> {
  if (process.env.AUTH_URL) return;
  for (const name of ['identity', 'sms-delivery-gateway', 'airport-api']) {
    if (!existsSync(join(repoRoot, 'services', name, 'dist', 'main.js'))) {
      throw new Error(`services/${name} is not built: run \`pnpm build\` first (pnpm test does)`);
    }
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'smsauth-e2e-'));
  const stack = await launchStack({
    ports: { identity: await freePort(), gateway: await freePort(), airport: await freePort() },
    dataDir,
    env: { LOG_LEVEL: 'warn' },
    withFailingGateway: true,
    withRoutedGateway: true,
  });

  const gate = new StackUseGate();
  const control = createServer((req, res) => {
    const answer = (work: Promise<unknown>) =>
      work.then(
        () => res.writeHead(204).end(),
        (err: Error) => res.writeHead(500).end(err.message),
      );
    if (req.method === 'POST' && req.url === '/suites/enter') return answer(gate.enter());
    if (req.method === 'POST' && req.url === '/suites/leave') return answer(Promise.resolve(gate.leave()));
    const match = /^\/restart\/([\w-]+)$/.exec(req.url ?? '');
    if (req.method !== 'POST' || !match) {
      res.writeHead(404).end();
      return;
    }
    return answer(gate.alone(() => stack.restart(match[1] as ServiceName)));
  });
  await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));
  const address = control.address();
  const controlPort = typeof address === 'object' && address ? address.port : 0;
  globalThis.__SMSAUTH_E2E__ = { stack, control };

  Object.assign(process.env, {
    AUTH_URL: stack.urls.authUrl,
    GATEWAY_URL: stack.urls.gatewayUrl,
    BASE_URL: stack.urls.baseUrl,
    GATEWAY_DELIVERY_URL: stack.urls.gatewayDeliveryUrl,
    FAILING_GATEWAY_DELIVERY_URL: stack.urls.failingGatewayDeliveryUrl,
    ROUTED_GATEWAY_URL: stack.urls.routedGatewayUrl,
    ADMIN_CLIENT_ID: stack.adminClientId,
    ADMIN_CLIENT_SECRET: stack.adminClientSecret,
    API_AUDIENCE: stack.apiAudience,
    GATEWAY_AUTH_SECRET: stack.gatewayAuthSecret,
    GATEWAY_AUTH_AUDIENCE: stack.urls.gatewayDeliveryUrl,
    GATEWAY_AUTH_SUBJECT,
    E2E_CONTROL_URL: `http://127.0.0.1:${controlPort}`,
    // Suites that start stacks of their own (the README recipes) run only beside this one.
    E2E_LAUNCHED_STACK: '1',
  });
}
