import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { ensureOperator, requestJson, type LaunchedStack, type ManagementClient } from '@smsauth/stack';
import { codeFromInboxPage, type BrowserSuite } from './stack';

/** Where identity serves the console. */
export function consoleUrl(authUrl: string): string {
  return `${authUrl}/console/`;
}

export const VIEWPORTS = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 800 } } as const;

/** A user of the SMS connection holding the named built-in roles (none: a user without a role). */
export async function createOperator(api: ManagementClient, stack: LaunchedStack, phone: string, roles: string[]): Promise<string> {
  return (await ensureOperator(api, { connection: stack.tenant.connectionName, phoneNumber: phone, roles })).userId;
}

/** Every console error (CSP violations included) and uncaught error while the tab shows the console. */
export function recordConsoleProblems(page: Page, stack: LaunchedStack): string[] {
  const problems: string[] = [];
  const onConsole = () => page.url().startsWith(consoleUrl(stack.urls.authUrl));
  page.on('console', (message) => {
    if (message.type() === 'error' && onConsole()) problems.push(`${message.location().url}: ${message.text()}`);
  });
  page.on('pageerror', (err) => {
    if (onConsole()) problems.push(err.message);
  });
  return problems;
}

/**
 * The focused element's `id` or text once focus has settled on `expected` (or after 5 s, for
 * the assertion to report what it is). Dialogs and forms move focus in an effect after they are
 * drawn, so reading it the moment an element appears races with that effect.
 */
export async function settledFocus(page: Page, property: 'id' | 'textContent', expected: string): Promise<string | undefined> {
  const focused = `document.activeElement?.${property}`;
  await page.waitForFunction(`${focused} === ${JSON.stringify(expected)}`, undefined, { timeout: 5_000 }).catch(() => undefined);
  return page.evaluate<string | undefined>(focused);
}

/** Opens a screen by its link in the console's navigation and waits until it shows what it loads. */
export async function openScreen(page: Page, label: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: label, exact: true }).click();
  // Each screen's heading is its name in the navigation: the new screen is rendered.
  await page.getByRole('heading', { level: 1, name: label, exact: true }).waitFor();
  // Whatever the screen loads is on it (no "Loading …" left).
  await page.locator('.loading').first().waitFor({ state: 'detached' });
}

/**
 * Opens the console, signs in through the hosted login by SMS (the code read off the gateway's
 * inbox page), declines the passkey offer if the login page makes one, and waits until the
 * console shows either its navigation or why it cannot.
 */
export async function signInToConsole(context: BrowserContext, stack: LaunchedStack, phone: string, screenshotDir: string, page?: Page): Promise<Page> {
  page ??= await context.newPage();
  await page.goto(consoleUrl(stack.urls.authUrl));
  const signIn = page.getByRole('button', { name: 'Sign in', exact: true });
  await Promise.all([page.waitForURL((url) => url.href.startsWith(`${stack.urls.authUrl}/authorize`)), signIn.click()]);
  await page.getByLabel('Mobile phone number').fill(phone);
  await page.getByRole('button', { name: 'Send code' }).click();
  await page.getByLabel('Code', { exact: true }).waitFor();
  const code = await codeFromInboxPage(context, stack.urls.gatewayUrl, phone, `${screenshotDir}/inbox-${phone.replace('+', '')}.png`);
  await page.bringToFront();
  await page.getByLabel('Code', { exact: true }).fill(code);
  await page.getByRole('button', { name: 'Sign in' }).click();
  const landed = page.locator('nav[aria-label="Console"], main.gate h1, button:text-is("Not now")').first();
  await landed.waitFor();
  if (await page.getByRole('button', { name: 'Not now' }).isVisible()) {
    await page.getByRole('button', { name: 'Not now' }).click();
    await page.locator('nav[aria-label="Console"], main.gate h1').first().waitFor();
  }
  return page;
}

/** The stack's seeded SMS connection as the management API has it now. */
export async function seededConnection(suite: BrowserSuite) {
  return (await suite.api.listConnections()).find((c) => c.name === suite.stack.tenant.connectionName)!;
}

/** POST /passwordless/start as the demo (native) client on the seeded connection; the status identity answered. */
export async function startAsDemoClient(stack: LaunchedStack, phone: string): Promise<number> {
  const res = await requestJson(`${stack.urls.authUrl}/passwordless/start`, {
    method: 'POST',
    json: { client_id: stack.tenant.demoClientId, connection: stack.tenant.connectionName, phone_number: phone, send: 'code' },
  });
  return res.status;
}

/** A full-page screenshot of `page`, `name`.png in `dir`. */
export async function fullPageShot(page: Page, dir: string, name: string): Promise<void> {
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
}
