import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { ManagementClient, readCodeFromOutbox, requestJson } from '@smsauth/stack';
import { seriousAxeViolations } from '../src/accessibility';
import { CallbackServer } from '../src/callback-server';
import { describeWithChromium } from '../src/chromium';
import { consoleUrl, createOperator, openScreen, recordConsoleProblems, settledFocus, signInToConsole, VIEWPORTS } from '../src/console';
import { useBrowserSuite } from '../src/stack';

const SCREENSHOTS = join(__dirname, '..', 'test-results', 'console');
/** The demo client's OTP grant (the pump and the real GB user sign in with it, outside the browser). */
const OTP_GRANT = 'http://auth0.com/oauth/grant-type/passwordless/otp';
/** UK mobiles of one prefix (+447400 with the connection's 4 prefix digits): the pumped range. */
const GB_MOBILE = (n: number) => `+447400${String(n).padStart(6, '0')}`;
const PUMPED_PREFIX = '+447400';

describeWithChromium('the operator console in a real browser', () => {
  const suite = useBrowserSuite('smsauth-console-', SCREENSHOTS);

  async function connection() {
    return (await suite.api.listConnections()).find((c) => c.name === suite.stack.tenant.connectionName)!;
  }

  /** POST /passwordless/start as the demo (native) client; the status identity answered. */
  async function start(phone: string): Promise<number> {
    const res = await requestJson(`${suite.stack.urls.authUrl}/passwordless/start`, {
      method: 'POST',
      json: { client_id: suite.stack.tenant.demoClientId, connection: suite.stack.tenant.connectionName, phone_number: phone, send: 'code' },
    });
    return res.status;
  }

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

  async function shot(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  }

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
    expect(await nav.getByRole('link').allTextContents()).toEqual(['Overview', 'Find a login', 'Fraud guard', 'Connections', 'Applications and APIs', 'Logs']);
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
    expect(screens).toEqual(['Overview', 'Find a login', 'Fraud guard', 'Connections', 'Applications and APIs', 'Signing keys', 'Log streams', 'Logs']);
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

  it('Admin: axe-core finds no serious violation on any screen or dialog at 390 and 1280 px; Escape cancels and the skip link comes first; API errors keep their words; the template preview counts segments; the live log view shows a new event; a log stream is created, resumed, edited and paused; the safe list, fraud-guard mode, a test code, the rest of the SMS policy (a refusal shown as the API said it), a new connection with gateway authentication, the callbacks of a client, giving and taking a role, revoking sessions and deleting a user each change what the API answers; the signing key is rotated and the previous one revoked (the current one is never offered); a reload signs in again', async () => {
    const adminPhone = '+14155550164';
    await createOperator(suite.api, suite.stack, adminPhone, ['Admin']);
    // axe runs as an injected script, which the console's CSP forbids: this context bypasses it.
    const context = await suite.browser.newContext({ viewport: VIEWPORTS.desktop, bypassCSP: true });
    const page = await signInToConsole(context, suite.stack, adminPhone, SCREENSHOTS);
    const nav = page.getByRole('navigation', { name: 'Console' });
    await nav.waitFor();
    const screens = await nav.getByRole('link').allTextContents();
    expect(screens).toHaveLength(8);
    const found: Record<string, unknown> = {};
    for (const screen of screens) {
      await openScreen(page, screen);
      for (const [name, viewport] of Object.entries(VIEWPORTS)) {
        await page.setViewportSize(viewport);
        await shot(page, `40-${screen.toLowerCase().replace(/\W+/g, '-')}-${viewport.width}`);
        const violations = await seriousAxeViolations(page);
        if (violations.length) found[`${screen} (${name})`] = violations;
        // Nothing wider than the screen: tables scroll inside their own box.
        const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
        if (overflow > 0) found[`${screen} (${name}) overflow`] = overflow;
      }
    }
    // A user's page (the Admin's own: timeline, sessions, roles with their actions).
    await openScreen(page, 'Find a login');
    await page.getByLabel('Phone number, name or user id').fill(adminPhone);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByTestId('user-results').getByRole('link').first().click();
    await page.getByTestId('user-roles').waitFor();
    await page.locator('.loading').first().waitFor({ state: 'detached' });
    for (const [name, viewport] of Object.entries(VIEWPORTS)) {
      await page.setViewportSize(viewport);
      await shot(page, `40-user-${viewport.width}`);
      const violations = await seriousAxeViolations(page);
      if (violations.length) found[`user page (${name})`] = violations;
    }
    // The confirmation dialog too.
    await openScreen(page, 'Signing keys');
    await page.getByRole('button', { name: 'Rotate the signing key…' }).click();
    await page.getByRole('dialog').waitFor();
    for (const [name, viewport] of Object.entries(VIEWPORTS)) {
      await page.setViewportSize(viewport);
      await shot(page, `41-confirm-${viewport.width}`);
      const violations = await seriousAxeViolations(page);
      if (violations.length) found[`confirmation (${name})`] = violations;
    }
    expect(found).toEqual({});
    // By keyboard: Escape closes the dialog, changing nothing, and focus is back on the button that opened it.
    const kids = await suite.api.call<Array<{ kid: string }>>('GET', '/keys/signing');
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    expect(await settledFocus(page, 'textContent', 'Rotate the signing key…')).toBe('Rotate the signing key…');
    expect(await suite.api.call<Array<{ kid: string }>>('GET', '/keys/signing')).toEqual(kids);
    // An error from the API is shown as the API said it, in the dialog, and nothing changes.
    // The fraud guard in block mode (as the Support test leaves it), so that this test stands on its own.
    await suite.api.updateConnection((await connection()).id, { options: { sms_fraud_guard: { mode: 'block', min_sends: 5, min_conversion: 0.5, window_minutes: 60, block_minutes: 60 } } });
    await openScreen(page, 'Fraud guard');
    await page.getByLabel('Number (E.164)').fill('+1 not a number');
    await page.getByRole('button', { name: 'Add to the safe list…' }).click();
    const addDialog = page.getByRole('dialog');
    await addDialog.getByRole('button', { name: 'Add to the safe list' }).click();
    const apiError = addDialog.getByRole('alert');
    await apiError.waitFor();
    await shot(page, '42-api-error');
    // The same request straight to the API: the dialog carries its words.
    const said = await suite.api.call<{ message?: string; error_description?: string }>('PATCH', `/connections/${(await connection()).id}`, { options: { sms_safe_list: ['+1 not a number'] } }, [400]);
    const words = said.message ?? said.error_description!;
    expect(words).toContain('sms_safe_list');
    expect(await apiError.textContent()).toContain(`${words} (HTTP 400, `);
    await addDialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await connection()).options.sms_safe_list ?? []).toEqual([]);
    // A valid number is added to the safe list after a confirmation saying what it exempts.
    const safeNumber = '+14155550188';
    await page.getByLabel('Number (E.164)').fill(safeNumber);
    await page.getByRole('button', { name: 'Add to the safe list…' }).click();
    const addSafe = page.getByRole('dialog', { name: new RegExp(`^Add \\${safeNumber} to the safe list of `) });
    expect(await addSafe.textContent()).toContain('will always get codes');
    await addSafe.getByRole('button', { name: 'Add to the safe list' }).click();
    await addSafe.waitFor({ state: 'detached' });
    await page.getByRole('listitem').filter({ hasText: safeNumber }).waitFor();
    expect((await connection()).options.sms_safe_list).toEqual([safeNumber]);
    // And removed again, after a confirmation.
    await page.getByRole('button', { name: `Remove ${safeNumber}` }).click();
    const removeSafe = page.getByRole('dialog', { name: `Remove ${safeNumber} from the safe list?` });
    expect(await removeSafe.textContent()).toContain('judged by the connection');
    await removeSafe.getByRole('button', { name: 'Remove', exact: true }).click();
    await removeSafe.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: `Remove ${safeNumber}` }).waitFor({ state: 'detached' });
    expect((await connection()).options.sms_safe_list ?? []).toEqual([]);
    // The fraud guard's mode, from block (set above) to monitor.
    await page.getByLabel('Mode', { exact: true }).selectOption('monitor');
    await page.getByRole('button', { name: 'Change mode…' }).click();
    const modeDialog = page.getByRole('dialog', { name: /^Set the fraud guard of .+ to monitor\?$/ });
    expect(await modeDialog.textContent()).toContain('From block to monitor');
    await modeDialog.getByRole('button', { name: 'Set mode to monitor' }).click();
    await modeDialog.waitFor({ state: 'detached' });
    await page.locator('[data-testid="guard-mode"]:text-is("monitor")').waitFor();
    expect(((await connection()).options.sms_fraud_guard as { mode?: string } | undefined)?.mode).toBe('monitor');
    await shot(page, '42b-fraud-guard-changed');
    await openScreen(page, 'Signing keys');
    // Connections: the template's live preview (rendered by identity, not saved) counts encoding and segments; saving confirms each change.
    await openScreen(page, 'Connections');
    await page.getByRole('link', { name: suite.stack.tenant.connectionName, exact: true }).click();
    const template = page.getByLabel(/^Template/);
    await template.waitFor();
    const preview = page.getByTestId('template-preview');
    await preview.locator('.sms').waitFor();
    expect(await preview.textContent()).toContain('GSM-7');
    await template.fill('Your code is @@password@@ ✅');
    await preview.locator('.sms', { hasText: '✅' }).waitFor();
    expect(await preview.textContent()).toMatch(/UCS-2, \d+ characters, 1 segment/);
    await shot(page, '43-connection-preview');
    await page.getByRole('button', { name: 'Save changes…' }).click();
    const save = page.getByRole('dialog', { name: /^Save 1 change\(s\) to / });
    expect(await save.textContent()).toContain('template: "Your code is @@password@@ ✅"');
    await save.getByRole('button', { name: 'Save', exact: true }).click();
    await save.waitFor({ state: 'detached' });
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    expect((await connection()).options.template).toBe('Your code is @@password@@ ✅');
    // A test code from the connection reaches the gateway's outbox.
    const testPhone = '+14155550177';
    const testSent = new Date();
    await page.getByLabel('Send a test code to').fill(testPhone);
    await page.getByRole('button', { name: 'Send…' }).click();
    const sendDialog = page.getByRole('dialog', { name: `Send a test code to ${testPhone}?` });
    expect(await sendDialog.textContent()).toContain('A real SMS with a sign-in code');
    await sendDialog.getByRole('button', { name: 'Send the code' }).click();
    await page.getByRole('status').filter({ hasText: `A code was sent to ${testPhone}.` }).waitFor();
    expect(await readCodeFromOutbox(suite.stack.urls.gatewayUrl, testPhone, { notBefore: testSent })).toMatch(/^\d{4,8}$/);

    // The rest of the SMS policy: an API refusal is shown in the API's words, then each change is listed before it is saved.
    await page.getByLabel(/^Test numbers and their fixed codes/).fill('+14155550123 12');
    await page.getByRole('button', { name: 'Save changes…' }).click();
    const badSave = page.getByRole('dialog', { name: /^Save 1 change\(s\) to / });
    await badSave.getByRole('button', { name: 'Save', exact: true }).click();
    await badSave.getByRole('alert').waitFor();
    expect(await badSave.getByRole('alert').textContent()).toMatch(/sms_test_numbers.*must be 4 to 10 digits.*\(HTTP 400, /);
    await badSave.getByRole('button', { name: 'Cancel' }).click();
    expect((await connection()).options.sms_test_numbers ?? []).toEqual([]);
    await page.getByLabel(/^Test numbers and their fixed codes/).fill('+14155550123 123456');
    await page.getByLabel(/^Velocity limit: starts per hour to one prefix/).fill('20');
    await page.getByLabel('Fraud guard: window judged (minutes)').fill('30');
    await page.getByLabel('Fraud guard: a block lasts (minutes)').fill('120');
    const typesBefore = (await connection()).options.allowed_number_types as string[];
    expect(typesBefore).not.toContain('VOIP');
    await page.getByRole('checkbox', { name: 'VOIP', exact: true }).check();
    for (const [name, viewport] of Object.entries(VIEWPORTS)) {
      await page.setViewportSize(viewport);
      await shot(page, `43b-connection-policy-${viewport.width}`);
      const violations = await seriousAxeViolations(page);
      if (violations.length) found[`connection page (${name})`] = violations;
    }
    await page.getByRole('button', { name: 'Save changes…' }).click();
    const policySave = page.getByRole('dialog', { name: /^Save 4 change\(s\) to / });
    const listed = await policySave.textContent();
    expect(listed).toContain('sms_velocity_limits: {"per_prefix_per_hour":20}');
    expect(listed).toContain('"window_minutes":30');
    expect(listed).toContain('"block_minutes":120');
    expect(listed).toContain('allowed_number_types: ');
    expect(listed).toContain('"VOIP"');
    expect(listed).toContain('sms_test_numbers: [{"phone_number":"+14155550123","code":"123456"}]');
    await policySave.getByRole('button', { name: 'Save', exact: true }).click();
    await policySave.waitFor({ state: 'detached' });
    const policy = (await connection()).options as Record<string, unknown>;
    expect(policy.sms_velocity_limits).toEqual({ per_country_per_hour: null, per_prefix_per_hour: 20 });
    expect(policy.sms_fraud_guard).toMatchObject({ mode: 'monitor', window_minutes: 30, block_minutes: 120 });
    expect([...(policy.allowed_number_types as string[])].sort()).toEqual([...typesBefore, 'VOIP'].sort());
    expect(policy.sms_test_numbers).toEqual([{ phone_number: '+14155550123', code: '123456' }]);

    // A new connection with gateway authentication: the secret is sent once and never shown back.
    await openScreen(page, 'Connections');
    await page.getByRole('link', { name: 'New SMS connection' }).click();
    await page.getByLabel('Name', { exact: true }).fill('backup-sms');
    await page.getByLabel('Gateway URL').fill('https://sms-gateway.example.com/sms');
    await page.getByLabel('Subject').fill('smsauth-identity');
    await page.getByLabel('Audience').fill('sms-gateway');
    await page.getByLabel(/^Secret/).fill('a-gateway-secret-for-the-test');
    for (const [name, viewport] of Object.entries(VIEWPORTS)) {
      await page.setViewportSize(viewport);
      await shot(page, `43c-new-connection-${viewport.width}`);
      const violations = await seriousAxeViolations(page);
      if (violations.length) found[`new connection (${name})`] = violations;
    }
    expect(found).toEqual({});
    await page.getByRole('button', { name: 'Create…' }).click();
    const create = page.getByRole('dialog', { name: 'Create the connection backup-sms?' });
    const createText = await create.textContent();
    expect(createText).toContain('bearer token (HS256) with subject smsauth-identity and audience sms-gateway');
    expect(createText).not.toContain('a-gateway-secret-for-the-test');
    await create.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'backup-sms', exact: true }).waitFor();
    const backup = (await suite.api.listConnections()).find((c) => c.name === 'backup-sms')!;
    expect(backup.options.template).toBe('Your sign-in code is @@password@@');
    expect(backup.options.gateway_url).toBe('https://sms-gateway.example.com/sms');
    expect(backup.options.gateway_authentication).toMatchObject({ method: 'bearer', subject: 'smsauth-identity', audience: 'sms-gateway' });
    expect(JSON.stringify(backup)).not.toContain('a-gateway-secret-for-the-test');

    // Applications: a client's callbacks edited after a confirmation naming the new list.
    const demo = await suite.api.call<{ name: string; callbacks?: string[] }>('GET', `/clients/${suite.stack.tenant.demoClientId}`);
    const addedCallback = 'https://console-test.example/callback';
    await openScreen(page, 'Applications and APIs');
    await page.getByRole('button', { name: `Edit URLs of ${demo.name}`, exact: true }).click();
    await page.getByLabel('Callback URLs (one a line)').fill([...(demo.callbacks ?? []), addedCallback].join('\n'));
    await page.getByRole('button', { name: 'Save…' }).click();
    const urlsDialog = page.getByRole('dialog', { name: `Change the URLs of ${demo.name}?` });
    expect(await urlsDialog.textContent()).toContain(addedCallback);
    await urlsDialog.getByRole('button', { name: 'Save', exact: true }).click();
    await urlsDialog.waitFor({ state: 'detached' });
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    expect((await suite.api.call<{ callbacks: string[] }>('GET', `/clients/${suite.stack.tenant.demoClientId}`)).callbacks).toEqual([...(demo.callbacks ?? []), addedCallback]);

    // Logs: the live view shows an event that happens while it is open.
    await openScreen(page, 'Logs');
    await page.getByRole('checkbox', { name: /Live view/ }).check();
    expect(await start('+14155550199')).toBe(200);
    await page.getByTestId('logs-table').locator('tbody tr', { hasText: '***0199' }).first().waitFor();
    await shot(page, '44-logs-live');

    // Log streams: a paused stream is resumed after a confirmation.
    const sink = await CallbackServer.start();
    try {
      // Created in the console, after a confirmation naming where events will go.
      await openScreen(page, 'Log streams');
      await page.getByRole('button', { name: 'New log stream…' }).click();
      await page.getByLabel('Name', { exact: true }).fill('SIEM');
      await page.getByLabel('Endpoint URL (HTTP POST)').fill(sink.url('/events'));
      await page.getByLabel(/^Authorization header/).fill('Bearer siem-token-for-the-test');
      const streamViolations: Record<string, unknown> = {};
      for (const [name, viewport] of Object.entries(VIEWPORTS)) {
        await page.setViewportSize(viewport);
        await shot(page, `45a-new-log-stream-${viewport.width}`);
        const violations = await seriousAxeViolations(page);
        if (violations.length) streamViolations[name] = violations;
      }
      expect(streamViolations).toEqual({});
      await page.getByRole('button', { name: 'Create…' }).click();
      const createStream = page.getByRole('dialog', { name: 'Create the log stream SIEM?' });
      expect(await createStream.textContent()).toContain(`is sent to ${sink.url('/events')}`);
      expect(await createStream.textContent()).not.toContain('siem-token-for-the-test');
      await createStream.getByRole('button', { name: 'Create', exact: true }).click();
      await page.locator('tbody tr', { hasText: 'SIEM' }).waitFor();
      const streams = await suite.api.call<Array<{ id: string; name: string; sink: { httpEndpoint: string } }>>('GET', '/log-streams');
      expect(streams.map((s) => [s.name, s.sink.httpEndpoint])).toEqual([['SIEM', sink.url('/events')]]);
      const stream = streams[0]!;
      await suite.api.call('PATCH', `/log-streams/${stream.id}`, { status: 'paused' });
      await openScreen(page, 'Fraud guard');
      await openScreen(page, 'Log streams');
      const row = page.locator('tbody tr', { hasText: 'SIEM' });
      expect(await row.locator('td').first().textContent()).toBe('paused');
      await row.getByRole('button', { name: 'Resume SIEM' }).click();
      const resume = page.getByRole('dialog', { name: 'Resume SIEM?' });
      expect(await resume.textContent()).toContain('starts again from the first event it has not received');
      await resume.getByRole('button', { name: 'Resume', exact: true }).click();
      await row.getByRole('button', { name: 'Pause SIEM' }).waitFor();
      await shot(page, '45-log-stream-resumed');
      expect((await suite.api.call<{ status: string }>('GET', `/log-streams/${stream.id}`)).status).toBe('active');
      // Edited: a new endpoint, listed in the confirmation before it is saved.
      await row.getByRole('button', { name: 'Edit SIEM' }).click();
      await page.getByLabel('Endpoint URL (HTTP POST)').fill(sink.url('/siem'));
      await page.getByRole('button', { name: 'Save…' }).click();
      const editStream = page.getByRole('dialog', { name: 'Save 1 change(s) to SIEM?' });
      expect(await editStream.textContent()).toContain(`endpoint: ${sink.url('/siem')}`);
      await editStream.getByRole('button', { name: 'Save', exact: true }).click();
      await page.locator('tbody tr', { hasText: sink.url('/siem') }).waitFor();
      expect((await suite.api.call<{ sink: { httpEndpoint: string } }>('GET', `/log-streams/${stream.id}`)).sink.httpEndpoint).toBe(sink.url('/siem'));
      // Paused again from the console.
      await row.getByRole('button', { name: 'Pause SIEM' }).click();
      const pause = page.getByRole('dialog', { name: 'Pause SIEM?' });
      expect(await pause.textContent()).toContain('delivered on resume');
      await pause.getByRole('button', { name: 'Pause', exact: true }).click();
      await row.getByRole('button', { name: 'Resume SIEM' }).waitFor();
      expect((await suite.api.call<{ status: string }>('GET', `/log-streams/${stream.id}`)).status).toBe('paused');
      await suite.api.call('DELETE', `/log-streams/${stream.id}`);
    } finally {
      await sink.close();
    }

    // A user's page: give and take a role, revoke their sessions, delete them. The Viewer signs in
    // through the hosted login first (a browser of their own), so they hold a login session.
    const viewerPhone = '+14155550166';
    const viewerId = await createOperator(suite.api, suite.stack, viewerPhone, ['Viewer']);
    const viewerContext = await suite.browser.newContext({ viewport: VIEWPORTS.desktop });
    await signInToConsole(viewerContext, suite.stack, viewerPhone, SCREENSHOTS);
    await viewerContext.close();
    const viewerPath = `/users/${encodeURIComponent(viewerId)}`;
    const roleNames = async () => {
      const answer = await suite.api.call<{ roles: Array<{ name: string }> } | Array<{ name: string }>>('GET', `${viewerPath}/roles`);
      return (Array.isArray(answer) ? answer : answer.roles).map((r) => r.name).sort();
    };
    const sessionCount = async () => (await suite.api.call<{ sessions: unknown[] }>('GET', `${viewerPath}/sessions`)).sessions.length;
    expect(await sessionCount()).toBeGreaterThan(0);
    await openScreen(page, 'Find a login');
    await page.getByLabel('Phone number, name or user id').fill(viewerId);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByTestId('user-results').getByRole('link').first().click();
    const userRoles = page.getByTestId('user-roles');
    await userRoles.waitFor();
    await page.locator('.loading').first().waitFor({ state: 'detached' });
    await page.getByLabel('Role', { exact: true }).selectOption({ label: 'Support' });
    await page.getByRole('button', { name: 'Give the role…' }).click();
    const give = page.getByRole('dialog', { name: `Give ${viewerPhone} the role Support?` });
    expect(await give.textContent()).toContain('holds the permissions of Support');
    await give.getByRole('button', { name: 'Give Support' }).click();
    await give.waitFor({ state: 'detached' });
    await userRoles.getByRole('button', { name: 'Take the role Support' }).waitFor();
    expect(await roleNames()).toEqual(['Support', 'Viewer']);
    await userRoles.getByRole('button', { name: 'Take the role Support' }).click();
    const take = page.getByRole('dialog', { name: `Take the role Support from ${viewerPhone}?` });
    expect(await take.textContent()).toContain('no longer has the permissions of Support');
    await take.getByRole('button', { name: 'Take Support' }).click();
    await take.waitFor({ state: 'detached' });
    await userRoles.getByRole('button', { name: 'Take the role Support' }).waitFor({ state: 'detached' });
    expect(await roleNames()).toEqual(['Viewer']);
    await page.getByRole('button', { name: 'Revoke sessions…' }).click();
    const revoke = page.getByRole('dialog', { name: `Revoke every session of ${viewerPhone}?` });
    expect(await revoke.textContent()).toContain('signed out of the hosted login on every device');
    await revoke.getByRole('button', { name: 'Revoke the sessions' }).click();
    await page.getByRole('status').filter({ hasText: `The sessions of ${viewerPhone} are revoked.` }).waitFor();
    expect(await sessionCount()).toBe(0);
    await page.getByRole('button', { name: 'Delete…' }).click();
    const del = page.getByRole('dialog', { name: `Delete ${viewerPhone}?` });
    expect(await del.textContent()).toContain('deleted for good');
    await del.getByRole('button', { name: 'Delete the user' }).click();
    // Deleted: the console goes back to the search.
    await page.getByLabel('Phone number, name or user id').waitFor();
    await suite.api.call('GET', viewerPath, undefined, [404]);

    // Signing keys: a rotation (through the API) makes the key that signed every token so far the
    // previous one; the console signs in again (a reload: a token signed by the new current key)
    // and revokes the previous key after a confirmation saying its tokens stop verifying.
    const keysBefore = await suite.api.call<Array<{ kid: string; current?: boolean; next?: boolean }>>('GET', '/keys/signing');
    await openScreen(page, 'Signing keys');
    await page.getByRole('button', { name: 'Rotate the signing key…' }).click();
    const rotate = page.getByRole('dialog', { name: 'Rotate the signing key?' });
    await rotate.getByRole('button', { name: 'Rotate', exact: true }).click();
    await rotate.waitFor({ state: 'detached' });
    const rotatedApi = new ManagementClient(suite.stack.urls.authUrl, suite.stack.adminClientId, suite.stack.adminClientSecret);
    type KeyRecord = { kid: string; current?: boolean; next?: boolean; previous?: boolean; revoked?: boolean };
    const keysNow = await rotatedApi.call<KeyRecord[]>('GET', '/keys/signing');
    const previousKey = keysNow.find((k) => k.previous && !k.revoked)!;
    const currentKey = keysNow.find((k) => k.current)!;
    // The rotation: the key published as next signs now, the one that signed until then is previous.
    expect(currentKey.kid).toBe(keysBefore.find((k) => k.next)!.kid);
    expect(previousKey.kid).toBe(keysBefore.find((k) => k.current)!.kid);
    await openScreen(page, 'Signing keys');
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Signing keys', exact: true }).waitFor();
    const keyRows = page.getByTestId('signing-keys').locator('tbody tr');
    await keyRows.first().waitFor();
    // The current and the next key, which the API refuses to revoke, offer no Revoke button.
    for (const k of keysNow.filter((k) => k.current || k.next)) {
      expect(await keyRows.filter({ hasText: k.kid }).getByRole('button').count()).toBe(0);
    }
    await page.getByRole('button', { name: `Revoke… ${previousKey.kid}` }).click();
    const revokeKey = page.getByRole('dialog', { name: `Revoke the signing key ${previousKey.kid}?` });
    expect(await revokeKey.textContent()).toContain('every token it signed');
    expect(await revokeKey.textContent()).toContain('stops verifying');
    await shot(page, '46-revoke-key-confirm');
    await revokeKey.getByRole('button', { name: 'Revoke the key' }).click();
    await revokeKey.waitFor({ state: 'detached' });
    await keyRows.filter({ hasText: previousKey.kid }).locator('td:text-is("revoked")').waitFor();
    expect((await rotatedApi.call<KeyRecord>('GET', `/keys/signing/${previousKey.kid}`)).revoked).toBe(true);
    // A token the revoked key signed (the first management client's) no longer verifies.
    await expect(suite.api.call('GET', '/keys/signing')).rejects.toMatchObject({ status: 401 });
    // The API refuses revoking the current key: that is why the console never offers it.
    await rotatedApi.call('PUT', `/keys/signing/${currentKey.kid}/revoke`, undefined, [409]);

    await openScreen(page, 'Signing keys');
    // A reload empties the memory the tokens were in: identity's login session signs the operator in again, without an SMS.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Signing keys', exact: true }).waitFor();
    // The skip link is the first stop of the Tab key, and leads to the screen's content.
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Skip to content');
    await page.keyboard.press('Enter');
    expect(await page.evaluate<string>('document.activeElement.id')).toBe('main');
    await context.close();
  });
});
