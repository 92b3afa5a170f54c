import { randomBytes } from 'node:crypto';
import Auth0 from '@auth/core/providers/auth0';
import { ExpressAuth, getSession } from '@auth/express';
import type { Browser } from 'playwright-core';
import { compat, randomPhone } from '../../src/fixtures';
import { completeHostedLogin, describeWithChromium, launchBrowser, newContext, Steps } from '../../src/web/browser';
import { RelyingParty, relyingPartyOrigin } from '../../src/web/relying-party';
import { createWebClients, REGULAR_WEB_GRANTS, type WebClient } from '../../src/web/tenant';

// Auth.js (@auth/express) with its Auth0 provider, mounted as its docs show: `ExpressAuth({
// providers: [Auth0({ issuer, clientId, clientSecret })] })` at /auth. The provider asks for
// `openid profile email` and builds session.user from the ID token's name, email and picture:
// for an SMS user, name (the number) and no picture (docs/identity.md, "Claims by scope").

jest.setTimeout(120_000);

describeWithChromium('Auth.js (@auth/express) with its Auth0 provider and a real browser', () => {
  let browser: Browser;
  let app: RelyingParty;
  let client: WebClient;

  beforeAll(async () => {
    const origin = await relyingPartyOrigin();
    ({ authjs: client } = await createWebClients('authjs', {
      authjs: {
        app_type: 'regular_web' as const,
        token_endpoint_auth_method: 'client_secret_basic' as const,
        grant_types: REGULAR_WEB_GRANTS,
        callbacks: [`${origin}/auth/callback/auth0`],
      },
    }));
    const authConfig = {
      providers: [Auth0({ issuer: compat.issuer, clientId: client.clientId, clientSecret: client.clientSecret })],
      secret: randomBytes(32).toString('hex'),
      trustHost: true,
    };
    app = await RelyingParty.start(origin, (express) => {
      express.set('trust proxy', true);
      // @auth/express finds its base path by cutting req.params[0] off req.baseUrl (Express 4's
      // `/auth/*`); Express 5 names wildcards, so a regular expression gives it that numbered capture.
      express.use(/^\/auth\/(.*)/, ExpressAuth(authConfig));
      express.get('/', async (req, res) => void res.json({ session: await getSession(req, authConfig) }));
    });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('signs in through the hosted login: session.user holds the name (the number), not {}', async () => {
    const steps = new Steps('web-auth-js-express', 'sign-in');
    const context = await newContext(browser);
    const page = await context.newPage();
    const phone = randomPhone();

    await page.goto(app.url('/auth/signin'));
    await Promise.all([page.waitForURL((url) => url.href.startsWith(`${compat.issuer}authorize`)), page.getByRole('button', { name: /Auth0/ }).click()]);
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toMatchObject({ response_type: 'code', client_id: client.clientId, scope: 'openid profile email' });
    await completeHostedLogin(page, phone, steps, (url) => url.href.startsWith(app.origin) && !url.pathname.startsWith('/auth/callback'));

    await page.goto(app.url('/auth/session'));
    await steps.shot(page, 'session');
    const session = JSON.parse((await page.locator('body').textContent()) ?? '') as { user?: Record<string, unknown> };
    // No email (SMS users have none) and no image (no picture claim): Auth.js leaves them out.
    expect(session.user).toEqual({ name: phone });
    await context.close();
  });
});
