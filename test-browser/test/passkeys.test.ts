import { join } from 'node:path';
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { readCodeFromOutbox } from '@smsauth/stack';
import { seriousAxeViolations } from '../src/accessibility';
import { CallbackServer } from '../src/callback-server';
import { describeWithChromium } from '../src/chromium';
import { createAppOnConnection, useBrowserSuite } from '../src/stack';
import { verifyWithJwks } from '../src/tokens';

const SCREENSHOTS = join(__dirname, '..', 'test-results', 'passkeys');
const VIEWPORTS = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 800 } } as const;

function uniquePhone(): string {
  return `+1212${2_000_000 + Math.floor(Math.random() * 8e6)}`;
}

/**
 * A platform authenticator in the page, through the DevTools protocol's WebAuthn domain: it
 * holds discoverable credentials, verifies the user (as a fingerprint would) and answers at
 * once, so `isUserVerifyingPlatformAuthenticatorAvailable()` is true and the login offers passkeys.
 */
async function addPlatformAuthenticator(page: Page): Promise<{ cdp: CDPSession; authenticatorId: string }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  return { cdp, authenticatorId };
}

/**
 * The hosted login with passkeys, in Chromium with a virtual authenticator: one SMS to prove the
 * number, a passkey from then on, and no SMS for it (the gateway's outbox says so).
 */
describeWithChromium('passkeys on the hosted login in a real browser', () => {
  const suite = useBrowserSuite('smsauth-passkeys-', SCREENSHOTS);
  let callback: CallbackServer;
  let clientId: string;

  beforeAll(async () => {
    callback = await CallbackServer.start();
    // The seeded connection was created through the API: passkeys are on. "Not now" asks again at the 2nd SMS login.
    clientId = await createAppOnConnection(suite, 'Passkey App', callback.url(), { passkeys: { offer_after_sms_logins: 2 } });
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
      state: 'passkey-state',
      nonce: 'passkey-nonce',
      ...overrides,
    });
    return `${suite.stack.urls.authUrl}/authorize?${query.toString()}`;
  }

  async function messagesTo(phone: string): Promise<number> {
    const res = await fetch(`${suite.stack.urls.gatewayUrl}/outbox/messages?recipient=${encodeURIComponent(phone)}`);
    return ((await res.json()) as unknown[]).length;
  }

  /**
   * A fresh browser (phone-sized) with a platform authenticator in its one page. Chromium's
   * virtual authenticator answers the autofill request (conditional UI) by itself as soon as the
   * phone page loads; `autofill: false` takes conditional mediation away, as in a browser without
   * it, so the test presses "Sign in with a passkey" itself.
   */
  async function browserWithAuthenticator(options: { autofill?: boolean } = {}) {
    const context = await suite.browser.newContext({ viewport: VIEWPORTS.phone });
    if (options.autofill === false) {
      await context.addInitScript(() => {
        const credential = (globalThis as unknown as { PublicKeyCredential?: { isConditionalMediationAvailable?: () => Promise<boolean> } }).PublicKeyCredential;
        if (credential) credential.isConditionalMediationAvailable = () => Promise.resolve(false);
      });
    }
    const page = await context.newPage();
    const authenticator = await addPlatformAuthenticator(page);
    return { context, page, ...authenticator };
  }

  /** The SMS login up to the code's answer: the offer page, or the application when none is offered. */
  async function signInBySms(page: Page, phone: string, overrides: Record<string, string> = {}): Promise<void> {
    await page.goto(authorizeUrl(overrides));
    await page.getByLabel('Mobile phone number').fill(phone);
    await page.getByRole('button', { name: 'Send code' }).click();
    await page.getByLabel('Code', { exact: true }).waitFor();
    const code = await readCodeFromOutbox(suite.stack.urls.gatewayUrl, phone);
    await page.getByLabel('Code', { exact: true }).fill(code);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL((url) => url.href.startsWith(callback.url()) || url.pathname === '/authorize/passkey/offer');
  }

  const onCallback = (page: Page) => page.url().startsWith(callback.url());
  const fragmentOf = (page: Page) => Object.fromEntries(new URLSearchParams(new URL(page.url()).hash.slice(1)));

  /** A person who signed in once by SMS and took the passkey the page offered. */
  async function personWithPasskey(options: { autofill?: boolean } = { autofill: false }): Promise<{ context: BrowserContext; page: Page; cdp: CDPSession; authenticatorId: string; phone: string; userId: string }> {
    const person = await browserWithAuthenticator(options);
    const phone = uniquePhone();
    await signInBySms(person.page, phone);
    expect(person.page.url()).toContain('/authorize/passkey/offer');
    await Promise.all([
      person.page.waitForURL((url) => url.href.startsWith(callback.url())),
      person.page.getByRole('button', { name: 'Sign in faster next time with a passkey' }).click(),
    ]);
    const claims = await verifyWithJwks(suite.stack.urls.authUrl, fragmentOf(person.page).id_token!, clientId);
    return { ...person, phone, userId: String(claims.sub) };
  }

  /** The phone page's "Sign in with a passkey" (in a new sign-in: prompt=login, so the session does not answer it). */
  async function signInWithPasskey(page: Page): Promise<void> {
    await page.goto(authorizeUrl({ prompt: 'login' }));
    const button = page.getByRole('button', { name: 'Sign in with a passkey' });
    await button.waitFor();
    await Promise.all([page.waitForURL((url) => !url.href.startsWith(authorizeUrl({ prompt: 'login' }))), button.click()]);
    await page.waitForLoadState();
  }

  it('offers a passkey after the first SMS login, stores it, and the next login uses it with no SMS sent', async () => {
    const { context, page, cdp, authenticatorId, phone, userId } = await personWithPasskey();
    await page.screenshot({ path: join(SCREENSHOTS, '01-after-registration.png') });
    expect(fragmentOf(page)).toMatchObject({ state: 'passkey-state', token_type: 'Bearer' });

    // The authenticator holds one discoverable passkey for identity's host; its user handle is not the number.
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]).toMatchObject({ isResidentCredential: true, rpId: new URL(suite.stack.urls.authUrl).hostname });
    expect(Buffer.from(credentials[0]!.userHandle!, 'base64').toString('latin1')).not.toContain(phone.slice(1));
    const methods = await suite.api.call<Array<{ type: string; key_id: string }>>('GET', `/users/${encodeURIComponent(userId)}/authentication-methods`);
    expect(methods).toEqual([expect.objectContaining({ type: 'passkey', key_id: Buffer.from(credentials[0]!.credentialId, 'base64').toString('base64url') })]);

    const sent = await messagesTo(phone);
    await page.goto(authorizeUrl({ prompt: 'login' }));
    // The number field asks the browser for its passkeys too (conditional UI).
    expect(await page.getByLabel('Mobile phone number').getAttribute('autocomplete')).toBe('username webauthn');
    await page.screenshot({ path: join(SCREENSHOTS, '02-phone-page-with-passkey.png') });
    await signInWithPasskey(page);
    expect(onCallback(page)).toBe(true);
    const claims = await verifyWithJwks(suite.stack.urls.authUrl, fragmentOf(page).id_token!, clientId);
    expect(claims).toMatchObject({ sub: userId, phone_number: phone, nonce: 'passkey-nonce' });
    expect(await messagesTo(phone)).toBe(sent);
    expect((await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials[0]!.signCount).toBeGreaterThan(0);
    await context.close();
  });

  it('signs in through the browser\'s passkey autofill on the number field (conditional UI) as the page loads, no SMS sent', async () => {
    const { context, page, phone, userId } = await personWithPasskey({ autofill: true });
    const sent = await messagesTo(phone);
    await page.goto(authorizeUrl({ prompt: 'login', state: 'autofill-state' }));
    await page.waitForURL((url) => url.href.startsWith(callback.url()) && url.hash.includes('state=autofill-state'));
    const claims = await verifyWithJwks(suite.stack.urls.authUrl, fragmentOf(page).id_token!, clientId);
    expect(claims.sub).toBe(userId);
    expect(await messagesTo(phone)).toBe(sent);
    await context.close();
  });

  it('"Not now" continues to the application and asks again at the configured SMS login', async () => {
    const { context, page } = await browserWithAuthenticator();
    const phone = uniquePhone();
    await signInBySms(page, phone);
    await page.screenshot({ path: join(SCREENSHOTS, '03-offer.png') });
    await Promise.all([page.waitForURL((url) => url.href.startsWith(callback.url())), page.getByRole('button', { name: 'Not now' }).click()]);
    expect(fragmentOf(page).access_token).toBeDefined();

    await signInBySms(page, phone, { prompt: 'login' });
    expect(onCallback(page)).toBe(true);
    await signInBySms(page, phone, { prompt: 'login' });
    expect(page.url()).toContain('/authorize/passkey/offer');
    await context.close();
  });

  it('"Don\'t ask on this device" continues and never offers again in this browser', async () => {
    const { context, page } = await browserWithAuthenticator();
    const phone = uniquePhone();
    await signInBySms(page, phone);
    await Promise.all([page.waitForURL((url) => url.href.startsWith(callback.url())), page.getByRole('button', { name: "Don't ask on this device" }).click()]);
    expect(fragmentOf(page).access_token).toBeDefined();
    for (let i = 0; i < 2; i++) {
      await signInBySms(page, phone, { prompt: 'login' });
      expect(onCallback(page)).toBe(true);
    }
    await context.close();
  });

  it('stops signing in with a passkey deleted through the management API, and SMS still works', async () => {
    const { context, page, userId, phone } = await personWithPasskey();
    const base = `/users/${encodeURIComponent(userId)}/authentication-methods`;
    const [method] = await suite.api.call<Array<{ id: string }>>('GET', base);
    await suite.api.call('DELETE', `${base}/${method!.id}`, undefined, [204]);

    await signInWithPasskey(page);
    expect(onCallback(page)).toBe(false);
    await page.getByText('That passkey could not sign you in.').waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, '04-passkey-refused.png') });
    // SMS is always there as the way back in.
    await page.getByLabel('Mobile phone number').fill(phone);
    await page.getByRole('button', { name: 'Send code' }).click();
    await page.getByLabel('Code', { exact: true }).waitFor();
    await context.close();
  });

  it('sends a blocked user back to the application with "user is blocked"', async () => {
    const { context, page, userId } = await personWithPasskey();
    await suite.api.call('PATCH', `/users/${encodeURIComponent(userId)}`, { blocked: true }, [200]);
    await signInWithPasskey(page);
    expect(onCallback(page)).toBe(true);
    expect(fragmentOf(page)).toMatchObject({ error: 'unauthorized', error_description: 'user is blocked' });
    await context.close();
  });

  describe.each(Object.entries(VIEWPORTS))('accessibility at %s width', (viewportName, viewport) => {
    async function expectAccessible(page: Page, name: string): Promise<void> {
      await page.screenshot({ path: join(SCREENSHOTS, `a11y-${viewportName}-${name}.png`), fullPage: true });
      const violations = await seriousAxeViolations(page);
      expect({ page: name, violations }).toEqual({ page: name, violations: [] });
    }

    it('the phone page with the passkey button, the offer, and the offer after a failed registration', async () => {
      // bypassCSP: axe runs as an injected script.
      const context = await suite.browser.newContext({ viewport, bypassCSP: true });
      const page = await context.newPage();
      const { cdp, authenticatorId } = await addPlatformAuthenticator(page);
      await page.goto(authorizeUrl());
      await page.getByRole('button', { name: 'Sign in with a passkey' }).waitFor();
      await expectAccessible(page, 'phone-with-passkey');

      await signInBySms(page, uniquePhone());
      expect(page.url()).toContain('/authorize/passkey/offer');
      await expectAccessible(page, 'offer');

      // The person's fingerprint is not recognised: the registration fails and the page says so.
      await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: false });
      await page.getByRole('button', { name: 'Sign in faster next time with a passkey' }).click();
      await page.getByText('The passkey was not created.').waitFor({ timeout: 60_000 });
      await expectAccessible(page, 'offer-error');
      await context.close();
    });
  });
});
