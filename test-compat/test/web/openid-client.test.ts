import type { Browser, BrowserContext, Page } from 'playwright-core';
import * as client from 'openid-client';
import { compat, randomPhone } from '../../src/fixtures';
import { completeHostedLogin, describeWithChromium, launchBrowser, newContext, Steps } from '../../src/web/browser';
import { RelyingParty, relyingPartyOrigin } from '../../src/web/relying-party';
import { createWebClients, ROTATING_REFRESH_TOKENS, SPA_GRANTS } from '../../src/web/tenant';

// openid-client (v6) in a web server: discovery, an authorization URL with PKCE, the code grant
// on the callback, then refresh. Two public clients on one origin, so that a code can be taken
// to the wrong client, verifier or redirect_uri.

type ClientKey = 'app' | 'other';

interface PendingLogin {
  config: client.Configuration;
  verifier: string;
  state: string;
  nonce: string;
}

/** What the app's callback received, with the login it belongs to. */
interface Callback extends PendingLogin {
  url: URL;
}

// A browser, a login through the hosted page and the relying parties take longer than the API tests.
jest.setTimeout(120_000);

describeWithChromium('openid-client: authorization code + PKCE in a web server', () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let rp: RelyingParty;
  let configs: Record<ClientKey, client.Configuration>;
  const pending = new Map<string, PendingLogin>();
  const callbacks: Callback[] = [];

  beforeAll(async () => {
    const origin = await relyingPartyOrigin();
    const settings = {
      app_type: 'spa' as const,
      token_endpoint_auth_method: 'none' as const,
      grant_types: SPA_GRANTS,
      callbacks: [`${origin}/callback`, `${origin}/elsewhere`],
      web_origins: [origin],
      allowed_logout_urls: [`${origin}/`],
      refresh_token: ROTATING_REFRESH_TOKENS,
    };
    const clients = await createWebClients('openid-client', { app: settings, other: settings });
    const discover = (clientId: string) => client.discovery(new URL(compat.issuer), clientId, undefined, client.None());
    configs = { app: await discover(clients.app.clientId), other: await discover(clients.other.clientId) };

    rp = await RelyingParty.start(origin, (app) => {
      app.get('/login', async (req, res) => {
        const config = configs[(req.query.client as ClientKey | undefined) ?? 'app'];
        const login = { config, verifier: client.randomPKCECodeVerifier(), state: client.randomState(), nonce: client.randomNonce() };
        pending.set(login.state, login);
        const url = client.buildAuthorizationUrl(config, {
          redirect_uri: `${origin}/callback`,
          scope: 'openid profile phone offline_access',
          audience: compat.apiAudience,
          code_challenge: await client.calculatePKCECodeChallenge(login.verifier),
          code_challenge_method: 'S256',
          state: login.state,
          nonce: login.nonce,
        });
        res.redirect(url.href);
      });
      app.get('/callback', (req, res) => {
        const url = new URL(req.originalUrl, origin);
        const login = pending.get(url.searchParams.get('state') ?? '');
        if (login) callbacks.push({ ...login, url });
        res.type('text').send(login ? 'Signed in: the server exchanges the code.' : 'Unknown state');
      });
    });
    browser = await launchBrowser();
    context = await newContext(browser);
    page = await context.newPage();
  });

  afterAll(async () => {
    await browser?.close();
    await rp?.close();
  });

  /** Starts a login at the app and waits for the app's callback (through the hosted login when `phone` is given). */
  async function login(key: ClientKey, steps: Steps, phone?: string): Promise<Callback> {
    const backOnCallback = (url: URL) => url.href.startsWith(rp.url('/callback'));
    if (phone) {
      await page.goto(rp.url(`/login?client=${key}`));
      await completeHostedLogin(page, phone, steps, backOnCallback);
    } else {
      // A live login session: /authorize answers at once.
      await Promise.all([page.waitForURL(backOnCallback), page.goto(rp.url(`/login?client=${key}`))]);
    }
    await steps.shot(page, `callback-${key}`);
    const received = callbacks.at(-1);
    if (!received || !backOnCallback(received.url)) throw new Error('the app received no callback');
    return received;
  }

  const exchange = (callback: Callback, overrides: Partial<Callback> = {}) => {
    const { config, url, verifier, state, nonce } = { ...callback, ...overrides };
    return client.authorizationCodeGrant(config, url, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce, idTokenExpected: true });
  };
  const errorOf = (promise: Promise<unknown>) => promise.then(() => 'accepted', (err: { error?: string; message: string }) => err.error ?? err.message);

  it('signs in with the code grant (ID token with nonce, auth_time and sid; a refresh token for offline_access), refreshes with rotation, and calls the airport API', async () => {
    const steps = new Steps('web-openid-client', 'code-flow');
    const phone = randomPhone();
    const callback = await login('app', steps, phone);
    expect(callback.url.searchParams.get('code')).toEqual(expect.any(String));

    const tokens = await exchange(callback);
    expect(tokens.claims()).toMatchObject({ iss: compat.issuer, aud: configs.app.clientMetadata().client_id, nonce: callback.nonce, phone_number: phone, auth_time: expect.any(Number), sid: expect.any(String) });
    expect(tokens).toMatchObject({ token_type: expect.stringMatching(/^bearer$/i), refresh_token: expect.any(String), expires_in: expect.any(Number) });

    const refreshed = await client.refreshTokenGrant(configs.app, tokens.refresh_token!);
    expect(refreshed.refresh_token).toEqual(expect.any(String));
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    const airport = await fetch(`${compat.airportUrl}/airportName?iataCode=SFO`, { headers: { authorization: `Bearer ${refreshed.access_token}` } });
    expect(await airport.text()).toBe('San Francisco International Airport');
  });

  describe('refuses a code', () => {
    const steps = new Steps('web-openid-client', 'refusals');

    it('used a second time, and revokes the refresh token the first use issued', async () => {
      const callback = await login('app', steps);
      const first = await exchange(callback);
      expect(await errorOf(exchange(callback))).toBe('invalid_grant');
      expect(await errorOf(client.refreshTokenGrant(configs.app, first.refresh_token!))).toBe('invalid_grant');
    });

    it('with a code_verifier that is not the one of its challenge', async () => {
      const callback = await login('app', steps);
      expect(await errorOf(exchange(callback, { verifier: client.randomPKCECodeVerifier() }))).toBe('invalid_grant');
    });

    it('issued to another client', async () => {
      const callback = await login('app', steps);
      expect(await errorOf(exchange(callback, { config: configs.other }))).toBe('invalid_grant');
    });

    it('with a redirect_uri other than the one it was issued for', async () => {
      const callback = await login('app', steps);
      const elsewhere = new URL(callback.url);
      elsewhere.pathname = '/elsewhere';
      expect(await errorOf(exchange(callback, { url: elsewhere }))).toBe('invalid_grant');
    });
  });
});
