import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { LOGIN_LANGUAGES, RIGHT_TO_LEFT_LANGUAGES } from '@smsauth/contracts';
import { seriousAxeViolations } from '../src/accessibility';
import { CallbackServer } from '../src/callback-server';
import { describeWithChromium } from '../src/chromium';
import { layoutProblems } from '../src/page-checks';
import { createAppOnConnection, useBrowserSuite } from '../src/stack';

const SCREENSHOTS = join(__dirname, '..', 'test-results', 'login-languages');
const WIDTHS = [390, 1280] as const;
/** Kept as screenshots: English, right to left, long compounds, CJK, Thai. */
const SCREENSHOT_LANGUAGES = new Set(['en', 'ar', 'de', 'ja', 'th']);
/** axe on every state at both widths; every other language on its richest state (the phone page's error) at 390 px, for the budget. */
const AXE_LANGUAGES = new Set(['en', 'ar', 'de', 'ja', 'th', 'he']);

/**
 * The hosted pages in every bundled language at a phone's and a desktop's width: the right
 * `lang` and `dir`, no text wider than its box, no raw key; axe-core finds no serious
 * violation. One browser context for everything; each state is one cheap request.
 */
describeWithChromium('the hosted pages in every language', () => {
  const suite = useBrowserSuite('smsauth-languages-', SCREENSHOTS);
  let callback: CallbackServer;
  let clientId: string;
  let page: Page;

  beforeAll(async () => {
    callback = await CallbackServer.start();
    clientId = await createAppOnConnection(suite, 'Langue Anwendungsprogramm', callback.url());
    const context = await suite.browser.newContext({ viewport: { width: 390, height: 844 }, bypassCSP: true });
    page = await context.newPage();
  });

  afterAll(async () => {
    await page?.context().close();
    await callback?.close();
  });

  function authorizeUrl(language: string, overrides: Record<string, string> = {}): string {
    const query = new URLSearchParams({ client_id: clientId, redirect_uri: callback.url(), response_type: 'id_token', scope: 'openid', state: 's', nonce: 'n', ui_locales: language, ...overrides });
    return `${suite.stack.urls.authUrl}/authorize?${query.toString()}`;
  }

  /** Checks the page as it is at each width (no reload: the layout follows the viewport). */
  async function check(language: string, state: string): Promise<void> {
    expect(await page.getAttribute('html', 'lang')).toBe(language);
    expect(await page.getAttribute('html', 'dir')).toBe(RIGHT_TO_LEFT_LANGUAGES.includes(language as never) ? 'rtl' : 'ltr');
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
      expect({ language, state, width, problems: await layoutProblems(page) }).toEqual({ language, state, width, problems: [] });
      if (SCREENSHOT_LANGUAGES.has(language)) await page.screenshot({ path: join(SCREENSHOTS, `${language}-${state}-${width}.png`), fullPage: true });
      if (AXE_LANGUAGES.has(language) || (width === 390 && state === 'phone-error')) {
        expect({ language, state, width, violations: await seriousAxeViolations(page) }).toEqual({ language, state, width, violations: [] });
      }
    }
    await page.setViewportSize({ width: 390, height: 844 });
  }

  it.each([...LOGIN_LANGUAGES])('%s: phone page, its error, the error page and the signed-out page', async (language) => {
    await page.goto(authorizeUrl(language));
    await check(language, 'phone');
    await page.fill('#phone_number', '+999 123 4567');
    await page.locator('form[action="/authorize/phone"] button[type="submit"]').click();
    await page.locator('#phone-error').waitFor();
    await check(language, 'phone-error');
    await page.goto(authorizeUrl(language, { redirect_uri: 'https://unregistered.example.com/cb' }));
    await check(language, 'error-page');
    await page.goto(`${suite.stack.urls.authUrl}/oidc/logout?ui_locales=${encodeURIComponent(language)}`);
    await check(language, 'signed-out');
  });
});
