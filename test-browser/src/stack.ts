import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import { freePort, launchStack, ManagementClient, repoRoot, type LaunchedStack } from '@smsauth/stack';
import { launchChromium } from './chromium';

/** A whole stack on free ports with a data directory of its own, and how to remove both. */
export interface BrowserTestStack {
  stack: LaunchedStack;
  close(): Promise<void>;
}

/** Launches the built services (refusing clearly when they are not built) on free ports. */
export async function launchTestStack(dataDirPrefix: string): Promise<BrowserTestStack> {
  for (const name of ['identity', 'sms-delivery-gateway', 'airport-api']) {
    if (!existsSync(join(repoRoot, 'services', name, 'dist', 'main.js'))) {
      throw new Error(`services/${name} is not built: run \`pnpm build\` first (pnpm test does)`);
    }
  }
  const dataDir = mkdtempSync(join(tmpdir(), dataDirPrefix));
  try {
    const stack = await launchStack({
      ports: { identity: await freePort(), gateway: await freePort(), airport: await freePort() },
      dataDir,
      env: { LOG_LEVEL: 'warn' },
    });
    return {
      stack,
      async close() {
        await stack.stop();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}

/** What every browser suite starts with: the stack, a management client of its admin app, and Chromium. */
export interface BrowserSuite {
  stack: LaunchedStack;
  api: ManagementClient;
  browser: Browser;
}

/**
 * Declares the suite's setup and teardown: before all its tests, the screenshot directory, the
 * stack (data directory prefixed `dataDirPrefix`) and Chromium; after them, both closed. The
 * fields of the answer are set once the suite's first `beforeAll` has run.
 */
export function useBrowserSuite(dataDirPrefix: string, screenshotDir: string): BrowserSuite {
  const suite = {} as BrowserSuite;
  let launched: BrowserTestStack | undefined;
  beforeAll(async () => {
    mkdirSync(screenshotDir, { recursive: true });
    launched = await launchTestStack(dataDirPrefix);
    suite.stack = launched.stack;
    suite.api = new ManagementClient(suite.stack.urls.authUrl, suite.stack.adminClientId, suite.stack.adminClientSecret);
    suite.browser = await launchChromium();
  });
  afterAll(async () => {
    await suite.browser?.close();
    await launched?.close();
  });
  return suite;
}

/** A SPA client that returns to `callbackUrl`, enabled on the seeded connection (`options`, if any, sent along in the same update). */
export async function createAppOnConnection(
  { api, stack }: Pick<BrowserSuite, 'api' | 'stack'>,
  name: string,
  callbackUrl: string,
  options?: Record<string, unknown>,
): Promise<string> {
  const client = await api.createClient({ name, app_type: 'spa', callbacks: [callbackUrl] });
  const connection = (await api.listConnections()).find((c) => c.name === stack.tenant.connectionName)!;
  await api.updateConnection(connection.id, { enabled_clients: [...connection.enabled_clients, client.client_id], ...(options ? { options } : {}) });
  return client.client_id;
}

/** Reads the newest code sent to `phone` off the gateway's inbox page, in a tab of its own. */
export async function codeFromInboxPage(context: BrowserContext, gatewayUrl: string, phone: string, screenshotPath: string): Promise<string> {
  const inbox = await context.newPage();
  await inbox.goto(`${gatewayUrl}/outbox`);
  const code = (await inbox.locator('tbody tr', { hasText: phone }).first().locator('mark.code').first().textContent())?.trim();
  await inbox.screenshot({ path: screenshotPath, fullPage: true });
  await inbox.close();
  if (!code || !/^\d{6}$/.test(code)) throw new Error(`no code for ${phone} on the inbox page`);
  return code;
}
