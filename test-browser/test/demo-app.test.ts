import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { DEMO_APP_CLIENT_NAME, demoAppCallbackUrl, demoAppClientSettings, freePort, GATEWAY_AUTH_SUBJECT, seedDemoTenant, startDemoApp } from '@smsauth/stack';
import { describeWithChromium } from '../src/chromium';
import { codeFromInboxPage, useBrowserSuite } from '../src/stack';

const SCREENSHOTS = join(__dirname, '..', 'test-results', 'demo-app');
/** A valid US number (the hosted login keeps numbers in canonical E.164). */
const PHONE = '+14155552671';

describeWithChromium('the demo web app of `pnpm start` in a real browser', () => {
  const suite = useBrowserSuite('smsauth-demo-app-', SCREENSHOTS);

  /** Every console error (CSP violations included) and uncaught error while the tab shows the demo app. */
  function recordProblems(page: Page): string[] {
    const problems: string[] = [];
    const onDemoApp = () => page.url().startsWith(suite.stack.urls.demoAppUrl);
    page.on('console', (message) => {
      if (message.type() === 'error' && onDemoApp()) problems.push(`${message.location().url}: ${message.text()}`);
    });
    page.on('pageerror', (err) => {
      if (onDemoApp()) problems.push(err.message);
    });
    return problems;
  }

  /** How many SMS the gateway received for `phone` (its dev outbox). */
  async function messagesSentTo(phone: string): Promise<number> {
    const res = await fetch(`${suite.stack.urls.gatewayUrl}/outbox/messages?recipient=${encodeURIComponent(phone)}`);
    return ((await res.json()) as unknown[]).length;
  }

  /** A second demo web app: a SPA client of its own, on a port of its own, like the first. */
  async function startSecondDemoApp() {
    const port = await freePort();
    const appUrl = `http://localhost:${port}`;
    const client = await suite.api.createClient({ name: `${DEMO_APP_CLIENT_NAME} 2`, ...demoAppClientSettings(appUrl) });
    const connection = (await suite.api.listConnections()).find((c) => c.name === suite.stack.tenant.connectionName)!;
    await suite.api.updateConnection(connection.id, { enabled_clients: [...connection.enabled_clients, client.client_id] });
    const app = await startDemoApp({
      port,
      appUrl,
      callbackUrl: demoAppCallbackUrl(appUrl),
      authUrl: suite.stack.urls.authUrl,
      apiUrl: suite.stack.urls.baseUrl,
      clientId: client.client_id,
      audience: suite.stack.apiAudience,
      connection: suite.stack.tenant.connectionName,
    });
    return { app, clientId: client.client_id };
  }

  it('signs in with auth0-spa-js (code + PKCE) through the hosted login, shows the ID token claims and the airport name; a second demo app opened afterwards is signed in without an SMS; signing out goes through /v2/logout', async () => {
    const context = await suite.browser.newContext();
    const page = await context.newPage();
    const problems = recordProblems(page);

    const opened = await page.goto(suite.stack.urls.demoAppUrl);
    expect(opened?.status()).toBe(200);
    expect(opened?.headers()['content-security-policy']).toContain("default-src 'none'");
    expect(opened?.headers()['content-security-policy']).toContain("script-src 'self'");
    // No login session yet: the silent check ends on the sign-in button.
    const signInButton = page.getByRole('button', { name: 'Sign in with your phone' });
    await signInButton.waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, '01-demo-app.png'), fullPage: true });

    await Promise.all([page.waitForURL((url) => url.href.startsWith(`${suite.stack.urls.authUrl}/authorize`)), signInButton.click()]);
    const authorize = new URL(page.url()).searchParams;
    expect(Object.fromEntries(authorize)).toMatchObject({
      client_id: suite.stack.tenant.demoAppClientId,
      redirect_uri: demoAppCallbackUrl(suite.stack.urls.demoAppUrl),
      response_type: 'code',
      response_mode: 'query',
      code_challenge_method: 'S256',
      audience: suite.stack.apiAudience,
    });

    // By label, so that other fields the page may gain (a country picker) do not matter.
    await page.getByLabel('Mobile phone number').fill(PHONE);
    await page.getByRole('button', { name: 'Send code' }).click();
    await page.getByLabel('Code', { exact: true }).waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, '02-code-step.png'), fullPage: true });

    const code = await codeFromInboxPage(context, suite.stack.urls.gatewayUrl, PHONE, join(SCREENSHOTS, '03-inbox.png'));
    await page.bringToFront();
    await page.getByLabel('Code', { exact: true }).fill(code);
    await Promise.all([
      page.waitForURL((url) => url.href.startsWith(demoAppCallbackUrl(suite.stack.urls.demoAppUrl))),
      page.getByRole('button', { name: 'Sign in' }).click(),
    ]);

    // The airport's name, or the error the page shows instead (so a failure says what went wrong).
    const airportName = page.locator('#airport-name');
    await page.locator('#airport-name:text-is("San Francisco International Airport"), #error:visible').first().waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, '04-signed-in.png'), fullPage: true });
    expect(await page.locator('#error').textContent()).toBe('');

    const [user] = await suite.api.listUsers(PHONE);
    expect(user?.phone_number).toBe(PHONE);
    expect(await page.locator('[data-claim="sub"]').textContent()).toBe(user!.user_id);
    expect(await page.locator('[data-claim="phone_number"]').textContent()).toBe(PHONE);
    expect(await page.locator('[data-claim="aud"]').textContent()).toBe(suite.stack.tenant.demoAppClientId);
    expect(await airportName.textContent()).toBe('San Francisco International Airport');
    // The code does not stay in the address bar.
    expect(page.url()).toBe(demoAppCallbackUrl(suite.stack.urls.demoAppUrl));
    expect(problems).toEqual([]);

    // On a phone (390 px) each claim is its name above its full-width value: nothing scrolls sideways.
    const desktop = page.viewportSize()!;
    for (const [width, height] of [[390, 844], [desktop.width, desktop.height]] as const) {
      await page.setViewportSize({ width, height });
      await page.screenshot({ path: join(SCREENSHOTS, `04-signed-in-${width}.png`), fullPage: true });
      // A string, evaluated in the page (this package's TypeScript has no DOM types).
      const layout = await page.evaluate<{ overflow: number; valueWidth: number }>(`({
        overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
        valueWidth: document.querySelector('[data-claim="iss"]').getBoundingClientRect().width,
      })`);
      expect(layout.overflow).toBe(0);
      // Stacked on a phone: the value has the column's whole width (side by side with its name it had about 60 %).
      if (width === 390) expect(layout.valueWidth).toBeGreaterThan(width * 0.85);
    }

    // A second demo app (another client, another origin) opened afterwards: signed in at once.
    const second = await startSecondDemoApp();
    try {
      const secondPage = await context.newPage();
      await secondPage.goto(second.app.url);
      await secondPage.locator('#airport-name:text-is("San Francisco International Airport"), #error:visible, #signed-out:visible').first().waitFor();
      await secondPage.screenshot({ path: join(SCREENSHOTS, '05-second-demo-app.png'), fullPage: true });
      expect(await secondPage.locator('#error').textContent()).toBe('');
      expect(await secondPage.locator('[data-claim="sub"]').textContent()).toBe(user!.user_id);
      expect(await secondPage.locator('[data-claim="aud"]').textContent()).toBe(second.clientId);
      expect(await messagesSentTo(PHONE)).toBe(1);
      await secondPage.close();
    } finally {
      await second.app.close();
    }

    // Signing out goes through identity's /v2/logout (an allowed logout URL) back to the page,
    // which then finds no login session.
    await page.bringToFront();
    await Promise.all([
      page.waitForURL(`${suite.stack.urls.demoAppUrl}/`),
      page.getByRole('button', { name: 'Sign out' }).click(),
    ]);
    await signInButton.waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, '06-signed-out.png'), fullPage: true });
    expect(await page.locator('#signed-in').isVisible()).toBe(false);
    await context.close();
  });

  it('comes back from a cancelled sign-in signed out with a neutral notice, not a failure', async () => {
    const context = await suite.browser.newContext();
    const page = await context.newPage();
    const problems = recordProblems(page);
    await page.goto(suite.stack.urls.demoAppUrl);
    const signInButton = page.getByRole('button', { name: 'Sign in with your phone' });
    await Promise.all([page.waitForURL((url) => url.href.startsWith(`${suite.stack.urls.authUrl}/authorize`)), signInButton.click()]);
    await Promise.all([
      page.waitForURL((url) => url.href.startsWith(suite.stack.urls.demoAppUrl)),
      page.getByRole('button', { name: /^Cancel and return to / }).click(),
    ]);
    await signInButton.waitFor();
    const notice = page.getByRole('status').filter({ hasText: 'Sign-in cancelled' });
    await notice.waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, '07-cancelled.png'), fullPage: true });
    expect(await notice.textContent()).toBe('Sign-in cancelled. You are not signed in; sign in again whenever you like.');
    expect(await page.locator('#error').isVisible()).toBe(false);
    expect(page.url()).toBe(demoAppCallbackUrl(suite.stack.urls.demoAppUrl));
    expect(problems).toEqual([]);
    await context.close();
  });

  it('refuses a code on the callback that no sign-in on the page started, and shows no claims', async () => {
    const context = await suite.browser.newContext();
    const page = await context.newPage();
    await page.goto(`${demoAppCallbackUrl(suite.stack.urls.demoAppUrl)}?code=forged&state=not-ours`);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    // auth0-spa-js's words: the page holds no transaction for this state.
    expect(await alert.textContent()).toBe('Sign-in failed: Invalid state');
    expect(page.url()).toBe(demoAppCallbackUrl(suite.stack.urls.demoAppUrl));
    expect(await page.locator('#signed-in').isVisible()).toBe(false);
    await context.close();
  });

  it('seeds one demo web app client: seeding again finds it, and a new demo app URL updates it instead of adding another', async () => {
    const seedWith = (demoAppUrl: string) =>
      seedDemoTenant({
        authUrl: suite.stack.urls.authUrl,
        adminClientId: suite.stack.adminClientId,
        adminClientSecret: suite.stack.adminClientSecret,
        gatewayDeliveryUrl: suite.stack.urls.gatewayDeliveryUrl,
        gatewayAuthSecret: suite.stack.gatewayAuthSecret,
        gatewayAuthAudience: suite.stack.urls.gatewayDeliveryUrl,
        gatewayAuthSubject: GATEWAY_AUTH_SUBJECT,
        apiAudience: suite.stack.apiAudience,
        m2mClientId: suite.stack.tenant.m2mClientId,
        m2mClientSecret: suite.stack.tenant.m2mClientSecret,
        demoAppUrl,
      });
    const demoApps = async () => (await suite.api.listClients()).filter((c) => c.name === DEMO_APP_CLIENT_NAME);

    expect((await seedWith(suite.stack.urls.demoAppUrl)).demoAppClientId).toBe(suite.stack.tenant.demoAppClientId);
    expect(await demoApps()).toEqual([
      expect.objectContaining({
        client_id: suite.stack.tenant.demoAppClientId,
        app_type: 'spa',
        token_endpoint_auth_method: 'none',
        grant_types: demoAppClientSettings(suite.stack.urls.demoAppUrl).grant_types,
        callbacks: [demoAppCallbackUrl(suite.stack.urls.demoAppUrl)],
        allowed_origins: [suite.stack.urls.demoAppUrl],
        web_origins: [suite.stack.urls.demoAppUrl],
        allowed_logout_urls: [`${suite.stack.urls.demoAppUrl}/`],
      }),
    ]);
    const connection = (await suite.api.listConnections()).find((c) => c.name === suite.stack.tenant.connectionName)!;
    expect(connection.enabled_clients.filter((id) => id === suite.stack.tenant.demoAppClientId)).toHaveLength(1);

    const moved = 'http://localhost:1';
    try {
      expect((await seedWith(moved)).demoAppClientId).toBe(suite.stack.tenant.demoAppClientId);
      expect(await demoApps()).toEqual([expect.objectContaining({ client_id: suite.stack.tenant.demoAppClientId, callbacks: [demoAppCallbackUrl(moved)] })]);
    } finally {
      await seedWith(suite.stack.urls.demoAppUrl);
    }
  });
});
