import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { freePort, launchStack, ManagementClient, type LaunchedStack } from '@smsauth/stack';
import { seriousAxeViolations } from '../src/accessibility';
import { CallbackServer } from '../src/callback-server';
import { describeWithChromium, launchChromium } from '../src/chromium';

const SCREENSHOTS = join(__dirname, '..', 'test-results', 'accessibility');
const VIEWPORTS = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 800 } } as const;

function uniquePhone(): string {
  return `+1415${2_000_000 + Math.floor(Math.random() * 8e6)}`;
}

/**
 * Every page a person meets on the hosted login and the gateway's inbox, in each state, at a
 * phone's and a desktop's width: axe-core finds no serious or critical violation, and each is
 * kept as a screenshot.
 */
describeWithChromium('the pages people see, checked with axe-core', () => {
  let stack: LaunchedStack;
  let dataDir: string;
  let callback: CallbackServer;
  let browser: Browser;
  let clientId: string;

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    dataDir = mkdtempSync(join(tmpdir(), 'smsauth-a11y-'));
    callback = await CallbackServer.start();
    stack = await launchStack({
      ports: { identity: await freePort(), gateway: await freePort(), airport: await freePort() },
      dataDir,
      env: { LOG_LEVEL: 'warn' },
    });
    const api = new ManagementClient(stack.urls.authUrl, stack.adminClientId, stack.adminClientSecret);
    const client = await api.createClient({ name: 'Accessible App', app_type: 'spa', callbacks: [callback.url()] });
    clientId = client.client_id;
    const connection = (await api.listConnections()).find((c) => c.name === stack.tenant.connectionName)!;
    await api.updateConnection(connection.id, { enabled_clients: [...connection.enabled_clients, clientId] });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await callback?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  function authorizeUrl(overrides: Record<string, string> = {}): string {
    const query = new URLSearchParams({
      client_id: clientId,
      redirect_uri: callback.url(),
      response_type: 'id_token',
      scope: 'openid',
      state: 'a11y-state',
      nonce: 'a11y-nonce',
      ...overrides,
    });
    return `${stack.urls.authUrl}/authorize?${query.toString()}`;
  }

  /** Checks the page with axe and keeps its screenshot; names the violations when there are any. */
  async function expectAccessible(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
    const violations = await seriousAxeViolations(page);
    expect({ page: name, violations }).toEqual({ page: name, violations: [] });
  }

  describe.each(Object.entries(VIEWPORTS))('at %s width', (viewportName, viewport) => {
    async function openPage(): Promise<{ page: Page; close: () => Promise<void> }> {
      const context = await browser.newContext({ viewport, bypassCSP: true });
      return { page: await context.newPage(), close: () => context.close() };
    }

    it('the phone page, empty and with an error', async () => {
      const { page, close } = await openPage();
      await page.goto(authorizeUrl());
      await expectAccessible(page, `${viewportName}-phone`);
      await page.getByLabel('Mobile phone number').fill('+999 123 4567');
      await page.getByRole('button', { name: 'Send code' }).click();
      await page.getByText('No country has the code').waitFor();
      await expectAccessible(page, `${viewportName}-phone-error`);
      await close();
    });

    it('the code page, as sent and after a wrong code', async () => {
      const { page, close } = await openPage();
      await page.goto(authorizeUrl());
      await page.getByLabel('Mobile phone number').fill(uniquePhone());
      await page.getByRole('button', { name: 'Send code' }).click();
      await page.getByLabel('Code', { exact: true }).waitFor();
      await expectAccessible(page, `${viewportName}-code`);
      await page.getByLabel('Code', { exact: true }).fill('000000');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByText('That code is not right').waitFor();
      await expectAccessible(page, `${viewportName}-code-wrong`);
      await close();
    });

    it('the error page of a request that cannot go back to the application', async () => {
      const { page, close } = await openPage();
      await page.goto(authorizeUrl({ redirect_uri: 'https://unregistered.example.com/cb' }));
      await expectAccessible(page, `${viewportName}-error-page`);
      await close();
    });

    it("the gateway's inbox page", async () => {
      const { page, close } = await openPage();
      await page.goto(`${stack.urls.gatewayUrl}/outbox`);
      await expectAccessible(page, `${viewportName}-inbox`);
      await close();
    });
  });
});
