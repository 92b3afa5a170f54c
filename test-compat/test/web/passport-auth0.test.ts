import { randomBytes } from 'node:crypto';
import type { Browser } from 'playwright-core';
import session from 'express-session';
import { Passport } from 'passport';
import Auth0Strategy from 'passport-auth0';
import { compat, randomPhone } from '../../src/fixtures';
import { completeHostedLogin, describeWithChromium, launchBrowser, newContext, Steps } from '../../src/web/browser';
import { RelyingParty, relyingPartyOrigin } from '../../src/web/relying-party';
import { createWebClients, REGULAR_WEB_GRANTS, type WebClient } from '../../src/web/tenant';

// passport-auth0 as its README shows: express-session, passport, and the Auth0Strategy with a
// domain, client id and secret and a callback URL (code flow; the profile comes from /userinfo).

// A browser, a login through the hosted page and the relying parties take longer than the API tests.
jest.setTimeout(120_000);

interface SignedIn {
  profile: { id: string; _json: Record<string, unknown> };
  accessToken: string;
}

describeWithChromium('passport-auth0 with a real browser', () => {
  let browser: Browser;
  let rp: RelyingParty;
  let app: WebClient;

  beforeAll(async () => {
    const origin = await relyingPartyOrigin();
    ({ app } = await createWebClients('passport-auth0', {
      app: {
        app_type: 'regular_web',
        token_endpoint_auth_method: 'client_secret_post',
        grant_types: REGULAR_WEB_GRANTS,
        callbacks: [`${origin}/callback`],
        allowed_logout_urls: [`${origin}/`],
      },
    }));
    // A Passport of its own, so nothing is left on the module's shared instance.
    const passport = new Passport();
    passport.use(
      new Auth0Strategy(
        { domain: compat.domain, clientID: app.clientId, clientSecret: app.clientSecret!, callbackURL: `${origin}/callback`, state: true },
        (accessToken: string, _refreshToken: string, _extraParams: unknown, profile: SignedIn['profile'], done: (err: null, user: SignedIn) => void) =>
          done(null, { profile, accessToken }),
      ),
    );
    passport.serializeUser((user, done) => done(null, user));
    passport.deserializeUser((user: SignedIn, done) => done(null, user));
    rp = await RelyingParty.start(origin, (express) => {
      express.use(session({ secret: randomBytes(32).toString('hex'), resave: false, saveUninitialized: false }));
      express.use(passport.initialize());
      express.use(passport.session());
      express.get('/login', passport.authenticate('auth0', { scope: 'openid profile phone', audience: compat.apiAudience } as object));
      express.get('/callback', passport.authenticate('auth0', { failureRedirect: '/failed' }), (_req, res) => res.redirect('/profile'));
      express.get('/failed', (_req, res) => void res.status(401).send('Sign-in failed'));
      express.get('/profile', async (req, res) => {
        const user = req.user as SignedIn | undefined;
        if (!user) return void res.redirect('/login');
        const airport = await fetch(`${compat.airportUrl}/airportName?iataCode=SFO`, { headers: { authorization: `Bearer ${user.accessToken}` } });
        res.json({ id: user.profile.id, profile: user.profile._json, airport: await airport.text() });
      });
    });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await rp?.close();
  });

  it('signs in with the code flow and its secret; the profile (from /userinfo) holds the phone and the access token reaches the airport API', async () => {
    const steps = new Steps('web-passport-auth0', 'code-flow');
    const context = await newContext(browser);
    const page = await context.newPage();
    const phone = randomPhone();

    await page.goto(rp.url('/login'));
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toMatchObject({ response_type: 'code', client_id: app.clientId });
    // Back at the app: /profile, or the callback's error page (whose text then says why).
    await completeHostedLogin(page, phone, steps, (url) => url.origin === rp.origin);
    await steps.shot(page, 'profile');
    expect({ url: page.url(), text: page.url() === rp.url('/profile') ? '' : await page.locator('body').textContent() }).toEqual({ url: rp.url('/profile'), text: '' });
    const profile = JSON.parse((await page.locator('body').textContent()) ?? '') as { id: string; profile: Record<string, unknown>; airport: string };
    expect(profile).toMatchObject({ id: expect.stringMatching(/^sms\|/), profile: { phone_number: phone }, airport: 'San Francisco International Airport' });
    await context.close();
  });
});
