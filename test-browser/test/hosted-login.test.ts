import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { CallbackServer } from '../src/callback-server';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH, describeWithChromium } from '../src/chromium';
import { createAppOnConnection, useBrowserSuite } from '../src/stack';
import { verifyWithJwks } from '../src/tokens';

const SCREENSHOTS = join(__dirname, '..', 'test-results', 'hosted-login');
/** A phone-sized viewport (an iPhone 12-ish screen). */
const PHONE_VIEWPORT = { width: 390, height: 844 };

function uniquePhone(): string {
  // +1 415 and an exchange 200-999: identity accepts only valid numbers.
  return `+1415${2_000_000 + Math.floor(Math.random() * 8e6)}`;
}

describeWithChromium('hosted login in a real browser', () => {
  const suite = useBrowserSuite('smsauth-browser-', SCREENSHOTS);
  let callback: CallbackServer;
  let clientId: string;

  beforeAll(async () => {
    callback = await CallbackServer.start();
    clientId = await createAppOnConnection(suite, 'Browser Test App', callback.url());
  });

  afterAll(async () => {
    await callback?.close();
  });

  function authorizeUrl(overrides: Record<string, string> = {}): string {
    const query = new URLSearchParams({
      client_id: clientId,
      redirect_uri: callback.url(),
      response_type: 'token id_token',
      scope: 'openid phone',
      audience: suite.stack.apiAudience,
      state: 'browser-state-1',
      nonce: 'browser-nonce-1',
      ...overrides,
    });
    return `${suite.stack.urls.authUrl}/authorize?${query.toString()}`;
  }

  async function phoneContext(options: { javaScriptEnabled?: boolean } = {}): Promise<BrowserContext> {
    return suite.browser.newContext({ viewport: PHONE_VIEWPORT, hasTouch: true, ...options });
  }

  /** Reads the newest code sent to `phone` off the gateway's inbox page, in a tab of its own. */
  async function codeFromInbox(context: BrowserContext, phone: string, screenshot: string): Promise<string> {
    const inbox = await context.newPage();
    await inbox.goto(`${suite.stack.urls.gatewayUrl}/outbox`);
    const row = inbox.locator('tbody tr', { hasText: phone }).first();
    const code = (await row.locator('mark.code').first().textContent())?.trim();
    await inbox.screenshot({ path: join(SCREENSHOTS, screenshot), fullPage: true });
    await inbox.close();
    if (!code || !/^\d{6}$/.test(code)) throw new Error(`no code for ${phone} on the inbox page`);
    return code;
  }

  async function sendCode(page: Page, phone: string): Promise<void> {
    await page.getByLabel('Mobile phone number').fill(phone);
    await page.getByRole('button', { name: 'Send code' }).click();
    await page.getByLabel('Code', { exact: true }).waitFor();
  }

  it('signs in with a phone number and the code from the inbox page, without JavaScript, and lands on the callback with valid tokens', async () => {
    const context = await phoneContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    const phone = uniquePhone();

    const opened = await page.goto(authorizeUrl());
    expect(opened?.status()).toBe(200);
    expect(opened?.headers()['content-security-policy']).toContain("default-src 'none'");
    await page.screenshot({ path: join(SCREENSHOTS, '01-phone-step.png'), fullPage: true });

    await sendCode(page, phone);
    expect(await page.getByText(`We sent a 6-digit code by text message (SMS) to your number ending in ${phone.slice(-4)}.`).isVisible()).toBe(true);
    // What iOS/Android autofill (and domain-bound codes) key on; no script needed for it.
    expect(await page.getByLabel('Code', { exact: true }).getAttribute('autocomplete')).toBe('one-time-code');
    await page.screenshot({ path: join(SCREENSHOTS, '02-code-step.png'), fullPage: true });

    const code = await codeFromInbox(context, phone, '03-inbox.png');
    await page.bringToFront();
    await page.getByLabel('Code', { exact: true }).fill(code);
    await Promise.all([page.waitForURL((url) => url.href.startsWith(callback.url())), page.getByRole('button', { name: 'Sign in' }).click()]);
    await page.getByRole('heading', { name: 'Back in the example app' }).waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, '04-callback.png'), fullPage: true });

    const landed = new URL(page.url());
    expect(`${landed.origin}${landed.pathname}`).toBe(callback.url());
    expect(landed.search).toBe('');
    const fragment = Object.fromEntries(new URLSearchParams(landed.hash.slice(1)));
    expect(fragment).toMatchObject({ token_type: 'Bearer', state: 'browser-state-1', expires_in: expect.stringMatching(/^\d+$/) });

    const idClaims = await verifyWithJwks(suite.stack.urls.authUrl, fragment.id_token!, clientId);
    expect(idClaims).toMatchObject({ nonce: 'browser-nonce-1', phone_number: phone });
    const accessClaims = await verifyWithJwks(suite.stack.urls.authUrl, fragment.access_token!, suite.stack.apiAudience);
    expect(accessClaims.sub).toBe(idClaims.sub);

    // The access token is one the airport API accepts.
    const airport = await fetch(`${suite.stack.urls.baseUrl}/airportName?iataCode=SFO`, {
      headers: { authorization: `Bearer ${fragment.access_token}` },
    });
    expect(airport.status).toBe(200);
    await context.close();
  });

  it('starts with the focus on the number, then tabs to the button, the passkey button and the cancel link', async () => {
    const context = await phoneContext();
    const page = await context.newPage();
    await page.goto(authorizeUrl());
    const focused = async () => {
      const element = page.locator(':focus');
      return (await element.getAttribute('id')) ?? (await element.textContent())?.trim();
    };
    expect(await focused()).toBe('phone_number');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Send code');
    // The seeded connection has passkeys on (docs/passkeys.md): the script shows their button.
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Sign in with a passkey');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Cancel and return to Browser Test App');
    await context.close();
  });

  it('keeps "Send again" disabled while the wait counts down, then enables it, without script', async () => {
    for (const viewport of [PHONE_VIEWPORT, { width: 1280, height: 800 }]) {
      const context = await suite.browser.newContext({ viewport });
      const page = await context.newPage();
      await page.goto(authorizeUrl());
      await sendCode(page, uniquePhone());

      const resend = page.getByRole('button', { name: 'Send again' });
      expect(await resend.count()).toBe(1);
      expect(await resend.isDisabled()).toBe(true);
      // What assistive technology reads stays put; the visible number counts down (a CSS animation).
      expect(await page.locator('#resend-hint').textContent()).toContain('You can ask for a new code in 30 seconds.');
      // Evaluated in the page (this package's TypeScript has no DOM types): the animated integer.
      const SECONDS_LEFT = "Number.parseInt(getComputedStyle(document.querySelector('.countdown')).getPropertyValue('--cooldown'), 10)";
      const secondsLeft = () => page.evaluate<number>(SECONDS_LEFT);
      const first = await secondsLeft();
      expect(first).toBeGreaterThanOrEqual(1);
      expect(first).toBeLessThanOrEqual(30);
      await page.screenshot({ path: join(SCREENSHOTS, `12-resend-waiting-${viewport.width}.png`), fullPage: true });

      // Thirty seconds in a few: CSS animations only, at ten times their speed.
      const cdp = await context.newCDPSession(page);
      await cdp.send('Animation.enable');
      await cdp.send('Animation.setPlaybackRate', { playbackRate: 10 });
      // Polled from here: waitForFunction would eval a string in the page, which its CSP forbids.
      while ((await secondsLeft()) >= first) await page.waitForTimeout(100);
      await page.getByText('Did not get it? You can ask for a new code now.').waitFor();
      await page.locator('button.resend-ready').waitFor({ state: 'visible' });
      expect(await resend.count()).toBe(1);
      expect(await resend.isEnabled()).toBe(true);
      expect(await resend.getAttribute('type')).toBe('submit');
      await page.screenshot({ path: join(SCREENSHOTS, `13-resend-ready-${viewport.width}.png`), fullPage: true });
      await context.close();
    }
  });

  it('tells the user a wrong code is wrong and stays on the page', async () => {
    const context = await phoneContext();
    const page = await context.newPage();
    const phone = uniquePhone();
    await page.goto(authorizeUrl());
    await sendCode(page, phone);
    const code = await codeFromInbox(context, phone, '05-inbox-before-wrong-code.png');
    const wrong = code === '000000' ? '111111' : '000000';

    await page.getByLabel('Code', { exact: true }).fill(wrong);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe('That code is not right. Check the text message and try again.');
    expect(await page.getByLabel('Code', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    expect(page.url().startsWith(`${suite.stack.urls.authUrl}/authorize/code`)).toBe(true);
    await page.screenshot({ path: join(SCREENSHOTS, '06-wrong-code.png'), fullPage: true });

    // The right code still works afterwards.
    await page.getByLabel('Code', { exact: true }).fill(code);
    await Promise.all([page.waitForURL((url) => url.href.startsWith(callback.url())), page.getByRole('button', { name: 'Sign in' }).click()]);
    expect(new URL(page.url()).hash).toContain('access_token=');
    await context.close();
  });

  it('shows an error page for a redirect_uri that is not a registered callback, and never goes there', async () => {
    const context = await phoneContext();
    const page = await context.newPage();
    const evil = callback.url('/evil');
    const before = callback.paths.length;
    const response = await page.goto(authorizeUrl({ redirect_uri: evil }));
    expect(response?.status()).toBe(400);
    expect(await page.getByRole('heading', { name: 'Callback URL mismatch' }).isVisible()).toBe(true);
    expect(page.url().startsWith(`${suite.stack.urls.authUrl}/authorize?`)).toBe(true);
    await page.screenshot({ path: join(SCREENSHOTS, '07-bad-redirect-uri.png'), fullPage: true });
    expect(callback.paths.slice(before)).toEqual([]);
    await context.close();
  });

  it('runs the WebOTP script on the webotp origin without a CSP violation, and signs in by typing the code', async () => {
    // login.example.com resolves to identity, so the page is served from the connection's webotp
    // origin (its Host; plain http here, where the script finds no WebOTP API and does nothing).
    const identity = new URL(suite.stack.urls.authUrl);
    const connection = (await suite.api.listConnections()).find((c) => c.name === suite.stack.tenant.connectionName)!;
    await suite.api.updateConnection(connection.id, { options: { webotp: { origin: 'https://login.example.com' } } });
    const mapped = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: [...CHROMIUM_ARGS, `--host-resolver-rules=MAP login.example.com ${identity.host}`],
    });
    try {
      const context = await mapped.newContext({ viewport: PHONE_VIEWPORT });
      const page = await context.newPage();
      const violations: string[] = [];
      page.on('console', (message) => {
        if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
      });
      const phone = uniquePhone();
      await page.goto(authorizeUrl().replace(suite.stack.urls.authUrl, 'http://login.example.com'));
      await sendCode(page, phone);
      // The WebOTP script inline (allowed by its hash) and, the connection having passkeys on, the passkey file ('self').
      expect(await page.locator('script:not([src])').count()).toBe(1);
      expect(await page.locator('script[src]').evaluateAll((scripts) => scripts.map((s) => s.getAttribute('src')))).toEqual(['/authorize/passkeys.js']);
      expect(await page.getByLabel('Code', { exact: true }).getAttribute('autocomplete')).toBe('one-time-code');
      const code = await codeFromInbox(await suite.browser.newContext(), phone, '08-inbox-webotp.png');
      await page.getByLabel('Code', { exact: true }).fill(code);
      await Promise.all([page.waitForURL((url) => url.href.startsWith(callback.url())), page.getByRole('button', { name: 'Sign in' }).click()]);
      expect(new URL(page.url()).hash).toContain('access_token=');
      expect(violations).toEqual([]);
    } finally {
      await mapped.close();
      await suite.api.updateConnection(connection.id, { options: { webotp: null } });
    }
  });
});
