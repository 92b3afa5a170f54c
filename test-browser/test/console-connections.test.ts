import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { seriousAxeViolations } from '../src/accessibility';
import { describeWithChromium } from '../src/chromium';
import { createOperator, recordConsoleProblems, settledFocus, signInToConsole, VIEWPORTS } from '../src/console';
import { useBrowserSuite } from '../src/stack';

const SCREENSHOTS = join(__dirname, '..', 'test-results', 'console');
/** The connection the Admin edits and deletes (the operator signs in through the seeded one, untouched). */
const EDITED = 'edit-me';
const FIRST_SECRET = 'the-first-gateway-secret';
const SECOND_SECRET = 'the-second-gateway-secret';

interface ConnectionRecord {
  id: string;
  name: string;
  enabled_clients: string[];
  options: Record<string, unknown>;
}

describeWithChromium("the operator console's connection page: an Admin edits every setting of a connection and deletes it", () => {
  const suite = useBrowserSuite('smsauth-console-connections-', SCREENSHOTS);
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  let connectionId: string;

  beforeAll(async () => {
    const created = await suite.api.createConnection({
      options: {
        name: EDITED,
        strategy: 'sms',
        gateway_url: 'https://sms-gateway.example.com/sms',
        template: 'Your code is @@password@@',
        gateway_authentication: { method: 'bearer', subject: 'identity-1', audience: 'gateway-1', secret: FIRST_SECRET },
      },
      enabled_clients: [],
    });
    connectionId = created.id;
    const adminPhone = '+14155550181';
    await createOperator(suite.api, suite.stack, adminPhone, ['Admin']);
    // axe runs as an injected script, which the console's CSP forbids: this context bypasses it.
    context = await suite.browser.newContext({ viewport: VIEWPORTS.desktop, bypassCSP: true });
    page = await context.newPage();
    problems = recordConsoleProblems(page, suite.stack);
    await signInToConsole(context, suite.stack, adminPhone, SCREENSHOTS, page);
  });

  afterAll(async () => {
    await context?.close();
  });

  const stored = () => suite.api.call<ConnectionRecord>('GET', `/connections/${connectionId}`);

  async function shot(name: string): Promise<void> {
    await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  }

  /** Opens the edited connection's page from the Connections screen, as an operator would. */
  async function openConnection(): Promise<void> {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Connections', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Connections', exact: true }).waitFor();
    await page.getByRole('link', { name: EDITED, exact: true }).click();
    await page.getByRole('heading', { level: 1, name: EDITED, exact: true }).waitFor();
    await page.locator('.loading').first().waitFor({ state: 'detached' });
  }

  /** The refusal the API gives this PATCH itself: what the console must show, word for word. */
  async function refusalOf(body: unknown): Promise<string> {
    const said = await suite.api.call<{ error_description: string }>('PATCH', `/connections/${connectionId}`, body, [400]);
    return said.error_description;
  }

  /** Submits a part of the page with its button and answers the confirmation dialog that opens. */
  async function submit(button: string, title: string | RegExp) {
    await page.getByRole('button', { name: button, exact: true }).click();
    const dialog = page.getByRole('dialog', { name: title });
    await dialog.waitFor();
    // Cancel is focused first: Enter on a confirmation never applies it by accident.
    expect(await settledFocus(page, 'textContent', 'Cancel')).toBe('Cancel');
    return dialog;
  }

  it('changes the gateway URL and its bearer-token authentication after a confirmation that says what changes; a refused URL shows the API’s words beside the field; the secret is never shown back', async () => {
    await openConnection();
    const url = page.getByLabel('Gateway URL', { exact: true });
    expect(await url.inputValue()).toBe('https://sms-gateway.example.com/sms');
    expect(await page.getByLabel('Token subject').inputValue()).toBe('identity-1');
    expect(await page.getByLabel(/secret/i).first().inputValue()).toBe('');
    expect(await page.content()).not.toContain(FIRST_SECRET);

    // A URL the API refuses: its words, in the dialog and beside the field; nothing changes.
    await url.fill('ftp://sms-gateway.example.com/sms');
    const expected = await refusalOf({ options: { gateway_url: 'ftp://sms-gateway.example.com/sms' } });
    const refused = await submit('Save delivery settings…', `Change where and how ${EDITED} delivers codes?`);
    await refused.getByRole('button', { name: 'Apply' }).click();
    await refused.getByRole('alert').waitFor();
    expect(await refused.getByRole('alert').textContent()).toContain(expected);
    await refused.getByRole('button', { name: 'Cancel' }).click();
    await refused.waitFor({ state: 'detached' });
    expect(await page.locator('#gateway-url-error').textContent()).toBe(expected);
    expect(await url.getAttribute('aria-invalid')).toBe('true');
    expect(await url.getAttribute('aria-describedby')).toBe('gateway-url-error');
    await shot('60-connection-gateway-refused');
    expect((await stored()).options.gateway_url).toBe('https://sms-gateway.example.com/sms');

    // A new URL, subject and secret: the dialog names each, never the secret.
    await url.fill('https://sms-gateway-2.example.com/sms');
    await page.getByLabel('Token subject').fill('identity-2');
    await page.getByLabel(/^New signing secret/).fill(SECOND_SECRET);
    const change = await submit('Save delivery settings…', `Change where and how ${EDITED} delivers codes?`);
    const said = await change.textContent();
    expect(said).toContain('From the next start, codes go to https://sms-gateway-2.example.com/sms instead of https://sms-gateway.example.com/sms');
    expect(said).toContain('subject identity-2 and audience gateway-1, signed with the secret you entered');
    expect(said).not.toContain(SECOND_SECRET);
    await change.getByRole('button', { name: 'Apply' }).click();
    await change.waitFor({ state: 'detached' });
    await page.getByRole('status').filter({ hasText: 'Delivery settings saved.' }).waitFor();
    const changed = await stored();
    expect(changed.options.gateway_url).toBe('https://sms-gateway-2.example.com/sms');
    expect(changed.options.gateway_authentication).toEqual({ method: 'bearer', subject: 'identity-2', audience: 'gateway-1', secret_base64_encoded: false });
    expect(JSON.stringify(changed)).not.toContain(SECOND_SECRET);
    expect(await page.getByLabel(/^New signing secret/).inputValue()).toBe('');
    expect(await page.content()).not.toContain(SECOND_SECRET);

    // No authentication at all: the dialog says what that does, and the API's warning is announced.
    await page.getByRole('checkbox', { name: /Send a bearer token/ }).uncheck();
    const removal = await submit('Save delivery settings…', `Change where and how ${EDITED} delivers codes?`);
    expect(await removal.textContent()).toContain('Deliveries carry no bearer token any more: a gateway that checks one refuses every delivery');
    await removal.getByRole('button', { name: 'Apply' }).click();
    await removal.waitFor({ state: 'detached' });
    const warned = page.getByRole('status').filter({ hasText: 'Delivery settings saved.' });
    await warned.filter({ hasText: 'options.gateway_authentication is not set' }).waitFor();
    expect((await stored()).options.gateway_authentication).toBeUndefined();
  });

  it('orders the channels per country: a list naming a channel twice is refused in the API’s words beside the channels, then a corrected table is saved as the dialog described it', async () => {
    await openConnection();
    await page.getByRole('button', { name: 'Add a rule' }).click();
    // The keyboard lands on the new rule's country.
    expect(await settledFocus(page, 'id', 'channel-key-0')).toBe('channel-key-0');
    const fallback = page.getByTestId('channel-rule-0');
    expect(await fallback.getByLabel('Country (ISO code) or default').inputValue()).toBe('default');
    await fallback.getByLabel('Then').selectOption('voice');
    await page.getByRole('button', { name: 'Add a rule' }).click();
    const brazil = page.getByTestId('channel-rule-1');
    await brazil.getByLabel('Country (ISO code) or default').fill('br');
    await brazil.getByLabel('First').selectOption('whatsapp');
    await brazil.getByLabel('Then').selectOption('whatsapp');

    const expected = await refusalOf({ options: { channels: { default: ['sms', 'voice'], BR: ['whatsapp', 'whatsapp'] } } });
    const refused = await submit('Save channels…', `Change the channels of ${EDITED}?`);
    await refused.getByRole('button', { name: 'Apply' }).click();
    await refused.getByRole('alert').waitFor();
    expect(await refused.getByRole('alert').textContent()).toContain(expected);
    await refused.getByRole('button', { name: 'Cancel' }).click();
    expect(await page.locator('#channels-error').textContent()).toBe(expected);
    expect((await stored()).options.channels).toBeUndefined();

    await brazil.getByLabel('Then').selectOption('sms');
    const change = await submit('Save channels…', `Change the channels of ${EDITED}?`);
    const said = await change.textContent();
    expect(said).toContain('Numbers of any other country: SMS, then Voice call');
    expect(said).toContain('Numbers of BR: WhatsApp, then SMS');
    await change.getByRole('button', { name: 'Apply' }).click();
    await change.waitFor({ state: 'detached' });
    await page.getByRole('status').filter({ hasText: 'Channels saved.' }).waitFor();
    expect((await stored()).options.channels).toEqual({ default: ['sms', 'voice'], BR: ['whatsapp', 'sms'] });
  });

  it('changes the code’s length and lifetime, the login page’s preselected country and domain-bound codes; a country the API refuses is shown in its words beside the field', async () => {
    await openConnection();
    const country = page.getByLabel(/^Preselected country/);
    await country.fill('XX');
    const expected = await refusalOf({ options: { default_country: 'XX' } });
    const refused = await submit('Save code settings…', `Change the code settings of ${EDITED}?`);
    await refused.getByRole('button', { name: 'Apply' }).click();
    await refused.getByRole('alert').waitFor();
    await refused.getByRole('button', { name: 'Cancel' }).click();
    expect(await page.locator('#default-country-error').textContent()).toBe(expected);
    expect(await country.getAttribute('aria-invalid')).toBe('true');

    await country.fill('GB');
    await page.getByLabel(/^Code length/).fill('8');
    await page.getByLabel(/^Code lifetime/).fill('600');
    await page.getByLabel(/^Origin the code is for/).fill('https://login.example.com');
    const change = await submit('Save code settings…', `Change the code settings of ${EDITED}?`);
    const said = await change.textContent();
    expect(said).toContain('Codes sent from now on have 8 digits (now 6).');
    expect(said).toContain('Codes sent from now on can be used for 600 seconds (now 300).');
    expect(said).toContain('The hosted login page preselects GB');
    expect(said).toContain('Each SMS ends with the line “@login.example.com #<code>”');
    await change.getByRole('button', { name: 'Apply' }).click();
    await change.waitFor({ state: 'detached' });
    await page.getByRole('status').filter({ hasText: 'Code settings saved.' }).waitFor();
    const options = (await stored()).options;
    expect(options.totp).toEqual({ time_step: 600, length: 8 });
    expect(options.default_country).toBe('GB');
    expect(options.webotp).toEqual({ origin: 'https://login.example.com', app_hashes: [] });
    // The live preview renders the saved settings: eight digits and the domain-bound line.
    await page.getByTestId('template-preview').locator('.sms', { hasText: '@login.example.com #12345678' }).waitFor();
  });

  it('turns passkeys off and changes when the offer returns, with each effect explained before it applies', async () => {
    await openConnection();
    expect(await page.getByRole('checkbox', { name: /Offer passkeys/ }).isChecked()).toBe(true);
    await page.getByRole('checkbox', { name: /Offer passkeys/ }).uncheck();
    await page.getByLabel(/^After “Not now”, offer again/).fill('5');
    await page.getByLabel('User verification').selectOption('preferred');
    const change = await submit('Save passkey settings…', `Change passkeys on ${EDITED}?`);
    const said = await change.textContent();
    expect(said).toContain('The hosted login pages become SMS only');
    expect(said).toContain('SMS login number 5');
    expect(said).toContain('Authenticators verify the user when they can');
    await change.getByRole('button', { name: 'Apply' }).click();
    await change.waitFor({ state: 'detached' });
    await page.getByRole('status').filter({ hasText: 'Passkey settings saved.' }).waitFor();
    expect((await stored()).options.passkeys).toEqual({ enabled: false, offer_after_sms_logins: 5, user_verification: 'preferred' });
  });

  it('enables the connection for an application, naming it in the confirmation', async () => {
    const demo = await suite.api.call<{ name: string }>('GET', `/clients/${suite.stack.tenant.demoClientId}`);
    await openConnection();
    // Each application is named with its type: "Demo (native)".
    await page.getByRole('checkbox', { name: `${demo.name} (` }).check();
    const change = await submit('Save applications…', `Change which applications use ${EDITED}?`);
    expect(await change.textContent()).toContain(`${demo.name} can sign users in with ${EDITED} from now on.`);
    await change.getByRole('button', { name: 'Apply' }).click();
    await change.waitFor({ state: 'detached' });
    await page.getByRole('status').filter({ hasText: 'Applications saved.' }).waitFor();
    expect((await stored()).enabled_clients).toEqual([suite.stack.tenant.demoClientId]);
  });

  it('Support sees the same page read only: every field disabled, no button that would change or delete the connection', async () => {
    const supportPhone = '+14155550182';
    await createOperator(suite.api, suite.stack, supportPhone, ['Support']);
    const supportContext = await suite.browser.newContext({ viewport: VIEWPORTS.desktop });
    const support = await signInToConsole(supportContext, suite.stack, supportPhone, SCREENSHOTS);
    await support.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Connections', exact: true }).click();
    await support.getByRole('link', { name: EDITED, exact: true }).click();
    await support.getByRole('heading', { level: 1, name: EDITED, exact: true }).waitFor();
    await support.locator('.loading').first().waitFor({ state: 'detached' });
    await support.screenshot({ path: join(SCREENSHOTS, '65-support-connection-read-only.png'), fullPage: true });
    expect(await support.getByLabel('Gateway URL', { exact: true }).inputValue()).toBe('https://sms-gateway-2.example.com/sms');
    expect(await support.getByLabel('Gateway URL', { exact: true }).isDisabled()).toBe(true);
    expect(await support.getByRole('checkbox', { name: /Offer passkeys/ }).isDisabled()).toBe(true);
    expect(await support.locator('main button').allTextContents()).toEqual([]);
    await supportContext.close();
  });

  it('axe-core finds no serious violation on the edited connection page or its delete confirmation at 390 and 1280 px, with nothing wider than the screen', async () => {
    await openConnection();
    // A refusal beside a field is on screen too.
    await page.getByLabel(/^Preselected country/).fill('XX');
    const refused = await submit('Save code settings…', `Change the code settings of ${EDITED}?`);
    await refused.getByRole('button', { name: 'Apply' }).click();
    await refused.getByRole('alert').waitFor();
    await refused.getByRole('button', { name: 'Cancel' }).click();
    await page.locator('#default-country-error').waitFor();
    const found: Record<string, unknown> = {};
    for (const [name, viewport] of Object.entries(VIEWPORTS)) {
      await page.setViewportSize(viewport);
      await shot(`61-connection-edit-${viewport.width}`);
      const violations = await seriousAxeViolations(page);
      if (violations.length) found[`connection page (${name})`] = violations;
      const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
      if (overflow > 0) found[`connection page (${name}) overflow`] = overflow;
    }
    const dialog = await submit(`Delete ${EDITED}…`, `Delete the connection ${EDITED}?`);
    for (const [name, viewport] of Object.entries(VIEWPORTS)) {
      await page.setViewportSize(viewport);
      await shot(`62-connection-delete-dialog-${viewport.width}`);
      const violations = await seriousAxeViolations(page);
      if (violations.length) found[`delete dialog (${name})`] = violations;
    }
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await page.setViewportSize(VIEWPORTS.desktop);
    expect(found).toEqual({});
  });

  it('deletes the connection only after a confirmation saying what goes with it (its users, the applications using it); Cancel keeps it', async () => {
    await suite.api.call('POST', '/users', { connection: EDITED, phone_number: '+14155550191' });
    await openConnection();
    const deleteButton = page.getByRole('button', { name: `Delete ${EDITED}…`, exact: true });
    const first = await submit(`Delete ${EDITED}…`, `Delete the connection ${EDITED}?`);
    const said = await first.textContent();
    expect(said).toContain(`This deletes ${EDITED} at once, with its 1 user and everything of theirs`);
    expect(said).toContain(`The 1 application(s) using it can no longer start logins with ${EDITED}.`);
    expect(said).toContain('It cannot be undone');
    await first.getByRole('button', { name: 'Cancel' }).click();
    await first.waitFor({ state: 'detached' });
    // Focus returns to the button that opened the dialog; nothing was deleted.
    const deleteLabel = (await deleteButton.textContent())!;
    expect(await settledFocus(page, 'textContent', deleteLabel)).toBe(deleteLabel);
    expect((await stored()).name).toBe(EDITED);

    const second = await submit(`Delete ${EDITED}…`, `Delete the connection ${EDITED}?`);
    await shot('63-connection-delete-confirm');
    await second.getByRole('button', { name: 'Delete the connection' }).click();
    await page.getByRole('heading', { level: 1, name: 'Connections', exact: true }).waitFor();
    await page.locator('.loading').first().waitFor({ state: 'detached' });
    expect(await page.getByRole('link', { name: EDITED, exact: true }).count()).toBe(0);
    await shot('64-connections-after-delete');
    await suite.api.call('GET', `/connections/${connectionId}`, undefined, [404]);
    expect((await suite.api.listConnections()).map((c) => c.name)).not.toContain(EDITED);
    expect((await suite.api.call<unknown[]>('GET', `/users?q=${encodeURIComponent('phone_number:"+14155550191"')}`)).length).toBe(0);
    // The browser reports each refused request (the 400s above, which the test caused) as a console error; nothing else may be there.
    expect(problems.filter((problem) => !problem.includes('the server responded with a status of 400'))).toEqual([]);
  });
});
