import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { consoleUrl, ManagementClient, readCodeFromOutbox, requestJson, type LaunchedStack } from '@smsauth/stack';
import { seriousAxeViolations } from '../src/accessibility';
import { describeWithChromium, launchChromium } from '../src/chromium';
import { createOperator, recordConsoleProblems, signInToConsole, VIEWPORTS } from '../src/console';
import { launchTestStack, type BrowserTestStack } from '../src/stack';

const SCREENSHOTS = join(__dirname, '..', 'test-results', 'console');
/** The demo client's OTP grant (the pump and the real GB user sign in with it, outside the browser). */
const OTP_GRANT = 'http://auth0.com/oauth/grant-type/passwordless/otp';
/** UK mobiles of one prefix (+447400 with the connection's 4 prefix digits): the pumped range. */
const GB_MOBILE = (n: number) => `+447400${String(n).padStart(6, '0')}`;
const PUMPED_PREFIX = '+447400';

describeWithChromium('the operator console in a real browser', () => {
  let launched: BrowserTestStack;
  let stack: LaunchedStack;
  let browser: Browser;
  let api: ManagementClient;

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    launched = await launchTestStack('smsauth-console-');
    stack = launched.stack;
    api = new ManagementClient(stack.urls.authUrl, stack.adminClientId, stack.adminClientSecret);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await launched?.close();
  });

  async function connection() {
    return (await api.listConnections()).find((c) => c.name === stack.tenant.connectionName)!;
  }

  /** POST /passwordless/start as the demo (native) client; the status identity answered. */
  async function start(phone: string): Promise<number> {
    const res = await requestJson(`${stack.urls.authUrl}/passwordless/start`, {
      method: 'POST',
      json: { client_id: stack.tenant.demoClientId, connection: stack.tenant.connectionName, phone_number: phone, send: 'code' },
    });
    return res.status;
  }

  /** A whole SMS login outside the browser: start, the code from the outbox, the OTP grant. */
  async function verify(phone: string): Promise<void> {
    const sent = new Date();
    expect(await start(phone)).toBe(200);
    const otp = await readCodeFromOutbox(stack.urls.gatewayUrl, phone, { notBefore: sent });
    const res = await requestJson(`${stack.urls.authUrl}/oauth/token`, {
      method: 'POST',
      json: { grant_type: OTP_GRANT, client_id: stack.tenant.demoClientId, realm: stack.tenant.connectionName, username: phone, otp, scope: 'openid' },
    });
    expect(res.status).toBe(200);
  }

  async function shot(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  }

  async function openScreen(page: Page, label: string): Promise<void> {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: label, exact: true }).click();
    await page.getByRole('heading', { level: 1 }).first().waitFor();
    // Whatever the screen loads is on it (no "Loading …" left).
    await page.locator('.loading').first().waitFor({ state: 'detached' });
  }

  it('serves the console at /console/ under its strict CSP: signed out, it offers the hosted login, with no console error', async () => {
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    const page = await context.newPage();
    const problems = recordConsoleProblems(page, stack);
    const opened = await page.goto(consoleUrl(stack.urls.authUrl));
    expect(opened?.status()).toBe(200);
    const csp = opened!.headers()['content-security-policy']!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    // The silent check (prompt=none in an iframe) finds no login session: the sign-in button.
    await page.locator('main.gate h1').waitFor();
    await shot(page, '00-signed-out');
    expect(await page.locator('main.gate').textContent()).toContain('Operators sign in with their phone');
    await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });
});
