import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { readCodeFromOutbox, requestJson } from '@smsauth/stack';
import { seriousAxeViolations } from '../src/accessibility';
import { describeWithChromium } from '../src/chromium';
import { consoleUrl, createOperator, fullPageShot, openScreen, recordConsoleProblems, seededConnection, signInToConsole, startAsDemoClient, VIEWPORTS } from '../src/console';
import { useBrowserSuite } from '../src/stack';

const SCREENSHOTS = join(__dirname, '..', 'test-results', 'console');
/** The demo client's OTP grant (the pump and the real GB user sign in with it, outside the browser). */
const OTP_GRANT = 'http://auth0.com/oauth/grant-type/passwordless/otp';
/** UK mobiles of one prefix (+447400 with the connection's 4 prefix digits): the pumped range. */
const GB_MOBILE = (n: number) => `+447400${String(n).padStart(6, '0')}`;
const PUMPED_PREFIX = '+447400';

describeWithChromium('the operator console in a real browser', () => {
  const suite = useBrowserSuite('smsauth-console-', SCREENSHOTS);

  const connection = () => seededConnection(suite);
  const start = (phone: string) => startAsDemoClient(suite.stack, phone);

  /** A whole SMS login outside the browser: start, the code from the outbox, the OTP grant. */
  async function verify(phone: string): Promise<void> {
    const sent = new Date();
    expect(await start(phone)).toBe(200);
    const otp = await readCodeFromOutbox(suite.stack.urls.gatewayUrl, phone, { notBefore: sent });
    const res = await requestJson(`${suite.stack.urls.authUrl}/oauth/token`, {
      method: 'POST',
      json: { grant_type: OTP_GRANT, client_id: suite.stack.tenant.demoClientId, realm: suite.stack.tenant.connectionName, username: phone, otp, scope: 'openid' },
    });
    expect(res.status).toBe(200);
  }

  const shot = (page: Page, name: string) => fullPageShot(page, SCREENSHOTS, name);

  it('serves the console at /console/ under its strict CSP: signed out, it offers the hosted login, with no console error', async () => {
    const context = await suite.browser.newContext({ viewport: VIEWPORTS.desktop });
    const page = await context.newPage();
    const problems = recordConsoleProblems(page, suite.stack);
    const opened = await page.goto(consoleUrl(suite.stack.urls.authUrl));
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

  /** The management API requests the console makes, with the operator's bearer token. */
  function recordApiTokens(page: Page): string[] {
    const tokens: string[] = [];
    page.on('request', (request) => {
      const authorization = request.headers()['authorization'];
      if (request.url().startsWith(`${suite.stack.urls.authUrl}/api/v2/`) && authorization) tokens.push(authorization);
    });
    return tokens;
  }

  /** Pumps the prefix until the fraud guard refuses a start; answers the number it refused. */
  async function pumpUntilBlocked(): Promise<string> {
    for (let n = 1; n <= 10; n++) {
      const status = await start(GB_MOBILE(n));
      if (status === 429) return GB_MOBILE(n);
      expect(status).toBe(200);
    }
    throw new Error('the fraud guard never blocked the pumped prefix');
  }

  it('Support: signs in by SMS, finds a number that failed to sign in and sees why, blocks and unblocks a user (by id), unblocks the prefix the fraud guard blocked, and sees the conversion move', async () => {
    const conn = await connection();
    await suite.api.updateConnection(conn.id, { options: { sms_fraud_guard: { mode: 'block', min_sends: 5, min_conversion: 0.5, window_minutes: 60, block_minutes: 60 } } });
    const refused = await pumpUntilBlocked();
    expect((await suite.api.call<{ blocks: Array<{ prefix: string }> }>('GET', `/connections/${conn.id}/sms-fraud-blocks`)).blocks.map((b) => b.prefix)).toEqual([PUMPED_PREFIX]);

    const operatorPhone = '+14155550161';
    await createOperator(suite.api, suite.stack, operatorPhone, ['Support']);
    const context = await suite.browser.newContext({ viewport: VIEWPORTS.desktop });
    const page = await context.newPage();
    const problems = recordConsoleProblems(page, suite.stack);
    await signInToConsole(context, suite.stack, operatorPhone, SCREENSHOTS, page);
    const nav = page.getByRole('navigation', { name: 'Console' });
    await nav.waitFor();
    expect(await page.locator('header.top').textContent()).toContain(operatorPhone);
    // Support's scopes: no connection, application, key or log stream screens.
    expect(await nav.getByRole('link').allTextContents()).toEqual(['Overview', 'Find a login', 'Fraud guard', 'Connections', 'Applications', 'APIs and roles', 'Logs', 'Import and export users']);
    await page.locator('.loading').first().waitFor({ state: 'detached' });
    await shot(page, '10-support-overview');

    // The refused number never became a user: its log events say what happened.
    await openScreen(page, 'Find a login');
    await page.getByLabel('Phone number, name or user id').fill(refused);
    await page.getByRole('button', { name: 'Search' }).click();
    const timeline = page.getByTestId('timeline');
    await timeline.waitFor();
    await shot(page, '11-support-find-a-login');
    expect(await page.getByText(`No user matches ${refused}.`).isVisible()).toBe(true);
    const refusal = timeline.locator('li', { hasText: 'Start Refused by SMS Policy' });
    expect(await refusal.count()).toBe(1);
    expect(await refusal.textContent()).toContain('fraud_guard');

    // A user: blocked, then unblocked, each after a confirmation.
    const customer = await createOperator(suite.api, suite.stack, '+14155550165', []);
    await page.getByLabel('Phone number, name or user id').fill(customer);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByTestId('user-results').getByRole('link').first().click();
    const status = page.getByTestId('user-status');
    await status.waitFor();
    expect(await status.textContent()).toBe('Active');
    await page.getByRole('button', { name: 'Block…' }).click();
    const block = page.getByRole('dialog', { name: 'Block +14155550165?' });
    expect(await block.textContent()).toContain('refused at every sign-in until unblocked');
    await block.getByRole('button', { name: 'Block', exact: true }).click();
    await page.getByRole('status').filter({ hasText: '+14155550165 is blocked.' }).waitFor();
    await page.locator('[data-testid="user-status"]:text-is("Blocked")').waitFor();
    await shot(page, '11b-support-user-blocked');
    expect((await suite.api.call<{ blocked: boolean }>('GET', `/users/${encodeURIComponent(customer)}`)).blocked).toBe(true);
    await page.getByRole('button', { name: 'Unblock…' }).click();
    await page.getByRole('dialog', { name: 'Unblock +14155550165?' }).getByRole('button', { name: 'Unblock', exact: true }).click();
    await page.locator('[data-testid="user-status"]:text-is("Active")').waitFor();
    expect((await suite.api.call<{ blocked: boolean }>('GET', `/users/${encodeURIComponent(customer)}`)).blocked).toBe(false);
    // The block and the unblock are events of their own on the user's timeline.
    const userTimeline = page.getByTestId('timeline');
    await userTimeline.locator('li', { hasText: 'Unblock a user' }).waitFor();
    expect(await userTimeline.locator('li strong').allTextContents()).toEqual(expect.arrayContaining(['Block a user', 'Unblock a user']));

    // A number refused before it became a user: its user's page shows the refusal too (the number's records).
    const late = await suite.api.call<{ user_id: string }>('POST', '/users', { connection: suite.stack.tenant.connectionName, phone_number: refused });
    await page.goto(`${consoleUrl(suite.stack.urls.authUrl)}#/users/${encodeURIComponent(late.user_id)}`);
    await page.getByTestId('timeline').locator('li', { hasText: 'Start Refused by SMS Policy' }).waitFor();
    expect(await page.locator('dd', { hasText: 'from the number' }).textContent()).toBe('United Kingdom (GB, from the number)');

    // The fraud guard: the blocked prefix, unblocked after a confirmation saying what changes.
    await openScreen(page, 'Fraud guard');
    const blocked = page.getByTestId('blocked-prefixes');
    expect(await blocked.locator('tbody th').allTextContents()).toEqual([PUMPED_PREFIX]);
    // Support may lift a block but not change the connection: no mode or safe-list controls.
    expect(await page.getByRole('button', { name: 'Change mode…' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Add to the safe list…' }).count()).toBe(0);
    await page.getByRole('button', { name: `Unblock ${PUMPED_PREFIX}` }).click();
    const dialog = page.getByRole('dialog', { name: `Unblock ${PUMPED_PREFIX}?` });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('get codes again at once');
    await shot(page, '12-support-unblock-confirm');
    await dialog.getByRole('button', { name: `Unblock ${PUMPED_PREFIX}` }).click();
    await dialog.waitFor({ state: 'detached' });
    await blocked.waitFor({ state: 'detached' });
    await shot(page, '13-support-unblocked');
    expect((await suite.api.call<{ blocks: unknown[] }>('GET', `/connections/${conn.id}/sms-fraud-blocks`)).blocks).toEqual([]);

    // Conversion by country: GB had codes sent and none verified; one real login moves it.
    await openScreen(page, 'Overview');
    const gbRow = page.getByTestId('country-table').locator('tbody tr', { has: page.locator('th', { hasText: /^GB$/ }) });
    const before = (await gbRow.locator('td').allTextContents()).map((t) => t.trim());
    expect(before[1]).toBe('0');
    expect(before[2]).toBe('0.0 %');
    // By channel, every code went by SMS; the login adds one verified code there.
    const smsRow = page.getByTestId('channel-table').locator('tbody tr', { has: page.locator('th', { hasText: /^SMS$/ }) });
    const smsVerifiedBefore = Number((await smsRow.locator('td').nth(1).textContent())!.trim());
    await expect(page.getByTestId('passkey-logins').textContent()).resolves.toContain('Passkey logins: 0');
    await verify(GB_MOBILE(50));
    // Back to the overview: it loads the figures again.
    await openScreen(page, 'Find a login');
    await openScreen(page, 'Overview');
    const after = (await gbRow.locator('td').allTextContents()).map((t) => t.trim());
    expect(Number(after[0])).toBe(Number(before[0]) + 1);
    expect(after[1]).toBe('1');
    expect(after[2]).not.toBe('0.0 %');
    expect(Number((await smsRow.locator('td').nth(1).textContent())!.trim())).toBe(smsVerifiedBefore + 1);
    await shot(page, '14-support-conversion-moved');
    // Spend at the built-in prices, and the start the fraud guard refused, found by number, with its reason.
    expect(await page.getByTestId('spend').textContent()).toMatch(/^Spend: \$\d+\.\d+ for \d+ codes sent\./);
    await page.getByLabel('Number', { exact: true }).fill(refused);
    await page.getByRole('button', { name: 'Find', exact: true }).click();
    const attempt = page.getByTestId('attempts-table').locator('tbody tr');
    await page.getByTestId('attempts-table').locator('tbody tr', { hasText: refused.slice(-4) }).waitFor();
    expect((await attempt.first().locator('td').allTextContents()).slice(1)).toEqual([expect.stringContaining(refused.slice(-4)), 'GB', 'SMS', 'refused', 'fraud_guard']);
    await shot(page, '15-support-spend-and-attempts');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('Viewer: every screen shows, no button changes anything, and the API refuses a change with 403', async () => {
    const viewerPhone = '+14155550162';
    await createOperator(suite.api, suite.stack, viewerPhone, ['Viewer']);
    const context = await suite.browser.newContext({ viewport: VIEWPORTS.desktop });
    const page = await context.newPage();
    const problems = recordConsoleProblems(page, suite.stack);
    const tokens = recordApiTokens(page);
    await signInToConsole(context, suite.stack, viewerPhone, SCREENSHOTS, page);
    const nav = page.getByRole('navigation', { name: 'Console' });
    await nav.waitFor();
    const screens = await nav.getByRole('link').allTextContents();
    expect(screens).toEqual(['Overview', 'Find a login', 'Fraud guard', 'Connections', 'Applications', 'APIs and roles', 'Signing keys', 'Log streams', 'Logs', 'Branding', 'Import and export users']);
    const changing = /^(Unblock|Block|Lift|Revoke|Delete|Rotate|Change mode|Save|Add to|Remove|Send|Resume|Pause|Edit|New SMS connection|Give|Take)/;
    for (const screen of screens) {
      await openScreen(page, screen);
      await shot(page, `20-viewer-${screen.toLowerCase().replace(/\W+/g, '-')}`);
      const labels = [...(await page.locator('main button').allTextContents()), ...(await page.locator('main a.button').allTextContents())];
      expect({ screen, changing: labels.filter((label) => changing.test(label.trim())) }).toEqual({ screen, changing: [] });
    }
    // The user's own page shows no action either.
    await openScreen(page, 'Find a login');
    await page.getByLabel('Phone number, name or user id').fill(viewerPhone);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByTestId('user-results').waitFor();
    await shot(page, '21-viewer-search');
    await page.getByTestId('user-results').getByRole('link').first().click();
    await page.getByTestId('user-status').waitFor();
    await page.locator('.loading').first().waitFor({ state: 'detached' });
    await shot(page, '22-viewer-user');
    expect((await page.locator('main button').allTextContents()).filter((label) => changing.test(label.trim()))).toEqual([]);

    // The token the console holds reads, and the API refuses it a change.
    expect(tokens.length).toBeGreaterThan(0);
    const authorization = tokens.at(-1)!;
    // Tokens live in memory only: nothing of them in the page's storage.
    const storage = await page.evaluate<string>('JSON.stringify([Object.entries(localStorage), Object.entries(sessionStorage)])');
    expect(storage).not.toContain(authorization.replace(/^Bearer /, '').slice(0, 40));
    expect(storage).not.toMatch(/eyJ|refresh_token|access_token/);
    const conn = await connection();
    const read = await fetch(`${suite.stack.urls.authUrl}/api/v2/connections/${conn.id}/sms-fraud-blocks`, { headers: { authorization } });
    expect(read.status).toBe(200);
    const refusedChange = await fetch(`${suite.stack.urls.authUrl}/api/v2/connections/${conn.id}/sms-fraud-blocks/${encodeURIComponent(PUMPED_PREFIX)}`, { method: 'DELETE', headers: { authorization } });
    expect(refusedChange.status).toBe(403);
    const refusedBlock = await fetch(`${suite.stack.urls.authUrl}/api/v2/users/${encodeURIComponent('x')}`, { method: 'PATCH', headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify({ blocked: true }) });
    expect(refusedBlock.status).toBe(403);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('a user with no role signs in and is told they cannot use the console, and why', async () => {
    const phone = '+14155550163';
    await createOperator(suite.api, suite.stack, phone, []);
    const context = await suite.browser.newContext({ viewport: VIEWPORTS.phone });
    const page = await signInToConsole(context, suite.stack, phone, SCREENSHOTS);
    const heading = page.getByRole('heading', { name: 'You have no role in this console' });
    await heading.waitFor();
    await shot(page, '30-no-role');
    expect(await page.getByRole('alert').textContent()).toContain('Ask an administrator to give your user a role');
    expect(await page.getByRole('navigation', { name: 'Console' }).count()).toBe(0);
    await context.close();
  });
  it('Logs: filters by type and by date find the right events, the number links to its user, details open as a list with the raw JSON, and the screen reads well at 390 and 1280 px', async () => {
    // A user who signs in, then types a wrong code: a success and an fp, both about ***0177.
    const phone = '+14155550177';
    await verify(phone);
    const sent = new Date();
    expect(await start(phone)).toBe(200);
    await readCodeFromOutbox(suite.stack.urls.gatewayUrl, phone, { notBefore: sent });
    const wrong = await requestJson(`${suite.stack.urls.authUrl}/oauth/token`, {
      method: 'POST',
      json: { grant_type: OTP_GRANT, client_id: suite.stack.tenant.demoClientId, realm: suite.stack.tenant.connectionName, username: phone, otp: '000000', scope: 'openid' },
    });
    expect([wrong.status, (wrong.body as { error?: string }).error]).toEqual([400, 'invalid_grant']);
    const [user] = await suite.api.call<Array<{ user_id: string }>>('GET', `/users?q=${encodeURIComponent(`phone_number:"${phone}"`)}`);
    const today = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);

    await createOperator(suite.api, suite.stack, '+14155550178', ['Support']);
    // axe runs as an injected script, which the console's CSP forbids: this context bypasses it.
    const context = await suite.browser.newContext({ viewport: VIEWPORTS.desktop, bypassCSP: true });
    const page = await signInToConsole(context, suite.stack, '+14155550178', SCREENSHOTS);
    await openScreen(page, 'Logs');
    const table = page.getByTestId('logs-table');
    await table.waitFor();

    // Filtering by type: every row an fp, ours among them, the query shown as the API takes it.
    await page.getByLabel('Type').selectOption('fp');
    await page.getByRole('button', { name: 'Search' }).click();
    expect(await page.getByTestId('log-query').textContent()).toBe('type:fp');
    const ours = table.locator('tbody tr', { hasText: '***0177' });
    await ours.first().waitFor();
    expect(new Set(await table.locator('tbody tr td:last-child code').allTextContents())).toEqual(new Set(['fp']));
    expect(await ours.first().textContent()).toContain('***0177 — Incorrect Verification Code');

    // By date: today finds it, from tomorrow on nothing.
    await page.getByLabel('From (UTC)').fill(today);
    await page.getByLabel('To (UTC, included)').fill(today);
    await page.getByRole('button', { name: 'Search' }).click();
    expect(await page.getByTestId('log-query').textContent()).toBe(`type:fp AND date:[${today} TO ${tomorrow}}`);
    await ours.first().waitFor();
    await page.getByLabel('From (UTC)').fill(tomorrow);
    await page.getByLabel('To (UTC, included)').fill('');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('No log event matches these filters.').waitFor();
    await page.getByRole('button', { name: 'Clear' }).click();
    await ours.first().waitFor();

    // Both widths: no serious axe violation, nothing wider than the screen, the page no taller than its rows need, the date on one line.
    const found: Record<string, unknown> = {};
    for (const [name, viewport] of Object.entries(VIEWPORTS)) {
      await page.setViewportSize(viewport);
      await shot(page, `60-logs-${viewport.width}`);
      const violations = await seriousAxeViolations(page);
      if (violations.length) found[`logs (${name})`] = violations;
      const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
      if (overflow > 0)
        found[`logs (${name}) overflow`] = await page.evaluate(
          `[...document.querySelectorAll('main *')].filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth).slice(0, 3).map((e) => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))`,
        );
      const rows = await table.locator('tbody tr').count();
      const height = await page.evaluate<number>('document.documentElement.scrollHeight');
      if (height > 800 + rows * 160) found[`logs (${name}) height`] = { height, rows };
    }
    const date = await table.locator('tbody tr time').first().evaluate((el) => ({ lines: el.getClientRects().length, height: el.getBoundingClientRect().height }));
    if (date.lines !== 1 || date.height > 30) found['date at 1280 px wraps'] = date;
    expect(found).toEqual({});

    // Details: a definition list, the raw JSON one click away.
    const row = ours.first();
    await row.getByText('Details').click();
    expect(await row.locator('dl.log-details dt').allTextContents()).toEqual(expect.arrayContaining(['Log id', 'Type', 'User id']));
    await row.getByRole('button', { name: 'Show the raw JSON' }).click();
    expect(JSON.parse((await row.locator('pre.raw-json').textContent())!)).toMatchObject({ type: 'fp', user_id: user!.user_id });
    await shot(page, '61-logs-details');

    // The number links to the user's page.
    await row.getByRole('link', { name: '***0177' }).click();
    await page.getByTestId('user-roles').or(page.getByRole('heading', { level: 1 })).first().waitFor();
    expect(decodeURIComponent(new URL(page.url()).hash)).toBe(`#/users/${user!.user_id}`);
    await context.close();
  });
});
