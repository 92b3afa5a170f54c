import { randomBytes } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { auth, requiresAuth } from 'express-openid-connect';
import { compat, randomPhone } from '../../src/fixtures';
import { completeHostedLogin, describeWithChromium, launchBrowser, newContext, Steps } from '../../src/web/browser';
import { RelyingParty, relyingPartyOrigin } from '../../src/web/relying-party';
import { createWebClients, REGULAR_WEB_GRANTS, type WebClient } from '../../src/web/tenant';

// express-openid-connect (v3), mounted as its README shows: `auth({ issuerBaseURL, baseURL,
// clientID, ... })` and `req.oidc`. Once with a client secret and the code flow, once with its
// defaults (no secret: response_type id_token, response_mode form_post).

// A browser, a login through the hosted page and the relying parties take longer than the API tests.
jest.setTimeout(120_000);

describeWithChromium('express-openid-connect with a real browser', () => {
  let browser: Browser;
  const apps: RelyingParty[] = [];
  let codeFlow: RelyingParty;
  let defaults: RelyingParty;
  let clients: Record<'codeFlow' | 'defaults', WebClient>;

  beforeAll(async () => {
    const origins = { codeFlow: await relyingPartyOrigin(), defaults: await relyingPartyOrigin() };
    const regularWeb = (origin: string) => ({
      app_type: 'regular_web' as const,
      token_endpoint_auth_method: 'client_secret_post' as const,
      grant_types: REGULAR_WEB_GRANTS,
      callbacks: [`${origin}/callback`],
      // Its logout returns to baseURL as given, without a trailing slash.
      allowed_logout_urls: [origin, `${origin}/`],
    });
    clients = await createWebClients('express-oidc', { codeFlow: regularWeb(origins.codeFlow), defaults: regularWeb(origins.defaults) });

    codeFlow = await RelyingParty.start(origins.codeFlow, (app) => {
      app.use(
        auth({
          issuerBaseURL: compat.issuer,
          baseURL: origins.codeFlow,
          clientID: clients.codeFlow.clientId,
          clientSecret: clients.codeFlow.clientSecret,
          secret: randomBytes(32).toString('hex'),
          authRequired: false,
          idpLogout: true,
          authorizationParams: { response_type: 'code', audience: compat.apiAudience, scope: 'openid profile phone' },
        }),
      );
      app.get('/profile', requiresAuth(), async (req, res) => {
        const airport = await fetch(`${compat.airportUrl}/airportName?iataCode=SFO`, { headers: { authorization: `Bearer ${req.oidc.accessToken!.access_token}` } });
        res.json({ user: req.oidc.user, airport: { status: airport.status, body: await airport.text() } });
      });
    });
    defaults = await RelyingParty.start(origins.defaults, (app) => {
      app.use(auth({ issuerBaseURL: compat.issuer, baseURL: origins.defaults, clientID: clients.defaults.clientId, secret: randomBytes(32).toString('hex'), authRequired: false }));
      app.get('/profile', requiresAuth(), (req, res) => void res.json({ user: req.oidc.user }));
    });
    apps.push(codeFlow, defaults);
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await Promise.all(apps.map((app) => app.close()));
  });

  it('signs in with the code flow and its client secret: req.oidc.user holds the phone, and its access token is accepted by the airport API', async () => {
    const steps = new Steps('web-express-openid-connect', 'code-flow');
    const context = await newContext(browser);
    const page = await context.newPage();
    const phone = randomPhone();

    await page.goto(codeFlow.url('/profile'));
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toMatchObject({ response_type: 'code', client_id: clients.codeFlow.clientId });
    await completeHostedLogin(page, phone, steps, (url) => url.href.startsWith(codeFlow.url('/profile')));
    await steps.shot(page, 'profile');
    const profile = JSON.parse((await page.locator('body').textContent()) ?? '') as { user: Record<string, unknown>; airport: { status: number; body: string } };
    expect(profile.user).toMatchObject({ sub: expect.stringMatching(/^sms\|/), phone_number: phone });
    expect(profile.airport).toEqual({ status: 200, body: 'San Francisco International Airport' });

    // idpLogout: the app's /logout goes through identity's end_session_endpoint and back.
    await Promise.all([page.waitForURL(codeFlow.url('/')), page.goto(codeFlow.url('/logout'))]);
    await steps.shot(page, 'logged-out');
    await page.goto(codeFlow.url('/profile'));
    expect(page.url().startsWith(`${compat.issuer}authorize`)).toBe(true);
    await context.close();
  });

  it('signs in with its defaults (response_type id_token, response_mode form_post): req.oidc.user holds the number as its profile name', async () => {
    const steps = new Steps('web-express-openid-connect', 'form-post');
    const context = await newContext(browser);
    const page = await context.newPage();
    const phone = randomPhone();

    await page.goto(defaults.url('/profile'));
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toMatchObject({ response_type: 'id_token', response_mode: 'form_post' });
    await completeHostedLogin(page, phone, steps, (url) => url.href.startsWith(defaults.url('/profile')));
    await steps.shot(page, 'profile');
    const profile = JSON.parse((await page.locator('body').textContent()) ?? '') as { user: Record<string, unknown> };
    // Its default scope is `openid profile email`: the profile claims, whose name is the number
    // (Auth0's SMS users'); phone_number only comes with the `phone` scope.
    expect(profile.user).toMatchObject({ sub: expect.stringMatching(/^sms\|/), name: phone, nickname: phone });
    expect(profile.user).not.toHaveProperty('phone_number');
    await context.close();
  });
});
