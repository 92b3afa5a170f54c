import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { requestJson } from '@smsauth/stack';
import { seriousAxeViolations } from '../src/accessibility';
import { describeWithChromium } from '../src/chromium';
import { createOperator, openScreen, recordConsoleProblems, settledFocus, signInToConsole, VIEWPORTS } from '../src/console';
import { useBrowserSuite } from '../src/stack';

const SCREENSHOTS = join(__dirname, '..', 'test-results', 'console-applications');

/** A log stream's receiver: every delivery's headers and body, and a way to wait for one that matches. */
class LogSink {
  readonly deliveries: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  private waiters: Array<{ match: (d: LogSink['deliveries'][number]) => boolean; resolve: (d: LogSink['deliveries'][number]) => void }> = [];

  private constructor(private readonly server: Server) {}

  static async start(): Promise<LogSink> {
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        res.writeHead(200).end();
        sink.received({ headers: req.headers, body });
      });
    });
    const sink = new LogSink(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return sink;
  }

  private received(delivery: LogSink['deliveries'][number]): void {
    this.deliveries.push(delivery);
    for (const waiter of this.waiters.filter((w) => w.match(delivery))) {
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      waiter.resolve(delivery);
    }
  }

  /** The first delivery (already received or to come) that matches. */
  next(match: (d: LogSink['deliveries'][number]) => boolean): Promise<LogSink['deliveries'][number]> {
    const seen = this.deliveries.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }

  url(path: string): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** A list answer, bare or in its `{<plural>: [...]}` envelope. */
const itemsOf = <T>(answer: unknown, plural: string): T[] => (Array.isArray(answer) ? answer : ((answer as Record<string, T[]>)[plural] ?? [])) as T[];

describeWithChromium('the operator console: applications, APIs, roles and log streams', () => {
  const suite = useBrowserSuite('smsauth-console-apps-', SCREENSHOTS);

  async function shot(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  }

  /** An Admin signed in, in a context that lets axe run (the console's CSP forbids injected script). */
  async function signInAdmin(phone: string): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
    await createOperator(suite.api, suite.stack, phone, ['Admin']);
    const context = await suite.browser.newContext({ viewport: VIEWPORTS.desktop, bypassCSP: true });
    const page = await context.newPage();
    const problems = recordConsoleProblems(page, suite.stack);
    await signInToConsole(context, suite.stack, phone, SCREENSHOTS, page);
    await page.getByRole('navigation', { name: 'Console' }).waitFor();
    return { context, page, problems };
  }

  /** axe-core at both widths on the page as it is now; serious violations by name, and a screenshot of each. */
  async function axeAtBothWidths(page: Page, name: string, found: Record<string, unknown>): Promise<void> {
    for (const [width, viewport] of Object.entries(VIEWPORTS)) {
      await page.setViewportSize(viewport);
      await shot(page, `${name}-${viewport.width}`);
      const violations = await seriousAxeViolations(page);
      if (violations.length) found[`${name} (${width})`] = violations;
      const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
      if (overflow > 0) found[`${name} (${width}) overflow`] = overflow;
    }
    await page.setViewportSize(VIEWPORTS.desktop);
  }

  it('Admin: creates an API and a machine-to-machine application whose secret, shown once, gets tokens once the console gives it access to the API; changes its scopes and grant types (a refusal in the API\'s words); deletes the application and the API', async () => {
    const { context, page, problems } = await signInAdmin('+14155550211');
    const found: Record<string, unknown> = {};
    await openScreen(page, 'Applications and APIs');

    // A new API, after a confirmation naming its audience.
    const identifier = 'https://flights.example.com/';
    await page.getByRole('button', { name: 'New API…' }).click();
    const apiForm = page.getByRole('form', { name: 'New API' });
    await apiForm.getByLabel('Name', { exact: true }).fill('Flights');
    await apiForm.getByLabel(/^Identifier/).fill(identifier);
    await apiForm.getByLabel(/^Scopes/).fill('read:flights Read flights\nbook:flights Book a flight');
    await axeAtBothWidths(page, '10-new-api', found);
    await apiForm.getByRole('button', { name: 'Create…' }).click();
    const createApi = page.getByRole('dialog', { name: 'Create the API Flights?' });
    expect(await createApi.textContent()).toContain(`tokens whose audience is ${identifier}`);
    await createApi.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByTestId('apis').locator('tbody tr', { hasText: identifier }).waitFor();
    const flights = (await suite.api.listResourceServers()).find((r) => r.identifier === identifier) as { id: string; name: string; scopes: Array<{ value: string; description: string }> } | undefined;
    expect(flights).toMatchObject({ name: 'Flights', scopes: [{ value: 'read:flights', description: 'Read flights' }, { value: 'book:flights', description: 'Book a flight' }] });

    // A new machine-to-machine application: its secret is shown once, with a warning.
    await page.getByRole('button', { name: 'New application…' }).click();
    const clientForm = page.getByRole('form', { name: 'New application' });
    await clientForm.getByLabel('Name', { exact: true }).fill('Flight bot');
    await clientForm.getByLabel('Type').selectOption('non_interactive');
    await axeAtBothWidths(page, '11-new-application', found);
    await clientForm.getByRole('button', { name: 'Create…' }).click();
    const createClient = page.getByRole('dialog', { name: 'Create the application Flight bot?' });
    expect(await createClient.textContent()).toContain('Its client secret is shown once');
    await createClient.getByRole('button', { name: 'Create', exact: true }).click();
    const created = page.getByTestId('created-client');
    await created.waitFor();
    expect(await created.getByRole('alert').textContent()).toContain('Copy the client secret now: it is shown this once.');
    const secret = await created.getByLabel('Client secret of Flight bot').inputValue();
    expect(secret.length).toBeGreaterThan(20);
    await axeAtBothWidths(page, '12-client-secret-shown-once', found);
    const bot = (await suite.api.listClients()).find((c) => c.name === 'Flight bot')!;
    expect(bot).toMatchObject({ app_type: 'non_interactive', grant_types: ['client_credentials'] });
    // The API never answers the secret again; the console forgets it once dismissed.
    expect(JSON.stringify(await suite.api.call('GET', `/clients/${bot.client_id}`))).not.toContain(secret);
    await created.getByRole('button', { name: 'I have copied the secret' }).click();
    await created.waitFor({ state: 'detached' });
    expect(await page.content()).not.toContain(secret);

    // Without a client grant the secret gets no token for the API.
    const token = () =>
      requestJson(`${suite.stack.urls.authUrl}/oauth/token`, {
        method: 'POST',
        json: { grant_type: 'client_credentials', client_id: bot.client_id, client_secret: secret, audience: identifier },
      });
    expect((await token()).status).toBe(403);

    // Access to the API (a client grant), given in the console.
    const card = page.getByRole('region', { name: 'Flight bot', exact: true });
    await card.getByRole('button', { name: 'Give Flight bot access to an API…' }).click();
    await card.getByLabel('API', { exact: true }).selectOption({ label: `Flights (${identifier})` });
    await card.getByRole('checkbox', { name: /^read:flights/ }).check();
    await card.getByRole('button', { name: 'Give access…' }).click();
    const give = page.getByRole('dialog', { name: 'Give Flight bot access to Flights?' });
    expect(await give.textContent()).toContain('with the scopes read:flights');
    await give.getByRole('button', { name: 'Give access', exact: true }).click();
    await card.getByTestId('client-grants').waitFor();
    const grantsOf = async () => itemsOf<{ id: string; audience: string; scope: string[] }>(await suite.api.call('GET', `/client-grants?client_id=${bot.client_id}`), 'client_grants');
    expect((await grantsOf()).map((g) => [g.audience, g.scope])).toEqual([[identifier, ['read:flights']]]);
    const issued = await token();
    expect(issued.status).toBe(200);
    expect((issued.body as { scope: string }).scope).toBe('read:flights');

    // Its scopes changed: the confirmation says what is added.
    await card.getByRole('button', { name: 'Change scopes for Flights' }).click();
    await card.getByRole('checkbox', { name: /^book:flights/ }).check();
    await card.getByRole('button', { name: 'Save…' }).click();
    const change = page.getByRole('dialog', { name: 'Change the scopes of Flight bot for Flights?' });
    expect(await change.textContent()).toContain('Added: book:flights. Taken away: none');
    await axeAtBothWidths(page, '13-change-grant-confirm', found);
    await change.getByRole('button', { name: 'Save', exact: true }).click();
    await change.waitFor({ state: 'detached' });
    await card.getByTestId('client-grants').filter({ hasText: 'read:flights book:flights' }).waitFor();
    expect((await grantsOf())[0]!.scope).toEqual(['read:flights', 'book:flights']);

    // Grant types: one the type cannot have is refused in the API's words, and nothing changes; an allowed one is saved.
    await card.getByRole('button', { name: 'Change grant types of Flight bot' }).click();
    await card.getByRole('checkbox', { name: /^Authorization code/ }).check();
    await axeAtBothWidths(page, '14-grant-types', found);
    await card.getByRole('button', { name: 'Save…' }).click();
    const badTypes = page.getByRole('dialog', { name: 'Change the grant types of Flight bot?' });
    expect(await badTypes.textContent()).toContain('Allowed from now on: Authorization code');
    await badTypes.getByRole('button', { name: 'Save', exact: true }).click();
    const refusal = badTypes.getByRole('alert');
    await refusal.waitFor();
    const said = await suite.api.call<{ message?: string; error_description?: string }>('PATCH', `/clients/${bot.client_id}`, { grant_types: ['client_credentials', 'authorization_code'] }, [400]);
    expect(await refusal.textContent()).toContain(`${said.message ?? said.error_description} (HTTP 400, `);
    await badTypes.getByRole('button', { name: 'Cancel' }).click();
    expect((await suite.api.call<{ grant_types: string[] }>('GET', `/clients/${bot.client_id}`)).grant_types).toEqual(['client_credentials']);
    await card.getByRole('checkbox', { name: /^Authorization code/ }).uncheck();
    await card.getByRole('checkbox', { name: /^Refresh token/ }).check();
    await card.getByRole('button', { name: 'Save…' }).click();
    const types = page.getByRole('dialog', { name: 'Change the grant types of Flight bot?' });
    await types.getByRole('button', { name: 'Save', exact: true }).click();
    await card.getByRole('status').filter({ hasText: 'Grant types saved.' }).waitFor();
    expect((await suite.api.call<{ grant_types: string[] }>('GET', `/clients/${bot.client_id}`)).grant_types).toEqual(['refresh_token', 'client_credentials']);

    // Deleted, after a confirmation saying what goes with it.
    await card.getByRole('button', { name: 'Delete Flight bot…' }).click();
    const deleteClient = page.getByRole('dialog', { name: 'Delete the application Flight bot?' });
    const deleteText = await deleteClient.textContent();
    expect(deleteText).toContain('its credentials stop working at once');
    expect(deleteText).toContain('Access tokens it already holds stay valid until they expire');
    await axeAtBothWidths(page, '15-delete-application-confirm', found);
    await deleteClient.getByRole('button', { name: 'Delete the application' }).click();
    await card.waitFor({ state: 'detached' });
    await suite.api.call('GET', `/clients/${bot.client_id}`, undefined, [404]);
    expect(await grantsOf()).toEqual([]);
    expect((await token()).status).toBe(401);

    // The API too; the management API offers no Delete.
    const apisTable = page.getByTestId('apis');
    expect(await apisTable.locator('tbody tr', { hasText: 'management API' }).getByRole('button').count()).toBe(0);
    await apisTable.getByRole('button', { name: 'Delete Flights…' }).click();
    const deleteApi = page.getByRole('dialog', { name: 'Delete the API Flights?' });
    expect(await deleteApi.textContent()).toContain(`identity issues no more tokens for ${identifier}`);
    await deleteApi.getByRole('button', { name: 'Delete the API' }).click();
    await apisTable.locator('tbody tr', { hasText: identifier }).waitFor({ state: 'detached' });
    await suite.api.call('GET', `/resource-servers/${flights!.id}`, undefined, [404]);

    expect(found).toEqual({});
    // The one error the browser logged: the refused grant types (shown in the dialog).
    expect(problems).toEqual([expect.stringContaining(`/api/v2/clients/${bot.client_id}: Failed to load resource: the server responded with a status of 400`)]);
    await context.close();
  });

  it('Admin: creates a role, gives and takes its permissions, gives it to a user whose permissions then show them, and deletes it; built-in roles offer no Delete', async () => {
    const { context, page, problems } = await signInAdmin('+14155550212');
    const found: Record<string, unknown> = {};
    const management = (await suite.api.listResourceServers()).find((r) => (r as { is_system?: boolean }).is_system)!;
    await openScreen(page, 'Applications and APIs');
    const roles = page.getByRole('region', { name: 'Roles', exact: true });
    for (const builtIn of ['Admin', 'Support', 'Viewer']) {
      await roles.getByRole('region', { name: new RegExp(`^${builtIn}`) }).waitFor();
      expect(await roles.getByRole('button', { name: `Delete ${builtIn}…` }).count()).toBe(0);
    }

    await roles.getByRole('button', { name: 'New role…' }).click();
    const form = roles.getByRole('form', { name: 'New role' });
    // The form opened by a button starts at its first field (the button is gone). The form moves
    // the focus in an effect, after it is drawn: wait for that rather than read it at once.
    expect(await settledFocus(page, 'id', 'role-name')).toBe('role-name');
    await form.getByLabel('Name', { exact: true }).fill('Auditor');
    await form.getByLabel(/^Description/).fill('Reads the tenant logs');
    await axeAtBothWidths(page, '20-new-role', found);
    await form.getByRole('button', { name: 'Create…' }).click();
    const create = page.getByRole('dialog', { name: 'Create the role Auditor?' });
    await create.getByRole('button', { name: 'Create', exact: true }).click();
    const auditor = roles.getByRole('region', { name: 'Auditor', exact: true });
    await auditor.getByText('No permission.').waitFor();
    const role = itemsOf<{ id: string; name: string; description: string }>(await suite.api.call('GET', '/roles?name_filter=Auditor'), 'roles');
    expect(role.map((r) => [r.name, r.description])).toEqual([['Auditor', 'Reads the tenant logs']]);
    const rolePath = `/roles/${role[0]!.id}`;
    const permissionsOf = async (path: string) =>
      itemsOf<{ resource_server_identifier: string; permission_name: string }>(await suite.api.call('GET', `${path}/permissions`), 'permissions')
        .map((p) => `${p.resource_server_identifier} ${p.permission_name}`)
        .sort();

    // Two management permissions given.
    await auditor.getByRole('button', { name: 'Edit permissions of Auditor…' }).click();
    await auditor.getByLabel('API', { exact: true }).selectOption(management.identifier);
    await auditor.getByRole('checkbox', { name: /^read:logs( |$)/ }).check();
    await auditor.getByRole('checkbox', { name: /^read:stats( |$)/ }).check();
    await axeAtBothWidths(page, '21-role-permissions', found);
    await auditor.getByRole('button', { name: 'Save…' }).click();
    const give = page.getByRole('dialog', { name: `Change the permissions of Auditor on ${management.name}?` });
    expect(await give.textContent()).toContain('Given: read:logs read:stats');
    await give.getByRole('button', { name: 'Save', exact: true }).click();
    await auditor.getByTestId('role-permissions').filter({ hasText: 'read:logs read:stats' }).waitFor();
    expect(await permissionsOf(rolePath)).toEqual([`${management.identifier} read:logs`, `${management.identifier} read:stats`]);

    // One taken away again.
    await auditor.getByRole('button', { name: 'Edit permissions of Auditor…' }).click();
    await auditor.getByLabel('API', { exact: true }).selectOption(management.identifier);
    await auditor.getByRole('checkbox', { name: /^read:stats( |$)/ }).uncheck();
    await auditor.getByRole('button', { name: 'Save…' }).click();
    const take = page.getByRole('dialog', { name: `Change the permissions of Auditor on ${management.name}?` });
    expect(await take.textContent()).toContain('Taken away: read:stats');
    await take.getByRole('button', { name: 'Save', exact: true }).click();
    await auditor.getByRole('status').filter({ hasText: 'Permissions saved.' }).waitFor();
    expect(await permissionsOf(rolePath)).toEqual([`${management.identifier} read:logs`]);

    // Given to a user on their page: the user's permissions (through the API) then come from it.
    const userId = await createOperator(suite.api, suite.stack, '+14155550213', []);
    await openScreen(page, 'Find a login');
    await page.getByLabel('Phone number, name or user id').fill(userId);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByTestId('user-results').getByRole('link').first().click();
    await page.locator('.loading').first().waitFor({ state: 'detached' });
    await page.getByLabel('Role', { exact: true }).selectOption({ label: 'Auditor' });
    await page.getByRole('button', { name: 'Give the role…' }).click();
    await page.getByRole('dialog', { name: 'Give +14155550213 the role Auditor?' }).getByRole('button', { name: 'Give Auditor' }).click();
    await page.getByTestId('user-roles').getByRole('button', { name: 'Take the role Auditor' }).waitFor();
    const userPath = `/users/${encodeURIComponent(userId)}`;
    const userPermissions = itemsOf<{ permission_name: string; sources: Array<{ source_name: string; source_type: string }> }>(await suite.api.call('GET', `${userPath}/permissions`), 'permissions');
    expect(userPermissions.map((p) => [p.permission_name, p.sources.map((s) => `${s.source_type} ${s.source_name}`)])).toEqual([['read:logs', ['ROLE Auditor']]]);

    // Deleted: the user loses its permissions.
    await openScreen(page, 'Applications and APIs');
    await auditor.getByRole('button', { name: 'Delete Auditor…' }).click();
    const remove = page.getByRole('dialog', { name: 'Delete the role Auditor?' });
    expect(await remove.textContent()).toContain('the users holding it lose its permissions from their next token');
    await axeAtBothWidths(page, '22-delete-role-confirm', found);
    await remove.getByRole('button', { name: 'Delete the role' }).click();
    await auditor.waitFor({ state: 'detached' });
    await suite.api.call('GET', rolePath, undefined, [404]);
    expect(await permissionsOf(userPath)).toEqual([]);

    expect(found).toEqual({});
    expect(problems).toEqual([]);
    await context.close();
  });

  it('Admin: edits a log stream\'s content format and type and removes its Authorization header (the next delivery shows each), then deletes it', async () => {
    const sink = await LogSink.start();
    try {
      const stream = await suite.api.call<{ id: string }>('POST', '/log-streams', {
        name: 'SIEM',
        type: 'http',
        sink: { httpEndpoint: sink.url('/events'), httpAuthorization: 'Bearer siem-token-for-the-test' },
      });
      const { context, page, problems } = await signInAdmin('+14155550214');
      const found: Record<string, unknown> = {};
      // Deliveries so far: JSON lines with the header.
      const first = await sink.next(() => true);
      expect(first.headers.authorization).toBe('Bearer siem-token-for-the-test');
      expect(first.headers['content-type']).toBe('application/json');

      await openScreen(page, 'Log streams');
      const row = page.locator('tbody tr', { hasText: 'SIEM' });
      expect(await row.textContent()).toContain('JSONLINES, application/json');
      await row.getByRole('button', { name: 'Edit SIEM' }).click();
      await page.getByLabel('Content format').selectOption('JSONARRAY');
      await page.getByLabel(/^Content type/).fill('application/json; charset=utf-8');
      await page.getByRole('checkbox', { name: /^Remove the Authorization header/ }).check();
      expect(await page.getByLabel(/^Authorization header/).isDisabled()).toBe(true);
      await axeAtBothWidths(page, '30-edit-log-stream', found);
      await page.getByRole('button', { name: 'Save…' }).click();
      const save = page.getByRole('dialog', { name: 'Save 3 change(s) to SIEM?' });
      const listed = await save.textContent();
      expect(listed).toContain('content format: JSONARRAY');
      expect(listed).toContain('content type: application/json; charset=utf-8');
      expect(listed).toContain('Authorization header: removed');
      await save.getByRole('button', { name: 'Save', exact: true }).click();
      await row.filter({ hasText: 'JSONARRAY, application/json; charset=utf-8' }).waitFor();
      expect((await suite.api.call<{ sink: Record<string, string> }>('GET', `/log-streams/${stream.id}`)).sink).toMatchObject({
        httpContentFormat: 'JSONARRAY',
        httpContentType: 'application/json; charset=utf-8',
      });
      // A delivery of an event recorded after the change (a role created through the API): one
      // array, the new content type, no Authorization header.
      await suite.api.call('POST', '/roles', { name: 'After the stream change' });
      const next = await sink.next((d) => d.body.includes('Create a role'));
      expect(next.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(next.headers.authorization).toBeUndefined();
      expect(Array.isArray(JSON.parse(next.body))).toBe(true);

      // Deleted after a confirmation saying what is lost.
      await openScreen(page, 'Log streams');
      await row.getByRole('button', { name: 'Delete SIEM…' }).click();
      const remove = page.getByRole('dialog', { name: 'Delete the log stream SIEM?' });
      expect(await remove.textContent()).toContain('events not delivered yet are never sent to it');
      await axeAtBothWidths(page, '31-delete-log-stream-confirm', found);
      await remove.getByRole('button', { name: 'Delete the stream' }).click();
      await page.getByText('No log stream: create one to send tenant logs to a SIEM.').waitFor();
      await suite.api.call('GET', `/log-streams/${stream.id}`, undefined, [404]);
      expect(await suite.api.call('GET', '/log-streams')).toEqual([]);

      expect(found).toEqual({});
      expect(problems).toEqual([]);
      await context.close();
    } finally {
      await sink.close();
    }
  });

  it('Viewer: sees applications, APIs, roles and log streams with no button that creates, changes or deletes any of them', async () => {
    await suite.api.call('POST', '/log-streams', { name: 'Viewer stream', type: 'http', sink: { httpEndpoint: 'https://siem.example.com/events' } });
    const phone = '+14155550215';
    await createOperator(suite.api, suite.stack, phone, ['Viewer']);
    const context = await suite.browser.newContext({ viewport: VIEWPORTS.desktop });
    const page = await context.newPage();
    const problems = recordConsoleProblems(page, suite.stack);
    await signInToConsole(context, suite.stack, phone, SCREENSHOTS, page);
    const changing = /^(New|Create|Delete|Edit|Change|Give|Remove|Save|Pause|Resume)/;
    await openScreen(page, 'Applications and APIs');
    await page.getByRole('region', { name: 'Roles', exact: true }).getByRole('region', { name: /^Viewer/ }).getByText('read:users').first().waitFor();
    await page.locator('.loading').first().waitFor({ state: 'detached' });
    await shot(page, '40-viewer-applications');
    expect((await page.locator('main button').allTextContents()).filter((label) => changing.test(label.trim()))).toEqual([]);
    await openScreen(page, 'Log streams');
    await page.locator('tbody tr', { hasText: 'Viewer stream' }).waitFor();
    await shot(page, '41-viewer-log-streams');
    expect((await page.locator('main button').allTextContents()).filter((label) => changing.test(label.trim()))).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
