import type { Browser, Page } from 'playwright-core';
import { compat, randomPhone } from '../../src/fixtures';
import { completeHostedLogin, describeWithChromium, launchBrowser, newContext, Steps } from '../../src/web/browser';
import { PAGE_PRELUDE, RelyingParty, relyingPartyOrigin, sendAppPage } from '../../src/web/relying-party';
import { createWebClients, SPA_GRANTS, type WebClient } from '../../src/web/tenant';

// auth0-js (v10), from its browser build: WebAuth with the implicit flow, as its README shows.
// parseHash and checkSession check the ID token against identity's JWKS, fetched from the browser.

const WEB_AUTH_SCRIPT = `${PAGE_PRELUDE}
window.webAuth = new auth0.WebAuth({
  domain: settings.domain,
  clientID: settings.clientId,
  redirectUri: settings.origin + '/callback',
  responseType: 'token id_token',
  audience: settings.audience,
  scope: 'openid profile phone',
});
// Promises around the callback API, for the test to await.
window.call = function (method, options) {
  return new Promise(function (resolve, reject) {
    var done = function (err, result) { if (err) reject(new Error(JSON.stringify(err))); else resolve(show(result)); };
    if (method === 'userInfo') webAuth.client.userInfo(options, done);
    // A failure says so within 20 s instead of auth0-js's default minute.
    else if (method === 'checkSession') webAuth.checkSession(Object.assign({ timeout: 20000 }, options), done);
    else webAuth[method](options, done);
  });
};
`;

declare global {
  interface Window {
    call<T = Record<string, unknown>>(method: 'parseHash' | 'checkSession' | 'userInfo', options: unknown): Promise<T>;
    webAuth: { authorize(options?: object): void };
  }
}

// A browser, a login through the hosted page and the relying parties take longer than the API tests.
jest.setTimeout(120_000);

describeWithChromium('auth0-js in Chromium', () => {
  let browser: Browser;
  let rp: RelyingParty;
  let app: WebClient;

  beforeAll(async () => {
    const origin = await relyingPartyOrigin();
    ({ app } = await createWebClients('auth0-js', {
      app: {
        app_type: 'spa',
        token_endpoint_auth_method: 'none',
        grant_types: SPA_GRANTS,
        callbacks: [`${origin}/callback`],
        web_origins: [origin],
        allowed_origins: [origin],
        allowed_logout_urls: [`${origin}/`],
      },
    }));
    rp = await RelyingParty.start(origin, (express) => {
      express.get('/web-auth.js', (_req, res) => void res.type('application/javascript').send(WEB_AUTH_SCRIPT));
      express.get(['/', '/callback'], (_req, res) =>
        sendAppPage(res, 'auth0.js', '/web-auth.js', { domain: compat.domain, clientId: app.clientId, audience: compat.apiAudience, origin }),
      );
    });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await rp?.close();
  });

  it('signs in with authorize and parseHash, renews with checkSession (web_message) and reads the profile with userInfo', async () => {
    const steps = new Steps('web-auth0-js', 'implicit');
    const context = await newContext(browser);
    const page: Page = await context.newPage();
    const phone = randomPhone();

    await page.goto(rp.url('/'));
    await Promise.all([page.waitForURL((url) => url.href.startsWith(`${compat.issuer}authorize`)), page.evaluate(() => window.webAuth.authorize())]);
    expect(new URL(page.url()).searchParams.get('response_type')).toBe('token id_token');
    await completeHostedLogin(page, phone, steps, (url) => url.href.startsWith(rp.url('/callback')));

    const parsed = await page.evaluate(() => window.call<{ accessToken: string; idTokenPayload: { sub: string } }>('parseHash', {}));
    await steps.shot(page, 'parsed-hash');
    expect(parsed.idTokenPayload.sub).toMatch(/^sms\|/);

    const renewed = await page.evaluate(() => window.call<{ accessToken: string; idTokenPayload: { sub: string } }>('checkSession', {}));
    expect(renewed.idTokenPayload.sub).toBe(parsed.idTokenPayload.sub);

    const profile = await page.evaluate((token) => window.call('userInfo', token), renewed.accessToken);
    await steps.shot(page, 'user-info');
    expect(profile).toMatchObject({ sub: parsed.idTokenPayload.sub, phone_number: phone });
    await context.close();
  });

  it('answers checkSession with login_required when the browser has no login session', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.goto(rp.url('/'));
    const refused = await page.evaluate(() => window.call('checkSession', {}).then(() => 'signed in', (err: Error) => (JSON.parse(err.message) as { error: string }).error));
    expect(refused).toBe('login_required');
    await context.close();
  });
});
