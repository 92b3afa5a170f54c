import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { seriousAxeViolations } from '../src/accessibility';
import { CallbackServer } from '../src/callback-server';
import { describeWithChromium } from '../src/chromium';
import { createAppOnConnection, useBrowserSuite } from '../src/stack';

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
  const suite = useBrowserSuite('smsauth-a11y-', SCREENSHOTS);
  let callback: CallbackServer;
  let clientId: string;

  beforeAll(async () => {
    callback = await CallbackServer.start();
    clientId = await createAppOnConnection(suite, 'Accessible App', callback.url());
  });

  afterAll(async () => {
    await callback?.close();
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
    return `${suite.stack.urls.authUrl}/authorize?${query.toString()}`;
  }

  /** Checks the page with axe and keeps its screenshot; names the violations when there are any. */
  async function expectAccessible(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
    const violations = await seriousAxeViolations(page);
    expect({ page: name, violations }).toEqual({ page: name, violations: [] });
  }

  describe.each(Object.entries(VIEWPORTS))('at %s width', (viewportName, viewport) => {
    async function openPage(): Promise<{ page: Page; close: () => Promise<void> }> {
      const context = await suite.browser.newContext({ viewport, bypassCSP: true });
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
      await page.goto(`${suite.stack.urls.gatewayUrl}/outbox`);
      await expectAccessible(page, `${viewportName}-inbox`);
      await close();
    });
  });
});
