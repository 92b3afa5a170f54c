import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { Express } from 'express';
import type { Browser } from 'playwright-core';
import { freePort } from '@smsauth/stack';
import { auth, requiresAuth } from 'express-openid-connect';
import { compat, randomPhone } from '../../src/fixtures';
import { completeHostedLogin, describeWithChromium, launchBrowser, newContext, Steps } from '../../src/web/browser';
import { RelyingParty, relyingPartyOrigin } from '../../src/web/relying-party';
import { createWebClients, REGULAR_WEB_GRANTS, type WebClient } from '../../src/web/tenant';

// OpenID Connect Back-Channel Logout with a library that consumes it: express-openid-connect's
// `backchannelLogout` (its POST /backchannel-logout verifies the logout_token with identity's
// JWKS and records the sid; its middleware then drops a session whose sid was logged out). The
// user signs in to two apps with one SMS and logs out of the other one: this app's session ends
// although the browser never came back to it.

jest.setTimeout(120_000);

/** The logout store express-openid-connect asks for (express-session's callback shape), in memory. */
class MemoryLogoutStore {
  readonly entries = new Map<string, unknown>();
  // `never`: the library's own payload type is not exported; whatever it stored comes back.
  get(key: string, cb: (err: unknown, value?: never) => void): void {
    cb(null, this.entries.get(key) as never);
  }
  set(key: string, value: unknown, cb: (err: unknown) => void): void {
    this.entries.set(key, value);
    cb(null);
  }
  destroy(key: string, cb: (err: unknown) => void): void {
    this.entries.delete(key);
    cb(null);
  }
}

describeWithChromium('express-openid-connect back-channel logout, and front-channel logout', () => {
  let browser: Browser;
  const apps: RelyingParty[] = [];
  let notified: RelyingParty;
  let other: RelyingParty;
  let clients: Record<'notified' | 'other', WebClient>;
  const store = new MemoryLogoutStore();
  let backchannel: Server;
  /** The query of each request the first app's front-channel logout route got. */
  const framed: Array<Record<string, string>> = [];

  beforeAll(async () => {
    const origins = { notified: await relyingPartyOrigin(), other: await relyingPartyOrigin() };
    // The app's certificate is its own (identity does not trust it), so identity reaches the same
    // app over plain http on 127.0.0.1, as in local development (http is allowed for localhost only).
    const backchannelPort = await freePort();
    const regularWeb = (origin: string) => ({
      app_type: 'regular_web' as const,
      token_endpoint_auth_method: 'client_secret_post' as const,
      grant_types: REGULAR_WEB_GRANTS,
      callbacks: [`${origin}/callback`],
      allowed_logout_urls: [origin, `${origin}/`],
    });
    clients = await createWebClients('backchannel', {
      // Registered as in Auth0's dashboard: the library's route, on the app's own origin.
      notified: {
        ...regularWeb(origins.notified),
        oidc_logout: {
          backchannel_logout_urls: [`http://127.0.0.1:${backchannelPort}/backchannel-logout`],
          // Not an Auth0 field: identity's logout page frames it (OpenID Connect Front-Channel Logout).
          frontchannel_logout_url: `${origins.notified}/frontchannel-logout`,
        },
      },
      other: regularWeb(origins.other),
    });
    // Cookies are not kept apart by port: each app has a session cookie (and key) of its own.
    const common = (name: string) => ({
      issuerBaseURL: compat.issuer,
      secret: randomBytes(32).toString('hex'),
      session: { name },
      authRequired: false,
      authorizationParams: { response_type: 'code', scope: 'openid' },
    });
    let notifiedApp: Express | undefined;
    notified = await RelyingParty.start(origins.notified, (app) => {
      notifiedApp = app;
      app.use(
        auth({ ...common('notifiedSession'), baseURL: origins.notified, clientID: clients.notified.clientId, clientSecret: clients.notified.clientSecret, backchannelLogout: { store } }),
      );
      app.get('/profile', requiresAuth(), (req, res) => void res.json({ sid: req.oidc.idTokenClaims?.sid, sub: req.oidc.user?.sub }));
      // Only records what it was framed with: the session must end by the back channel.
      app.get('/frontchannel-logout', (req, res) => {
        framed.push(Object.fromEntries(new URLSearchParams(req.url.split('?')[1] ?? '')));
        res.set('cache-control', 'no-store').type('html').send('<!doctype html><title>Logged out</title>');
      });
    });
    backchannel = createServer(notifiedApp!);
    await new Promise<void>((resolve) => backchannel.listen(backchannelPort, '127.0.0.1', resolve));
    other = await RelyingParty.start(origins.other, (app) => {
      app.use(auth({ ...common('otherSession'), baseURL: origins.other, clientID: clients.other.clientId, clientSecret: clients.other.clientSecret, idpLogout: true }));
      app.get('/profile', requiresAuth(), (req, res) => void res.json({ sid: req.oidc.idTokenClaims?.sid }));
    });
    apps.push(notified, other);
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await Promise.all(apps.map((app) => app.close()));
    backchannel?.closeAllConnections();
    await new Promise((resolve) => backchannel?.close(resolve));
  });

  it("ends the app's own session when the user logs out through another app of the same login session (and frames its front-channel URL)", async () => {
    const steps = new Steps('web-backchannel-logout', 'express-openid-connect');
    const context = await newContext(browser);
    const page = await context.newPage();
    const cspViolations: string[] = [];
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) cspViolations.push(message.text());
    });

    await page.goto(notified.url('/profile'));
    await completeHostedLogin(page, randomPhone(), steps, (url) => url.href.startsWith(notified.url('/profile')));
    const signedIn = JSON.parse((await page.locator('body').textContent()) ?? '') as { sid: string; sub: string };
    expect(signedIn.sid).toMatch(/\S/);

    // Single sign-on into the other app (no SMS), the same session (sid).
    await page.goto(other.url('/profile'));
    await page.waitForURL((url) => url.href.startsWith(other.url('/profile')));
    expect(JSON.parse((await page.locator('body').textContent()) ?? '')).toEqual({ sid: signedIn.sid });
    // The first app's own session (its appSession cookie) is still there.
    await page.goto(notified.url('/profile'));
    expect(page.url()).toBe(notified.url('/profile'));

    // Logging out of the other app goes through identity's end_session_endpoint, whose page frames
    // the first app's front-channel logout URL (with iss and sid) and then goes back ...
    await Promise.all([page.waitForURL(other.url('/')), page.goto(other.url('/logout'))]);
    await steps.shot(page, 'logged-out-of-other-app');
    expect(framed).toEqual([{ iss: compat.issuer, sid: signedIn.sid }]);
    expect(cspViolations).toEqual([]);
    // ... and identity's worker POSTs a logout_token to the first app's /backchannel-logout.
    const key = `${compat.issuer}|${signedIn.sid}`;
    for (let waited = 0; !store.entries.has(key) && waited < 15_000; waited += 200) await new Promise((resolve) => setTimeout(resolve, 200));
    expect(store.entries.has(key)).toBe(true);

    // The first app's cookie is unchanged, yet its session is over: back to the hosted login.
    await page.goto(notified.url('/profile'));
    expect(page.url().startsWith(`${compat.issuer}authorize`)).toBe(true);
    await steps.shot(page, 'first-app-signed-out');
    await context.close();
  });
});
