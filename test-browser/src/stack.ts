import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { freePort, launchStack, repoRoot, type LaunchedStack } from '@smsauth/stack';

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
