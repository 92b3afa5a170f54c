import type { Browser, Page } from 'playwright-core';
import { compat, messagesSentTo, randomPhone } from '../../src/fixtures';
import { managementClient } from '../../src/sdk';
import { completeHostedLogin, describeWithChromium, launchBrowser, newContext, Steps } from '../../src/web/browser';
import { PAGE_PRELUDE, RelyingParty, relyingPartyOrigin, sendAppPage } from '../../src/web/relying-party';
import { createWebClients, ROTATING_REFRESH_TOKENS, SPA_GRANTS, type WebClient } from '../../src/web/tenant';

// @auth0/auth0-spa-js, from its browser build, configured as its README shows: a domain, a client
// id and authorizationParams. Each app is a SPA of its own (client, origin) on https://localhost.

const SPA_SCRIPT = `${PAGE_PRELUDE}
window.client = new auth0.Auth0Client({
  domain: settings.domain,
  clientId: settings.clientId,
  useRefreshTokens: settings.useRefreshTokens,
  // A silent authentication that fails says so within 20 s instead of the default minute.
  authorizeTimeoutInSeconds: 20,
  // Kept in localStorage in refresh-token mode so that the token requests come from the page, not a worker.
  cacheLocation: settings.useRefreshTokens ? 'localstorage' : 'memory',
  authorizationParams: { redirect_uri: settings.origin + '/callback', audience: settings.audience, scope: 'openid profile phone' },
});
`;

interface SpaApp {
  rp: RelyingParty;
  client: WebClient;
}

declare const client: import('@auth0/auth0-spa-js').Auth0Client;

// A browser, a login through the hosted page and the relying parties take longer than the API tests.
jest.setTimeout(120_000);

describeWithChromium('@auth0/auth0-spa-js in Chromium', () => {
  let browser: Browser;
  let iframeApp: SpaApp;
  let refreshApp: SpaApp;

  beforeAll(async () => {
    const origins = { iframe: await relyingPartyOrigin(), refresh: await relyingPartyOrigin() };
    const spa = (origin: string) => ({
      app_type: 'spa' as const,
      token_endpoint_auth_method: 'none' as const,
      grant_types: SPA_GRANTS,
      callbacks: [`${origin}/callback`],
      web_origins: [origin],
      allowed_origins: [origin],
      allowed_logout_urls: [`${origin}/`],
    });
    const clients = await createWebClients('spa-js', {
      iframe: spa(origins.iframe),
      refresh: { ...spa(origins.refresh), refresh_token: ROTATING_REFRESH_TOKENS },
    });
    const start = (origin: string, webClient: WebClient, useRefreshTokens: boolean) =>
      RelyingParty.start(origin, (app) => {
        app.get('/spa.js', (_req, res) => void res.type('application/javascript').send(SPA_SCRIPT));
        app.get(['/', '/callback'], (_req, res) =>
          sendAppPage(res, 'auth0-spa-js.js', '/spa.js', { domain: compat.domain, clientId: webClient.clientId, audience: compat.apiAudience, origin, useRefreshTokens }),
        );
      });
    iframeApp = { rp: await start(origins.iframe, clients.iframe, false), client: clients.iframe };
    refreshApp = { rp: await start(origins.refresh, clients.refresh, true), client: clients.refresh };
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await iframeApp?.rp.close();
    await refreshApp?.rp.close();
  });

  /** Opens the app and starts loginWithRedirect; resolves on identity's page. */
  async function startLogin(page: Page, app: SpaApp, leavesFor: (url: URL) => boolean = (url) => url.href.startsWith(`${compat.issuer}authorize`)): Promise<URLSearchParams> {
    await page.goto(app.rp.url('/'));
    const authorize = page.waitForRequest((request) => request.url().startsWith(`${compat.issuer}authorize`));
    await Promise.all([page.waitForURL(leavesFor), page.evaluate(() => void client.loginWithRedirect())]);
    return new URL((await authorize).url()).searchParams;
  }

  const backOnCallback = (app: SpaApp) => (url: URL) => url.href.startsWith(app.rp.url('/callback'));

  /** Every token request the page made, as the form (or JSON) it sent. */
  function recordTokenRequests(page: Page): Array<Record<string, string>> {
    const bodies: Array<Record<string, string>> = [];
    page.on('request', (request) => {
      if (request.method() !== 'POST' || request.url() !== `${compat.issuer}oauth/token`) return;
      const body = request.postData() ?? '';
      bodies.push(body.startsWith('{') ? (JSON.parse(body) as Record<string, string>) : Object.fromEntries(new URLSearchParams(body)));
    });
    return bodies;
  }

  it('signs in with loginWithRedirect (code + PKCE), handleRedirectCallback and getUser, renews in a hidden iframe with getTokenSilently, and logs out', async () => {
    const steps = new Steps('web-auth0-spa-js', 'iframe');
    const context = await newContext(browser);
    const page = await context.newPage();
    const tokenRequests = recordTokenRequests(page);
    const phone = randomPhone();

    const authorize = await startLogin(page, iframeApp);
    expect(Object.fromEntries(authorize)).toMatchObject({
      client_id: iframeApp.client.clientId,
      response_type: 'code',
      response_mode: 'query',
      code_challenge_method: 'S256',
      redirect_uri: iframeApp.rp.url('/callback'),
    });
    await steps.shot(page, 'hosted-login');
    await completeHostedLogin(page, phone, steps, backOnCallback(iframeApp));
    await page.evaluate(() => client.handleRedirectCallback());
    const user = await page.evaluate(() => client.getUser().then((u) => window.show(u)));
    await steps.shot(page, 'signed-in');
    expect(user).toMatchObject({ sub: expect.stringMatching(/^sms\|/), phone_number: phone });
    expect(tokenRequests).toEqual([expect.objectContaining({ grant_type: 'authorization_code', client_id: iframeApp.client.clientId, code_verifier: expect.any(String) })]);

    // No refresh token in this mode: a new token comes from /authorize?prompt=none in a hidden iframe (web_message).
    const silentAuthorize = page.waitForRequest((request) => request.url().startsWith(`${compat.issuer}authorize`));
    const renewed = await page.evaluate(() => client.getTokenSilently({ cacheMode: 'off', detailedResponse: true }));
    expect(Object.fromEntries(new URL((await silentAuthorize).url()).searchParams)).toMatchObject({ prompt: 'none', response_mode: 'web_message' });
    expect(renewed).toMatchObject({ access_token: expect.any(String), id_token: expect.any(String) });
    const airport = await fetch(`${compat.airportUrl}/airportName?iataCode=SFO`, { headers: { authorization: `Bearer ${renewed!.access_token}` } });
    expect(await airport.text()).toBe('San Francisco International Airport');

    await Promise.all([
      page.waitForURL(iframeApp.rp.url('/')),
      page.evaluate(() => void client.logout({ logoutParams: { returnTo: window.settings.origin + '/' } })),
    ]);
    await steps.shot(page, 'logged-out');
    // The login session is over: silent authentication now needs a login.
    const afterLogout = await page.evaluate(() => client.getTokenSilently({ cacheMode: 'off' }).then(() => 'signed in', (err: { error?: string }) => err.error));
    expect(afterLogout).toBe('login_required');
    await context.close();
  });

  it('with useRefreshTokens, renews through the refresh_token grant from the browser (CORS) and rotates the refresh token', async () => {
    const steps = new Steps('web-auth0-spa-js', 'refresh-token');
    const context = await newContext(browser);
    const page = await context.newPage();
    const tokenRequests = recordTokenRequests(page);

    const authorize = await startLogin(page, refreshApp);
    expect(authorize.get('scope')?.split(' ')).toContain('offline_access');
    await completeHostedLogin(page, randomPhone(), steps, backOnCallback(refreshApp));
    await page.evaluate(() => client.handleRedirectCallback());
    // spa-js's cache entries (its key manifest, also under @@auth0spajs@@, has no body).
    const storedRefreshToken = () =>
      page.evaluate(() =>
        Object.keys(localStorage)
          .filter((key) => key.startsWith('@@auth0spajs@@'))
          .map((key) => (JSON.parse(localStorage.getItem(key)!) as { body?: { refresh_token?: string } }).body?.refresh_token)
          .find((token) => token !== undefined),
      );
    const firstRefreshToken = await storedRefreshToken();
    expect(firstRefreshToken).toEqual(expect.any(String));
    const renewed = await page.evaluate(() => client.getTokenSilently({ cacheMode: 'off', detailedResponse: true }));
    await steps.shot(page, 'renewed');
    expect(renewed!.access_token).toEqual(expect.any(String));
    // Rotation: the refresh grant was sent the first refresh token and answered a new one.
    expect(tokenRequests[1]).toMatchObject({ refresh_token: firstRefreshToken });
    const rotated = await storedRefreshToken();
    expect(rotated).toEqual(expect.any(String));
    expect(rotated).not.toBe(firstRefreshToken);
    expect(tokenRequests.map((r) => r.grant_type)).toEqual(['authorization_code', 'refresh_token']);
    await context.close();
  });

  it('signs a user in to a second app with no SMS and no login page once they signed in to the first (single sign-on)', async () => {
    const steps = new Steps('web-auth0-spa-js', 'sso');
    const context = await newContext(browser);
    const page = await context.newPage();
    const phone = randomPhone();

    await startLogin(page, iframeApp);
    await completeHostedLogin(page, phone, steps, backOnCallback(iframeApp));
    await page.evaluate(() => client.handleRedirectCallback());
    const first = await page.evaluate(() => client.getUser());

    // The second app's loginWithRedirect comes straight back with a code.
    await startLogin(page, refreshApp, backOnCallback(refreshApp));
    await page.evaluate(() => client.handleRedirectCallback());
    const second = await page.evaluate(() => client.getUser().then((u) => window.show(u)));
    await steps.shot(page, 'second-app-signed-in');
    expect(second?.sub).toBe(first?.sub);
    expect(await messagesSentTo(phone)).toBe(1);
    await context.close();
  });

  it('stops silent authentication once the management API revoked the user\'s sessions', async () => {
    const steps = new Steps('web-auth0-spa-js', 'revoked-session');
    const context = await newContext(browser);
    const page = await context.newPage();

    await startLogin(page, iframeApp);
    await completeHostedLogin(page, randomPhone(), steps, backOnCallback(iframeApp));
    await page.evaluate(() => client.handleRedirectCallback());
    const user = await page.evaluate(() => client.getUser());
    expect(await page.evaluate(() => client.getTokenSilently({ cacheMode: 'off' }))).toEqual(expect.any(String));

    const management = managementClient();
    const sessions = await management.users.sessions.list(user!.sub!);
    expect(sessions.data).toHaveLength(1);
    await management.users.sessions.delete(user!.sub!);
    const afterRevocation = await page.evaluate(() => client.getTokenSilently({ cacheMode: 'off' }).then(() => 'signed in', (err: { error?: string }) => err.error));
    await steps.shot(page, 'after-revocation');
    expect(afterRevocation).toBe('login_required');
    await context.close();
  });
});
