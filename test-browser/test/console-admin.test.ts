import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { ManagementClient, readCodeFromOutbox } from '@smsauth/stack';
import { seriousAxeViolations } from '../src/accessibility';
import { CallbackServer } from '../src/callback-server';
import { describeWithChromium } from '../src/chromium';
import { createOperator, fullPageShot, openScreen, seededConnection, settledFocus, signInToConsole, startAsDemoClient, VIEWPORTS } from '../src/console';
import { useBrowserSuite } from '../src/stack';

// The Admin's walk through every screen, apart from console.test.ts (the other roles) so that
// neither file holds a jest worker for a minute.
const SCREENSHOTS = join(__dirname, '..', 'test-results', 'console');

describeWithChromium('the operator console in a real browser, as an Admin', () => {
  const suite = useBrowserSuite('smsauth-console-admin-', SCREENSHOTS);
  const connection = () => seededConnection(suite);
  const start = (phone: string) => startAsDemoClient(suite.stack, phone);
  const shot = (page: Page, name: string) => fullPageShot(page, SCREENSHOTS, name);

  it('Admin: axe-core finds no serious violation on any screen or dialog at 390 and 1280 px; Escape cancels and the skip link comes first; API errors keep their words; the template preview counts segments; the live log view shows a new event; a log stream is created, resumed, edited and paused; the safe list, fraud-guard mode, a test code, the rest of the SMS policy (a refusal shown as the API said it), a new connection with gateway authentication, the callbacks of a client, giving and taking a role, revoking sessions and deleting a user each change what the API answers; the signing key is rotated and the previous one revoked (the current one is never offered); a reload signs in again', async () => {
    const adminPhone = '+14155550164';
    await createOperator(suite.api, suite.stack, adminPhone, ['Admin']);
    // axe runs as an injected script, which the console's CSP forbids: this context bypasses it.
    const context = await suite.browser.newContext({ viewport: VIEWPORTS.desktop, bypassCSP: true });
    const page = await signInToConsole(context, suite.stack, adminPhone, SCREENSHOTS);
    const nav = page.getByRole('navigation', { name: 'Console' });
    await nav.waitFor();
    const screens = await nav.getByRole('link').allTextContents();
    expect(screens).toHaveLength(11);
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
    expect(backup.options.template).toBe('Your @@application.name@@ verification code is: @@password@@');
    expect(backup.options.gateway_url).toBe('https://sms-gateway.example.com/sms');
    expect(backup.options.gateway_authentication).toMatchObject({ method: 'bearer', subject: 'smsauth-identity', audience: 'sms-gateway' });
    expect(JSON.stringify(backup)).not.toContain('a-gateway-secret-for-the-test');

    // Applications: a client's callbacks edited on its page after a confirmation naming the new list.
    const demo = await suite.api.call<{ name: string; callbacks?: string[] }>('GET', `/clients/${suite.stack.tenant.demoClientId}`);
    const addedCallback = 'https://console-test.example/callback';
    await openScreen(page, 'Applications');
    await page.getByTestId('clients').getByRole('link', { name: demo.name, exact: true }).click();
    await page.getByRole('heading', { level: 1, name: demo.name, exact: true }).waitFor();
    await page.getByLabel('Callback URLs (one a line)').fill([...(demo.callbacks ?? []), addedCallback].join('\n'));
    await page.getByRole('button', { name: 'Save…' }).click();
    const urlsDialog = page.getByRole('dialog', { name: `Save 1 change(s) to ${demo.name}?` });
    expect(await urlsDialog.textContent()).toContain(addedCallback);
    await urlsDialog.getByRole('button', { name: 'Save', exact: true }).click();
    await urlsDialog.waitFor({ state: 'detached' });
    await page.getByRole('status').filter({ hasText: 'Saved: Callback URLs.' }).waitFor();
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
