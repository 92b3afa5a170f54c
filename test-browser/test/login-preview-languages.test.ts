import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { LOGIN_LANGUAGES, LOGIN_PREVIEW_SCREENS, RIGHT_TO_LEFT_LANGUAGES, type LoginLanguage, type LoginPreviewScreen } from '@smsauth/contracts';
import { seriousAxeViolations } from '../src/accessibility';
import { CallbackServer } from '../src/callback-server';
import { describeWithChromium } from '../src/chromium';
import { layoutProblems } from '../src/page-checks';
import { createAppOnConnection, useBrowserSuite } from '../src/stack';

/** Next to the screenshots of login-languages.test.ts. */
const SCREENSHOTS = join(__dirname, '..', 'test-results', 'login-languages');
const WIDTHS = [390, 1280] as const;
type Width = (typeof WIDTHS)[number];
const HEIGHT: Record<Width, number> = { 390: 844, 1280: 800 };
/** Kept as screenshots: English, right to left, long compounds, CJK. */
const SCREENSHOT_LANGUAGES = new Set<string>(['en', 'ar', 'de', 'ja']);
/**
 * axe on every state: English, the right-to-left scripts but Urdu, long compounds, CJK, Thai
 * and Devanagari; every other language on its richest state (the phone page refusing a number,
 * with the country list and the language switcher). axe runs at 390 px: colours and names do
 * not change with the width; the width's problems are the layout check's.
 */
const AXE_LANGUAGES = new Set<string>(['en', 'ar', 'he', 'fa', 'de', 'ja', 'th', 'hi']);
const AXE_STATE_OF_THE_REST: LoginPreviewScreen = 'phone-error';
/** A light primary colour (white text on it, or links in it, would fail AA) on a dark page, and a logo. */
const BRAND = { colors: { primary: '#ffd700', page_background: '#0b1f3a' }, logo_url: 'https://brand.example.com/logo.svg' };
const LOGO_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="160" height="48"><rect width="160" height="48" rx="8" fill="#ffffff"/><circle cx="24" cy="24" r="14" fill="#ffd700"/></svg>';
/** Preview requests in flight at once while the browser checks the pages already fetched. */
const FETCHES_IN_FLIGHT = 4;

/**
 * Every state of the hosted login (those POST /api/v2/branding/preview draws with the pages' own
 * views) in every bundled language at a phone's and a desktop's width: the right `lang` and
 * `dir`, no text wider than its box, no raw message key, and axe-core finds no serious
 * violation. The preview's HTML is fetched in Node and written into a page of identity's origin,
 * so its `/authorize/login.css` loads from identity as on the real page. One page per width,
 * reused for every state; each problem names its language, state and width.
 */
describeWithChromium('every state of the hosted login in every language (through the preview)', () => {
  const suite = useBrowserSuite('smsauth-preview-languages-', SCREENSHOTS);
  const pageAt = {} as Record<Width, Page>;
  let callback: CallbackServer;

  beforeAll(async () => {
    callback = await CallbackServer.start();
    const context = await suite.browser.newContext({ bypassCSP: true });
    await context.route(BRAND.logo_url, (route) => route.fulfill({ status: 200, contentType: 'image/svg+xml', body: LOGO_SVG }));
    // An empty document of identity's origin: each state is then written into it (page.setContent),
    // its relative URLs resolving against identity, with no navigation per state.
    const blank = `${suite.stack.urls.authUrl}/preview-under-test`;
    await context.route(blank, (route) => route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: '<!doctype html><title>preview</title>' }));
    for (const width of WIDTHS) {
      pageAt[width] = await context.newPage();
      await pageAt[width].setViewportSize({ width, height: HEIGHT[width] });
      await pageAt[width].goto(blank);
    }
  });

  afterAll(async () => {
    await pageAt[390]?.context().close();
    await callback?.close();
  });

  /** The page's problems at its width, each prefixed with where it was seen; `screenshot`: kept under that name. */
  async function problemsOf(width: Width, language: LoginLanguage, state: string, axe: boolean, screenshot?: string): Promise<string[]> {
    const page = pageAt[width];
    const where = `${language} ${state} ${width}px`;
    const problems: string[] = [];
    const [lang, dir] = await page.evaluate(() => {
      const html = (globalThis as unknown as { document: { documentElement: { lang: string; dir: string } } }).document.documentElement;
      return [html.lang, html.dir];
    });
    const expectedDir = RIGHT_TO_LEFT_LANGUAGES.includes(language) ? 'rtl' : 'ltr';
    if (lang !== language || dir !== expectedDir) problems.push(`${where}: lang="${lang}" dir="${dir}", not lang="${language}" dir="${expectedDir}"`);
    problems.push(...(await layoutProblems(page)).map((problem) => `${where}: ${problem}`));
    if (axe) problems.push(...(await seriousAxeViolations(page)).map((v) => `${where}: axe ${v.id} (${v.impact}) ${v.help}: ${v.targets.join(', ')}`));
    if (screenshot) await page.screenshot({ path: join(SCREENSHOTS, `${screenshot}.png`), fullPage: true });
    return problems;
  }

  it(`draws all ${LOGIN_PREVIEW_SCREENS.length} states in all ${LOGIN_LANGUAGES.length} languages at ${WIDTHS.join(' and ')} px without overflow, raw keys or serious axe violations`, async () => {
    const states = LOGIN_LANGUAGES.flatMap((language) => LOGIN_PREVIEW_SCREENS.map((screen) => ({ language, screen })));
    // Fetched a few at a time ahead of the checks, in the order they are checked.
    const html: Array<Promise<string>> = [];
    let next = 0;
    const fetchNext = (): Promise<void> | undefined => {
      const index = next++;
      if (index >= states.length) return undefined;
      const { language, screen } = states[index]!;
      const answer = suite.api.call<string>('POST', '/branding/preview', { screen, language }, [200]);
      html[index] = answer;
      return answer.then(fetchNext, () => undefined);
    };
    for (let i = 0; i < FETCHES_IN_FLIGHT; i++) void fetchNext();
    const problems: string[] = [];
    for (const [index, { language, screen }] of states.entries()) {
      while (html[index] === undefined) await new Promise((resolve) => setImmediate(resolve));
      const page = await html[index]!;
      const axe = AXE_LANGUAGES.has(language) || screen === AXE_STATE_OF_THE_REST;
      const found = await Promise.all(
        WIDTHS.map(async (width) => {
          await pageAt[width].setContent(page, { waitUntil: 'load' });
          const screenshot = SCREENSHOT_LANGUAGES.has(language) ? `preview-${language}-${screen}-${width}` : undefined;
          return problemsOf(width, language, screen, axe && width === 390, screenshot);
        }),
      );
      problems.push(...found.flat());
    }
    expect(problems).toEqual([]);
  });

  it('draws a tenant\'s brand (logo, a light primary colour adapted for contrast, a dark page) on the real login pages, in English and Arabic', async () => {
    const clientId = await createAppOnConnection(suite, 'Marken Anwendung', callback.url());
    await suite.api.call('PATCH', '/branding', BRAND);
    const page = pageAt[390];
    try {
      const problems: string[] = [];
      for (const language of ['en', 'ar'] as const) {
        const query = new URLSearchParams({ client_id: clientId, redirect_uri: callback.url(), response_type: 'id_token', scope: 'openid', state: 's', nonce: 'n', ui_locales: language });
        await page.goto(`${suite.stack.urls.authUrl}/authorize?${query.toString()}`);
        await page.fill('#phone_number', '+999 123 4567');
        await page.locator('form[action="/authorize/phone"] button[type="submit"]').click();
        await page.locator('#phone-error').waitFor();
        // The brand as the real page draws it: its logo loaded, black text on the gold button, links darkened from gold.
        const look = await page.evaluate(() => {
          const doc = (globalThis as unknown as { document: { querySelector(s: string): unknown } }).document;
          const style = (selector: string) => {
            const { backgroundColor, color } = (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string; color: string } }).getComputedStyle(doc.querySelector(selector));
            return { backgroundColor, color };
          };
          const logo = doc.querySelector('img.logo') as { naturalWidth: number } | null;
          return { logoWidth: logo?.naturalWidth ?? 0, button: style('form[action="/authorize/phone"] button[type="submit"]'), link: style('button.link').color, page: style('html').backgroundColor };
        });
        expect({ language, ...look }).toEqual({
          language,
          logoWidth: 160,
          button: { backgroundColor: 'rgb(255, 215, 0)', color: 'rgb(0, 0, 0)' },
          link: expect.not.stringMatching(/^rgb\(255, 215, 0\)$/),
          page: 'rgb(11, 31, 58)',
        });
        problems.push(...(await problemsOf(390, language, 'branded phone-error', true, `branded-${language}-phone-error-390`)));
      }
      expect(problems).toEqual([]);
    } finally {
      await suite.api.call('PATCH', '/branding', { colors: null, logo_url: null });
    }
  });
});
