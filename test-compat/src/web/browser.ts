import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { codeSentTo, since } from '../fixtures';
// The suites share test-browser's Chromium (Debian's, never downloaded) and its skip-without-it rule.
export { describeWithChromium } from '../../../test-browser/src/chromium';
import { launchChromium } from '../../../test-browser/src/chromium';

const RESULTS = join(__dirname, '..', '..', 'test-results');

export function launchBrowser(): Promise<Browser> {
  return launchChromium();
}

/**
 * A fresh browser profile (cookies, storage) that accepts the suite's self-signed certificates:
 * identity's TLS terminator and the relying-party apps are https, as the libraries and the
 * Secure session cookie want; a user's browser would trust a real certificate instead.
 */
export function newContext(browser: Browser): Promise<BrowserContext> {
  return browser.newContext({ ignoreHTTPSErrors: true });
}

/** Numbered screenshots of one test's steps, under test-results/<suite>/. */
export class Steps {
  private count = 0;
  private readonly dir: string;

  constructor(suite: string, test: string) {
    this.dir = join(RESULTS, suite);
    this.prefix = test;
    mkdirSync(this.dir, { recursive: true });
  }

  private readonly prefix: string;

  async shot(page: Page, name: string): Promise<void> {
    this.count += 1;
    const file = `${this.prefix}-${String(this.count).padStart(2, '0')}-${name}.png`;
    await page.screenshot({ path: join(this.dir, file), fullPage: true });
  }
}

/** True when the page shows identity's hosted login (its phone step). */
export function onHostedLogin(page: Page, issuer: string): boolean {
  return page.url().startsWith(`${issuer}authorize`) || page.url().startsWith(`${issuer}login`);
}

/**
 * What a user does on the hosted login: types the number, reads the code off the phone (the
 * gateway's outbox), types it and signs in. Resolves once the browser has left identity's pages,
 * i.e. on whichever page of the app the login answered to.
 */
export async function completeHostedLogin(page: Page, phone: string, steps: Steps, leavesFor: (url: URL) => boolean): Promise<void> {
  await page.getByLabel('Mobile phone number').fill(phone);
  await steps.shot(page, 'hosted-login-phone');
  const sentAfter = since();
  await page.getByRole('button', { name: 'Send code' }).click();
  await page.getByLabel('Code', { exact: true }).waitFor();
  const code = await codeSentTo(phone, sentAfter);
  await page.getByLabel('Code', { exact: true }).fill(code);
  await steps.shot(page, 'hosted-login-code');
  await Promise.all([page.waitForURL(leavesFor), page.getByRole('button', { name: 'Sign in' }).click()]);
}
