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

  /**
   * One Admin signed in for the Admin tests (a sign-in is the slowest step), in a context that
   * lets axe run (the console's CSP forbids injected script). Each test empties `problems` once
   * it has checked them.
   */
  let admin: Promise<{ context: BrowserContext; page: Page; problems: string[] }> | undefined;
  async function signInAdmin(phone: string): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
    await createOperator(suite.api, suite.stack, phone, ['Admin']);
    const context = await suite.browser.newContext({ viewport: VIEWPORTS.desktop, bypassCSP: true });
    const page = await context.newPage();
    const problems = recordConsoleProblems(page, suite.stack);
    await signInToConsole(context, suite.stack, phone, SCREENSHOTS, page);
    await page.getByRole('navigation', { name: 'Console' }).waitFor();
    return { context, page, problems };
  }
  const signedInAdmin = () => (admin ??= signInAdmin('+14155550211'));
  afterAll(async () => (await admin)?.context.close().catch(() => undefined));

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

  it("Admin: finds an application in the list, and on its page gives it access to an API, edits its settings (a refusal in the API's words; logout URLs, token endpoint auth, refresh tokens read back), rotates its secret and deletes it; edits an API's scopes and RBAC; a built-in client and the management API offer no Delete", async () => {
    const { page, problems } = await signedInAdmin();
    const found: Record<string, unknown> = {};
    // Made through the API: the API the application gets access to, and a second application for the search to leave out.
    const identifier = 'https://flights.example.com/';
    const flights = await suite.api.call<{ id: string }>('POST', '/resource-servers', { name: 'Flights', identifier, scopes: [{ value: 'read:flights', description: 'Read flights' }, { value: 'book:flights' }] });
    const display = await suite.api.call<{ client_id: string }>('POST', '/clients', { name: 'Flight display', app_type: 'spa' });
    await openScreen(page, 'Applications');

    // A new machine-to-machine application: its secret is shown once, with a warning.
    await page.getByRole('button', { name: 'New application…' }).click();
    const clientForm = page.getByRole('form', { name: 'New application' });
    await clientForm.getByLabel('Name', { exact: true }).fill('Flight bot');
    await clientForm.getByLabel('Type').selectOption('non_interactive');
    await clientForm.getByRole('button', { name: 'Create…' }).click();
    const createClient = page.getByRole('dialog', { name: 'Create the application Flight bot?' });
    expect(await createClient.textContent()).toContain('Its client secret is shown once');
    await createClient.getByRole('button', { name: 'Create', exact: true }).click();
    const created = page.getByTestId('created-client');
    const secret = await created.getByLabel('Client secret of Flight bot').inputValue();
    expect(secret.length).toBeGreaterThan(20);
    const bot = (await suite.api.listClients()).find((c) => c.name === 'Flight bot')!;
    expect(JSON.stringify(await suite.api.call('GET', `/clients/${bot.client_id}`))).not.toContain(secret);
    await created.getByRole('button', { name: 'I have copied the secret' }).click();
    await created.waitFor({ state: 'detached' });
    expect(await page.content()).not.toContain(secret);

    // The list: no Delete in it; the search keeps the matching rows (by client id, then by name).
    const list = page.getByTestId('clients');
    await list.getByRole('link', { name: 'Flight bot', exact: true }).waitFor();
    expect(await list.getByRole('button').count()).toBe(0);
    const search = page.getByLabel('Search by name or client id');
    await search.fill(display.client_id);
    await list.getByRole('link', { name: 'Flight display', exact: true }).waitFor();
    expect(await list.locator('tbody tr').allTextContents()).toEqual([expect.stringContaining(display.client_id)]);
    await search.fill('flight b');
    await list.getByRole('link', { name: 'Flight bot', exact: true }).waitFor();
    expect(await list.locator('tbody tr').allTextContents()).toEqual([expect.stringContaining('Flight bot')]);
    expect(await page.getByRole('status').filter({ hasText: /^1 of \d+ applications match\.$/ }).count()).toBe(1);
    await axeAtBothWidths(page, '10-applications-search', found);
    await list.getByRole('link', { name: 'Flight bot', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Flight bot', exact: true }).waitFor();
    expect(page.url()).toContain(`#/applications/${bot.client_id}`);

    // Without a client grant the secret gets no token; with one given here, it does.
    const token = (clientSecret: string, basic = false) =>
      requestJson(`${suite.stack.urls.authUrl}/oauth/token`, {
        method: 'POST',
        ...(basic ? { headers: { authorization: `Basic ${Buffer.from(`${bot.client_id}:${clientSecret}`).toString('base64')}` } } : {}),
        json: { grant_type: 'client_credentials', audience: identifier, ...(basic ? {} : { client_id: bot.client_id, client_secret: clientSecret }) },
      });
    expect((await token(secret)).status).toBe(403);
    const access = page.getByRole('group', { name: 'API access of Flight bot' });
    await access.getByRole('button', { name: 'Give Flight bot access to an API…' }).click();
    await access.getByLabel('API', { exact: true }).selectOption({ label: `Flights (${identifier})` });
    await access.getByRole('checkbox', { name: /^read:flights/ }).check();
    await access.getByRole('button', { name: 'Give access…' }).click();
    await page.getByRole('dialog', { name: 'Give Flight bot access to Flights?' }).getByRole('button', { name: 'Give access', exact: true }).click();
    await access.getByTestId('client-grants').waitFor();
    expect((await token(secret)).status).toBe(200);

    // A grant type its type cannot have: refused in the API's words, nothing changes; undone.
    const settings = page.getByRole('form', { name: 'Settings of Flight bot' });
    await settings.getByRole('checkbox', { name: /^Authorization code/ }).check();
    await settings.getByRole('button', { name: 'Save…' }).click();
    const bad = page.getByRole('dialog', { name: 'Save 1 change(s) to Flight bot?' });
    expect(await bad.textContent()).toContain('Grant types: client_credentials → authorization_code, client_credentials');
    await bad.getByRole('button', { name: 'Save', exact: true }).click();
    const refusal = bad.getByRole('alert');
    await refusal.waitFor();
    const said = await suite.api.call<{ message?: string; error_description?: string }>('PATCH', `/clients/${bot.client_id}`, { grant_types: ['client_credentials', 'authorization_code'] }, [400]);
    expect(await refusal.textContent()).toContain(`${said.message ?? said.error_description} (HTTP 400, `);
    await bad.getByRole('button', { name: 'Cancel' }).click();
    await settings.getByRole('button', { name: 'Undo changes' }).click();

    // Several settings at once: the dialog lists each with its old and new value; the API then answers them.
    const logoutUrls = ['https://bot.example.com/signed-out', 'https://bot.example.com/'];
    await settings.getByLabel('Allowed logout URLs (one a line)').fill(logoutUrls.join('\n'));
    await settings.getByLabel('Token endpoint authentication').selectOption('client_secret_basic');
    await settings.getByLabel('Rotation', { exact: true }).selectOption('non-rotating');
    await settings.getByLabel(/^Idle lifetime in seconds/).fill('86400');
    await settings.getByLabel(/^Description/).fill('Books flights at night');
    await settings.getByRole('button', { name: 'Save…' }).click();
    const save = page.getByRole('dialog', { name: 'Save 5 change(s) to Flight bot?' });
    await save.getByTestId('changes').waitFor();
    const listed = await save.getByTestId('changes').locator('li').allTextContents();
    expect(listed).toEqual([
      'Description: (none) → Books flights at night',
      `Allowed logout URLs: (none) → ${logoutUrls.join(', ')}`,
      'Token endpoint authentication: client_secret_post → client_secret_basic',
      'Refresh-token rotation: rotating → non-rotating',
      'Refresh-token idle lifetime (seconds): 2592000 → 86400',
    ]);
    await axeAtBothWidths(page, '11-application-save-confirm', found);
    await save.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: /^Saved: Description, Allowed logout URLs/ }).waitFor();
    expect(await suite.api.call('GET', `/clients/${bot.client_id}`)).toMatchObject({
      description: 'Books flights at night',
      allowed_logout_urls: logoutUrls,
      token_endpoint_auth_method: 'client_secret_basic',
      grant_types: ['client_credentials'],
      refresh_token: { rotation_type: 'non-rotating', idle_token_lifetime: 86400, token_lifetime: 2592000 },
    });
    expect((await token(secret, true)).status).toBe(200);
    await axeAtBothWidths(page, '12-application-page', found);

    // A new secret, shown once: the old one stops working at once.
    await page.getByRole('button', { name: 'Rotate the secret of Flight bot…' }).click();
    const rotate = page.getByRole('dialog', { name: 'Rotate the client secret of Flight bot?' });
    expect(await rotate.textContent()).toContain('The old secret stops working at once');
    await rotate.getByRole('button', { name: 'Rotate the secret' }).click();
    const rotated = await page.getByTestId('rotated-secret').getByLabel('New client secret of Flight bot').inputValue();
    expect(rotated).not.toBe(secret);
    expect((await token(secret, true)).status).toBe(401);
    expect((await token(rotated, true)).status).toBe(200);
    await page.getByRole('button', { name: 'I have copied the secret' }).click();
    expect(await page.content()).not.toContain(rotated);

    // Deleted from its page: back to the list, its grants gone.
    await page.getByRole('button', { name: 'Delete Flight bot…' }).click();
    const remove = page.getByRole('dialog', { name: 'Delete the application Flight bot?' });
    expect(await remove.textContent()).toContain('its credentials stop working at once');
    await remove.getByRole('button', { name: 'Delete the application' }).click();
    await page.getByRole('heading', { level: 1, name: 'Applications', exact: true }).waitFor();
    await suite.api.call('GET', `/clients/${bot.client_id}`, undefined, [404]);
    expect(itemsOf(await suite.api.call('GET', `/client-grants?client_id=${bot.client_id}`), 'client_grants')).toEqual([]);

    // The bootstrap admin is built in: its page says so and offers no Delete (the API would answer 403).
    const adminClient = (await suite.api.listClients()).find((c) => (c as { built_in?: boolean }).built_in && c.app_type === 'non_interactive')!;
    await page.getByLabel('Search by name or client id').fill(adminClient.client_id);
    await list.getByRole('link', { name: adminClient.name, exact: true }).click();
    await page.getByTestId('built-in').waitFor();
    expect(await page.getByRole('button', { name: /^Delete/ }).count()).toBe(0);
    await suite.api.call('DELETE', `/clients/${adminClient.client_id}`, undefined, [403]);

    // An API's page: a scope added and one described again, RBAC on with permissions in the token, read back.
    await openScreen(page, 'APIs and roles');
    await page.getByTestId('apis').getByRole('link', { name: 'Flights', exact: true }).click();
    const apiSettings = page.getByRole('form', { name: 'Settings of Flights' });
    await apiSettings.getByLabel(/^Scopes/).fill('read:flights Read every flight\nbook:flights\ncancel:flights Cancel a booking');
    await apiSettings.getByRole('checkbox', { name: /^RBAC/ }).check();
    await apiSettings.getByLabel('Token dialect').selectOption('access_token_authz');
    await apiSettings.getByRole('button', { name: 'Save…' }).click();
    const saveApi = page.getByRole('dialog', { name: 'Save 4 change(s) to Flights?' });
    await saveApi.getByTestId('changes').waitFor();
    expect(await saveApi.getByTestId('changes').locator('li').allTextContents()).toEqual([
      'Description of read:flights: Read flights → Read every flight',
      'Scope cancel:flights: (none) → added: Cancel a booking',
      'RBAC (enforce policies): off → on',
      'Token dialect: access_token → access_token_authz',
    ]);
    await saveApi.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: /^Saved: / }).waitFor();
    expect(await suite.api.call('GET', `/resource-servers/${flights.id}`)).toMatchObject({
      scopes: [
        { value: 'read:flights', description: 'Read every flight' },
        { value: 'book:flights', description: '' },
        { value: 'cancel:flights', description: 'Cancel a booking' },
      ],
      enforce_policies: true,
      token_dialect: 'access_token_authz',
    });
    await axeAtBothWidths(page, '13-api-page', found);
    await page.getByRole('button', { name: 'Delete Flights…' }).click();
    await page.getByRole('dialog', { name: 'Delete the API Flights?' }).getByRole('button', { name: 'Delete the API' }).click();
    await page.getByRole('heading', { level: 1, name: 'APIs and roles', exact: true }).waitFor();
    await suite.api.call('GET', `/resource-servers/${flights.id}`, undefined, [404]);

    // The management API: built in, no Delete, its name and scopes not editable.
    await page.getByTestId('apis').getByRole('link').filter({ hasText: /management/i }).first().click();
    await page.getByTestId('built-in').waitFor();
    expect(await page.getByRole('button', { name: /^Delete/ }).count()).toBe(0);
    expect(await page.getByLabel(/^Scopes/).isDisabled()).toBe(true);

    expect(found).toEqual({});
    // The one error the browser logged: the refused grant types (shown in the dialog).
    expect(problems).toEqual([expect.stringContaining(`/api/v2/clients/${bot.client_id}: Failed to load resource: the server responded with a status of 400`)]);
    problems.length = 0;
  });

  it('Admin: creates a role, gives and takes its permissions, gives it to a user whose permissions then show them, and deletes it; built-in roles offer no Delete', async () => {
    const { page, problems } = await signedInAdmin();
    const found: Record<string, unknown> = {};
    const management = (await suite.api.listResourceServers()).find((r) => (r as { is_system?: boolean }).is_system)!;
    await openScreen(page, 'APIs and roles');
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

    // Its description changed: the dialog lists the change; the API answers it.
    await auditor.getByRole('button', { name: 'Rename or describe Auditor…' }).click();
    await auditor.getByLabel('Description', { exact: true }).fill('Reads the tenant logs and stats');
    await auditor.getByRole('button', { name: 'Save…' }).click();
    const rename = page.getByRole('dialog', { name: 'Save 1 change(s) to the role Auditor?' });
    expect(await rename.textContent()).toContain('Description: Reads the tenant logs → Reads the tenant logs and stats');
    await rename.getByRole('button', { name: 'Save', exact: true }).click();
    await auditor.getByText('Reads the tenant logs and stats').waitFor();
    expect((await suite.api.call<{ description: string }>('GET', rolePath)).description).toBe('Reads the tenant logs and stats');
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
    await openScreen(page, 'APIs and roles');
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
  });

  it('Admin: edits a log stream\'s content format and type and removes its Authorization header (the next delivery shows each), then deletes it', async () => {
    const sink = await LogSink.start();
    try {
      const stream = await suite.api.call<{ id: string }>('POST', '/log-streams', {
        name: 'SIEM',
        type: 'http',
        sink: { httpEndpoint: sink.url('/events'), httpAuthorization: 'Bearer siem-token-for-the-test' },
      });
      const { page, problems } = await signedInAdmin();
      const found: Record<string, unknown> = {};
      // An event after the stream's creation (the Admin signed in before it), delivered as JSON lines with the header.
      await suite.api.call('PATCH', `/clients/${suite.stack.tenant.demoClientId}`, { description: 'Before the stream change' });
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
    const changing = /^(New|Create|Delete|Edit|Change|Give|Remove|Save|Pause|Resume|Rename|Rotate|Undo)/;
    await openScreen(page, 'Applications');
    await page.getByTestId('clients').getByRole('link').first().click();
    await page.getByRole('form', { name: /^Settings of / }).waitFor();
    await page.locator('.loading').first().waitFor({ state: 'detached' });
    expect((await page.locator('main button').allTextContents()).filter((label) => changing.test(label.trim()))).toEqual([]);
    expect(await page.getByLabel('Allowed logout URLs (one a line)').isDisabled()).toBe(true);
    await openScreen(page, 'APIs and roles');
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
