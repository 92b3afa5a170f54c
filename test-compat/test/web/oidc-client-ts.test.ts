import type { Browser } from 'playwright-core';
import { compat, randomPhone } from '../../src/fixtures';
import { completeHostedLogin, describeWithChromium, launchBrowser, newContext, Steps } from '../../src/web/browser';
import { PAGE_PRELUDE, RelyingParty, relyingPartyOrigin, sendAppPage } from '../../src/web/relying-party';
import { createWebClients, SPA_GRANTS, type WebClient } from '../../src/web/tenant';

// oidc-client-ts, from its browser build: a UserManager configured from the issuer's discovery
// document (fetched from the browser), code + PKCE, silent renew in an iframe, RP-initiated logout.

const USER_MANAGER_SCRIPT = `${PAGE_PRELUDE}
window.userManager = new oidc.UserManager({
  authority: settings.issuer,
  client_id: settings.clientId,
  redirect_uri: settings.origin + '/callback',
  silent_redirect_uri: settings.origin + '/silent',
  post_logout_redirect_uri: settings.origin + '/signed-out',
  response_type: 'code',
  scope: 'openid profile phone',
  extraQueryParams: { audience: settings.audience },
});
if (location.pathname === '/silent') userManager.signinSilentCallback();
`;

declare global {
  interface Window {
    userManager: import('oidc-client-ts').UserManager;
  }
}

describeWithChromium('oidc-client-ts in Chromium', () => {
  let browser: Browser;
  let rp: RelyingParty;
  let app: WebClient;

  beforeAll(async () => {
    const origin = await relyingPartyOrigin();
    ({ app } = await createWebClients('oidc-client-ts', {
      app: {
        app_type: 'spa',
        token_endpoint_auth_method: 'none',
        grant_types: SPA_GRANTS,
        callbacks: [`${origin}/callback`, `${origin}/silent`],
        web_origins: [origin],
        allowed_origins: [origin],
        allowed_logout_urls: [`${origin}/signed-out`],
      },
    }));
    rp = await RelyingParty.start(origin, (express) => {
      express.get('/user-manager.js', (_req, res) => void res.type('application/javascript').send(USER_MANAGER_SCRIPT));
      express.get(['/', '/callback', '/silent', '/signed-out'], (_req, res) =>
        sendAppPage(res, 'oidc-client-ts.js', '/user-manager.js', { issuer: compat.issuer, clientId: app.clientId, audience: compat.apiAudience, origin }),
      );
    });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await rp?.close();
  });

  it('signs in with signinRedirect (code + PKCE), renews with signinSilent in an iframe, and signs out with signoutRedirect at the end_session_endpoint', async () => {
    const steps = new Steps('web-oidc-client-ts', 'code-flow');
    const context = await newContext(browser);
    const page = await context.newPage();
    const phone = randomPhone();

    await page.goto(rp.url('/'));
    await Promise.all([page.waitForURL((url) => url.href.startsWith(`${compat.issuer}authorize`)), page.evaluate(() => void window.userManager.signinRedirect())]);
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toMatchObject({ response_type: 'code', code_challenge_method: 'S256', audience: compat.apiAudience });
    await completeHostedLogin(page, phone, steps, (url) => url.href.startsWith(rp.url('/callback')));

    const user = await page.evaluate(() => window.userManager.signinRedirectCallback().then((u) => window.show({ profile: u.profile, scope: u.scope, access_token: u.access_token })));
    await steps.shot(page, 'signed-in');
    expect(user.profile).toMatchObject({ sub: expect.stringMatching(/^sms\|/), phone_number: phone, iss: compat.issuer, aud: app.clientId });

    const renewed = await page.evaluate(() => window.userManager.signinSilent().then((u) => window.show({ sub: u?.profile.sub, access_token: u?.access_token })));
    await steps.shot(page, 'renewed');
    expect(renewed.sub).toBe(user.profile.sub);
    const airport = await fetch(`${compat.airportUrl}/airportName?iataCode=SFO`, { headers: { authorization: `Bearer ${renewed.access_token}` } });
    expect(await airport.text()).toBe('San Francisco International Airport');

    const endSession = page.waitForRequest((request) => request.url().startsWith(compat.issuer) && new URL(request.url()).searchParams.has('post_logout_redirect_uri'));
    await Promise.all([page.waitForURL((url) => url.href.startsWith(rp.url('/signed-out'))), page.evaluate(() => void window.userManager.signoutRedirect())]);
    expect(Object.fromEntries(new URL((await endSession).url()).searchParams)).toMatchObject({ id_token_hint: expect.any(String), post_logout_redirect_uri: rp.url('/signed-out') });
    await page.evaluate(() => window.userManager.signoutRedirectCallback());
    await steps.shot(page, 'signed-out');

    const afterLogout = await page.evaluate(() => window.userManager.signinSilent().then(() => 'signed in', (err: { error?: string }) => err.error));
    expect(afterLogout).toBe('login_required');
    await context.close();
  });
});
