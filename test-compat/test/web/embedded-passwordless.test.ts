import type { Browser, Page } from 'playwright-core';
import { codeSentTo, compat, randomPhone, since } from '../../src/fixtures';
import { describeWithChromium, launchBrowser, newContext, Steps } from '../../src/web/browser';
import { lockBrowserBundle } from '../../src/web/lock';
import { managementClient } from '../../src/sdk';
import { PAGE_PRELUDE, RelyingParty, relyingPartyOrigin, sendAppPage } from '../../src/web/relying-party';
import { createWebClients, EMBEDDED_SPA_GRANTS, type WebClient } from '../../src/web/tenant';

// Embedded passwordless as Auth0 documents it for a single-page app: Lock Passwordless
// (auth0-lock, bundled unchanged) and auth0-js's passwordlessStart + passwordlessLogin, on a page
// of the app's own origin. Lock reads /client/{id}.js; both post /passwordless/start and
// /co/authenticate from the app's origin (CORS), then go to /authorize?login_ticket=. The login
// session they leave must answer a following prompt=none (checkSession).

const LOCK_SCRIPT = `${PAGE_PRELUDE}
window.lock = new Auth0LockPasswordless(settings.clientId, settings.domain, {
  allowedConnections: ['sms'],
  passwordlessMethod: 'code',
  defaultLocation: 'US',
  closable: false,
  auth: { redirectUrl: settings.origin + '/callback', responseType: 'token id_token', params: { scope: 'openid profile phone' } },
});
lock.on('authenticated', function (result) { window.authenticated = show(result); });
lock.on('authorization_error', function (err) { window.lockError = show(err); });
lock.on('unrecoverable_error', function (err) { window.lockError = show(String(err)); });
window.checkSession = function () {
  return new Promise(function (resolve, reject) {
    // The client is enabled on two SMS connections here (its own and "sms"): checkSession names the one Lock used.
    lock.checkSession({ timeout: 20000, connection: 'sms' }, function (err, result) { if (err) reject(new Error(JSON.stringify(err))); else resolve(show(result)); });
  });
};
if (location.pathname === '/') lock.show();
`;

const WEB_AUTH_SCRIPT = `${PAGE_PRELUDE}
window.webAuth = new auth0.WebAuth({
  domain: settings.domain,
  clientID: settings.clientId,
  redirectUri: settings.origin + '/callback',
  responseType: 'token id_token',
  scope: 'openid profile phone',
});
window.call = function (method, options) {
  return new Promise(function (resolve, reject) {
    var done = function (err, result) { if (err) reject(new Error(JSON.stringify(err))); else resolve(show(result === undefined ? {} : result)); };
    if (method === 'checkSession') webAuth.checkSession(Object.assign({ timeout: 20000 }, options), done);
    else webAuth[method](options, done);
  });
};
// passwordlessLogin calls back only on an error; otherwise the browser leaves for /authorize.
// With window.holdRedirect set, it waits for window.resume() first (auth0-js's onRedirecting).
window.login = function (phone, code) {
  window.loginError = undefined;
  webAuth.passwordlessLogin(
    {
      connection: settings.connection,
      phoneNumber: phone,
      verificationCode: code,
      onRedirecting: function (done) { if (window.holdRedirect) window.resume = done; else done(); },
    },
    function (err) { window.loginError = show(err); },
  );
};
`;

const VERIFY_SCRIPT = `${PAGE_PRELUDE}
new auth0.WebAuth({ domain: settings.domain, clientID: settings.clientId }).crossOriginVerification();
`;

declare global {
  interface Window {
    authenticated?: { accessToken: string; idTokenPayload: { sub: string; phone_number?: string } };
    lockError?: unknown;
    checkSession(): Promise<{ idTokenPayload: { sub: string } }>;
    call<T = Record<string, unknown>>(method: string, options: unknown): Promise<T>;
    login(phone: string, code: string): void;
    loginError?: { code?: string; error?: string; description?: string };
    holdRedirect?: boolean;
    resume?: () => void;
  }
}

jest.setTimeout(120_000);

describeWithChromium('embedded passwordless (Lock Passwordless, auth0-js) in Chromium', () => {
  let browser: Browser;
  let lockApp: RelyingParty;
  let jsApp: RelyingParty;
  let lockClient: WebClient;
  let jsClient: WebClient;

  beforeAll(async () => {
    const [lockOrigin, jsOrigin] = [await relyingPartyOrigin(), await relyingPartyOrigin()];
    const embedded = (origin: string) => ({
      app_type: 'spa' as const,
      token_endpoint_auth_method: 'none' as const,
      grant_types: EMBEDDED_SPA_GRANTS,
      callbacks: [`${origin}/callback`],
      web_origins: [origin],
      allowed_origins: [origin],
      cross_origin_authentication: true,
      cross_origin_loc: `${origin}/co-verify`,
    });
    ({ lock: lockClient, js: jsClient } = await createWebClients('embedded', { lock: embedded(lockOrigin), js: embedded(jsOrigin) }));
    // Lock Passwordless names the SMS connection "sms" whatever allowedConnections says (Auth0's
    // passwordless connections have that name): its client is enabled on the seeded one, added to
    // the list (PATCH .../clients), so no other file's edit of the connection is lost.
    await managementClient().connections.clients.update(compat.smsConnectionId, [{ client_id: lockClient.clientId, status: true }]);
    const lockBundle = await lockBrowserBundle();
    lockApp = await RelyingParty.start(lockOrigin, (express) => {
      express.get('/auth0-lock.js', (_req, res) => void res.type('application/javascript').send(lockBundle));
      express.get('/lock-app.js', (_req, res) => void res.type('application/javascript').send(LOCK_SCRIPT));
      express.get(['/', '/callback'], (_req, res) => {
        const settings = JSON.stringify({ domain: compat.domain, clientId: lockClient.clientId, connection: lockClient.connection, origin: lockOrigin })
          .replace(/&/g, '&amp;')
          .replace(/"/g, '&quot;');
        res.type('html').set('cache-control', 'no-store').send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Lock app</title></head>
<body data-settings="${settings}"><h1>Lock app</h1><pre id="out"></pre>
<script src="/auth0-lock.js"></script><script src="/lock-app.js"></script></body></html>`);
      });
    });
    jsApp = await RelyingParty.start(jsOrigin, (express) => {
      const settings = { domain: compat.domain, clientId: jsClient.clientId, connection: jsClient.connection, origin: jsOrigin };
      express.get('/web-auth.js', (_req, res) => void res.type('application/javascript').send(WEB_AUTH_SCRIPT));
      express.get('/verify.js', (_req, res) => void res.type('application/javascript').send(VERIFY_SCRIPT));
      express.get(['/', '/callback'], (_req, res) => sendAppPage(res, 'auth0.js', '/web-auth.js', settings));
      express.get('/co-verify', (_req, res) => sendAppPage(res, 'auth0.js', '/verify.js', settings));
    });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await lockApp?.close();
    await jsApp?.close();
  });

  it('Lock Passwordless: loads the client settings, sends the SMS, signs in with the code, and SSO answers checkSession', async () => {
    const steps = new Steps('web-embedded', 'lock-passwordless');
    const context = await newContext(browser);
    const page: Page = await context.newPage();
    const phone = randomPhone();

    await page.goto(lockApp.url('/'));
    const number = page.locator('input[name="phoneNumber"]');
    await number.waitFor();
    await number.fill(phone.slice(2));
    await steps.shot(page, 'lock-phone');
    const sentAfter = since();
    await page.locator('button.auth0-lock-submit').click();
    const vcode = page.locator('input[name="vcode"]');
    await vcode.waitFor();
    const code = await codeSentTo(phone, sentAfter);
    await vcode.fill(code);
    await steps.shot(page, 'lock-code');
    await Promise.all([page.waitForURL((url) => url.href.startsWith(lockApp.url('/callback'))), page.locator('button.auth0-lock-submit').click()]);
    await page.waitForFunction(() => window.authenticated !== undefined || window.lockError !== undefined);
    await steps.shot(page, 'lock-authenticated');
    const result = await page.evaluate(() => ({ authenticated: window.authenticated, error: window.lockError }));
    expect(result.error).toBeUndefined();
    expect(result.authenticated!.idTokenPayload).toMatchObject({ sub: expect.stringMatching(/^sms\|/), phone_number: phone });
    expect(result.authenticated!.accessToken).toEqual(expect.any(String));

    const renewed = await page.evaluate(() => window.checkSession());
    expect(renewed.idTokenPayload.sub).toBe(result.authenticated!.idTokenPayload.sub);
    await context.close();
  });

  it('auth0-js: passwordlessStart and passwordlessLogin sign in from the app\'s page, and SSO answers checkSession', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    const phone = randomPhone();
    await page.goto(jsApp.url('/'));
    const sentAfter = since();
    await page.evaluate((number) => window.call('passwordlessStart', { connection: (window.settings as { origin: string; connection?: string }).connection, send: 'code', phoneNumber: number }), phone);
    const code = await codeSentTo(phone, sentAfter);

    // A wrong code first: auth0-js reports it, the page stays.
    await page.evaluate((number) => window.login(number, '000000'), phone);
    await page.waitForFunction(() => window.loginError !== undefined);
    expect(await page.evaluate(() => window.loginError)).toMatchObject({ code: 'invalid_grant' });

    await Promise.all([page.waitForURL((url) => url.href.startsWith(jsApp.url('/callback'))), page.evaluate(([number, otp]) => window.login(number!, otp!), [phone, code])]);
    const parsed = await page.evaluate(() => window.call<{ idTokenPayload: { sub: string; phone_number: string } }>('parseHash', {}));
    expect(parsed.idTokenPayload).toMatchObject({ sub: expect.stringMatching(/^sms\|/), phone_number: phone });
    const renewed = await page.evaluate(() => window.call<{ idTokenPayload: { sub: string } }>('checkSession', {}));
    expect(renewed.idTokenPayload.sub).toBe(parsed.idTokenPayload.sub);
    await context.close();
  });

  it('auth0-js without the verifier cookie (third-party cookies blocked): /co/verify reads the verifier from the app\'s cross_origin_loc page', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    const phone = randomPhone();
    await page.goto(jsApp.url('/'));
    const sentAfter = since();
    await page.evaluate((number) => window.call('passwordlessStart', { connection: (window.settings as { origin: string; connection?: string }).connection, send: 'code', phoneNumber: number }), phone);
    const code = await codeSentTo(phone, sentAfter);
    await page.evaluate(() => (window.holdRedirect = true));
    await page.evaluate(([number, otp]) => window.login(number!, otp!), [phone, code]);
    await page.waitForFunction(() => typeof window.resume === 'function');
    // What a browser blocking third-party cookies would have done: the verifier cookie never arrives.
    await context.clearCookies({ name: /^smsauth_co_/ });
    const visited: string[] = [];
    page.on('framenavigated', (frame) => visited.push(new URL(frame.url()).pathname));
    await Promise.all([page.waitForURL((url) => url.href.startsWith(jsApp.url('/callback'))), page.evaluate(() => window.resume!())]);
    expect(visited).toContain('/co/verify');
    const parsed = await page.evaluate(() => window.call<{ idTokenPayload: { phone_number: string } }>('parseHash', {}));
    expect(parsed.idTokenPayload.phone_number).toBe(phone);
    await context.close();
  });
});
