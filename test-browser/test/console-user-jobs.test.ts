import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { seriousAxeViolations } from '../src/accessibility';
import { describeWithChromium } from '../src/chromium';
import { createOperator, fullPageShot, openScreen, signInToConsole, VIEWPORTS } from '../src/console';
import { useBrowserSuite } from '../src/stack';

const SCREENSHOTS = join(__dirname, '..', 'test-results', 'console-user-jobs');

describeWithChromium('the console\'s bulk user import and export, in a real browser', () => {
  const suite = useBrowserSuite('smsauth-console-jobs-', SCREENSHOTS);
  const shot = (page: Page, name: string) => fullPageShot(page, SCREENSHOTS, name);

  it('an Admin uploads a file of users and follows the job to its summary and refused records; an export ends with a download link; no serious axe violation at 390 and 1280 px', async () => {
    const adminPhone = '+14155550175';
    await createOperator(suite.api, suite.stack, adminPhone, ['Admin']);
    // axe runs as an injected script, which the console's CSP forbids: this context bypasses it.
    const context = await suite.browser.newContext({ viewport: VIEWPORTS.desktop, bypassCSP: true });
    const page = await signInToConsole(context, suite.stack, adminPhone, SCREENSHOTS);
    await openScreen(page, 'Import and export users');

    const users = [
      { phone_number: '+14155550181' },
      { phone_number: '+14155550182', user_metadata: { plan: 'pro' } },
      { phone_number: 'not a number' },
    ];
    await page.getByLabel('Users file (JSON)').setInputFiles({ name: 'users.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(users)) });
    await page.getByRole('button', { name: 'Start the import' }).click();
    const status = page.getByTestId('job-status');
    await page.getByRole('heading', { level: 1, name: /^Import job_/ }).waitFor();
    await page.getByTestId('job-status').filter({ hasText: /^(Completed|Failed)\.$/ }).waitFor({ timeout: 20_000 });
    expect(await status.textContent()).toBe('Completed.');
    expect(await page.getByTestId('job-summary').locator('tbody td').allTextContents()).toEqual(['2', '0', '1', '3']);
    await page.getByTestId('job-errors').waitFor();
    expect(await page.getByTestId('job-errors').locator('tbody tr').count()).toBe(1);
    expect(await page.getByTestId('job-errors').locator('tbody td').first().textContent()).toBe('not a number');
    // The two users exist now, as the API says.
    for (const phone of ['+14155550181', '+14155550182']) {
      const found = await suite.api.call<unknown[]>('GET', `/users?q=${encodeURIComponent(`phone_number:"${phone}"`)}`);
      expect(found).toHaveLength(1);
    }
    const found: Record<string, unknown> = {};
    for (const [name, viewport] of Object.entries(VIEWPORTS)) {
      await page.setViewportSize(viewport);
      await shot(page, `import-${viewport.width}`);
      const violations = await seriousAxeViolations(page);
      if (violations.length) found[`import job (${name})`] = violations;
    }

    await page.getByRole('link', { name: 'Import and export users' }).first().click();
    await page.getByRole('heading', { level: 1, name: 'Import and export users', exact: true }).waitFor();
    await page.getByLabel('Format').selectOption('csv');
    await page.getByRole('button', { name: 'Start the export' }).click();
    await page.getByRole('heading', { level: 1, name: /^Export job_/ }).waitFor();
    await page.getByTestId('job-status').filter({ hasText: /^(Completed|Failed)\.$/ }).waitFor({ timeout: 20_000 });
    expect(await status.textContent()).toBe('Completed.');
    const download = page.getByRole('link', { name: 'Download the export' });
    expect(await download.getAttribute('href')).toMatch(/\/user-exports\//);
    for (const [name, viewport] of Object.entries(VIEWPORTS)) {
      await page.setViewportSize(viewport);
      await shot(page, `export-${viewport.width}`);
      const violations = await seriousAxeViolations(page);
      if (violations.length) found[`export job (${name})`] = violations;
    }
    expect(found).toEqual({});
    await context.close();
  });
});
