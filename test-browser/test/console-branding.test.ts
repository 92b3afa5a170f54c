import { join } from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { seriousAxeViolations } from '../src/accessibility';
import { describeWithChromium } from '../src/chromium';
import { createOperator, fullPageShot, openScreen, recordConsoleProblems, signInToConsole, VIEWPORTS } from '../src/console';
import { useBrowserSuite } from '../src/stack';

const SCREENSHOTS = join(__dirname, '..', 'test-results', 'console-branding');

/** The preview frame's document (the same Frame across each new srcdoc). */
async function previewFrame(page: Page): Promise<Frame> {
  const frame = await (await page.locator('iframe.preview-frame').elementHandle())!.contentFrame();
  return frame!;
}

/**
 * Waits until `expression`, evaluated in the preview's current document, is true (or 10 s have
 * passed, then fails saying so). Polled with `evaluate` rather than `waitForFunction`, whose
 * polling script the sandboxed frame refuses (no allow-scripts), which Chromium logs as an error.
 */
async function previewShows(page: Page, expression: string): Promise<void> {
  const frame = await previewFrame(page);
  const until = Date.now() + 10_000;
  while (!(await frame.evaluate(expression).catch(() => false))) {
    if (Date.now() > until) throw new Error(`the preview never showed ${expression}`);
    await page.waitForTimeout(100);
  }
}

const sendCodeBackground = `(() => { const b = [...document.querySelectorAll('button')].find((e) => e.textContent.trim() === 'Send code'); return b && getComputedStyle(b).backgroundColor; })()`;

describeWithChromium('the console\'s Branding screen, in a real browser', () => {
  const suite = useBrowserSuite('smsauth-console-branding-', SCREENSHOTS);
  const shot = (page: Page, name: string) => fullPageShot(page, SCREENSHOTS, name);

  it('an Admin edits the primary colour and a text (an http logo refused in the API\'s words), sees the preview change at 390 and 1280 px under the console\'s real CSP, saves both (read back through the API), and previews Arabic right to left; no serious axe violation', async () => {
    const adminPhone = '+14155550177';
    await createOperator(suite.api, suite.stack, adminPhone, ['Admin']);
    // The console's own CSP in force (no bypass): the srcdoc preview inherits it, and must still show the draft brand.
    const context = await suite.browser.newContext({ viewport: VIEWPORTS.desktop });
    const page = await context.newPage();
    const problems = recordConsoleProblems(page, suite.stack);
    await signInToConsole(context, suite.stack, adminPhone, SCREENSHOTS, page);
    await openScreen(page, 'Branding');

    // The preview starts at a phone's width, with the built-in look.
    await page.locator('iframe.preview-frame').waitFor();
    await previewShows(page, `${sendCodeBackground} !== undefined`);
    expect(await (await previewFrame(page)).evaluate('innerWidth')).toBe(390);

    // A draft colour: the preview's button takes it (the inline brand stylesheet applied despite style-src 'self').
    await page.getByLabel(/^Primary colour \(#rrggbb/).fill('#aa0000');
    await previewShows(page, `${sendCodeBackground} === 'rgb(170, 0, 0)'`);

    // A draft text on the code page.
    await page.getByLabel('Page', { exact: true }).selectOption('code');
    await page.locator('#text-login-passwordless-sms-otp-title').fill('Your transfer code');
    await previewShows(page, `document.querySelector('h1')?.textContent.trim() === 'Your transfer code'`);
    await shot(page, 'preview-phone-1280');

    // The desktop width: 1280 px inside the frame, scaled to fit the column.
    await page.getByLabel('Desktop (1280 px)').check();
    await page.locator('iframe.preview-frame[data-width="desktop"]').waitFor();
    await previewShows(page, `innerWidth === 1280 && document.querySelector('h1')?.textContent.trim() === 'Your transfer code'`);
    expect((await page.locator('iframe.preview-frame').boundingBox())!.width).toBeLessThan(1280);
    await shot(page, 'preview-desktop-1280');
    await page.setViewportSize(VIEWPORTS.phone);
    await shot(page, 'preview-desktop-390');
    await page.setViewportSize(VIEWPORTS.desktop);

    // A refused draft: the preview and the save both say why, in the API's words, and the field is marked.
    const logo = page.getByLabel('Logo URL');
    await logo.fill('http://cdn.example.com/logo.png');
    await page.getByRole('region', { name: 'Preview' }).getByRole('alert').filter({ hasText: /logo_url.*https|https.*logo_url/ }).waitFor();
    await page.getByRole('button', { name: 'Save the brand…' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Apply' }).click();
    await dialog.getByRole('alert').filter({ hasText: /HTTP 400/ }).waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await logo.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#brand-logo_url-error').textContent()).toMatch(/^logo_url: .*https/);
    await logo.fill('');

    // Saving: each dialog lists the changed fields; the API has them afterwards.
    await page.getByRole('button', { name: 'Save the brand…' }).click();
    // The dialog's list is read once it is drawn (allTextContents does not wait).
    await dialog.locator('li').first().waitFor();
    expect(await dialog.locator('li').allTextContents()).toEqual(['colors.primary: #aa0000 (none now)']);
    await dialog.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('Brand saved').waitFor();
    expect(await suite.api.call('GET', '/branding')).toEqual({ colors: { primary: '#aa0000' } });

    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Save the texts…' }).click();
    await dialog.locator('li').first().waitFor();
    expect(await dialog.textContent()).toContain('login-passwordless-sms-otp.title: Your transfer code (none now)');
    await dialog.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('Texts saved').waitFor();
    expect(await suite.api.call('GET', '/prompts/login-passwordless/custom-text/en')).toEqual({ 'login-passwordless-sms-otp': { title: 'Your transfer code' } });

    // Arabic: the page is right to left (and keeps the saved colour).
    await page.getByRole('region', { name: 'Preview' }).getByLabel('Language').selectOption('ar');
    await previewShows(page, `document.documentElement.dir === 'rtl' && document.documentElement.lang === 'ar'`);
    await page.getByLabel('Page', { exact: true }).selectOption('phone');
    await previewShows(page, `document.documentElement.dir === 'rtl' && getComputedStyle(document.querySelector('button[type=submit]')).backgroundColor === 'rgb(170, 0, 0)'`);
    // Nothing went wrong but the two refusals asked for above (Chromium logs a 400 answer as an error).
    expect(problems.filter((p) => !/\/api\/v2\/branding(\/preview)?: Failed to load resource: .* 400 /.test(p))).toEqual([]);
    await context.close();

    // axe runs as an injected script, which the console's CSP forbids: this context bypasses it.
    const axeContext = await suite.browser.newContext({ viewport: VIEWPORTS.desktop, bypassCSP: true });
    const axePage = await signInToConsole(axeContext, suite.stack, adminPhone, SCREENSHOTS);
    await openScreen(axePage, 'Branding');
    await axePage.locator('iframe.preview-frame').waitFor();
    const found: Record<string, unknown> = {};
    for (const [name, viewport] of Object.entries(VIEWPORTS)) {
      await axePage.setViewportSize(viewport);
      await shot(axePage, `branding-${viewport.width}`);
      const violations = await seriousAxeViolations(axePage);
      if (violations.length) found[name] = violations;
      const overflow = await axePage.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
      if (overflow > 0) found[`${name} overflow`] = overflow;
    }
    expect(found).toEqual({});
    await axeContext.close();
  });
});
