import type { Browser, Page } from 'playwright-core';
import { compat } from '../../src/fixtures';
import { describeWithChromium, launchBrowser, newContext, Steps } from '../../src/web/browser';
import { RelyingParty, relyingPartyOrigin } from '../../src/web/relying-party';
import { createWebClients, SPA_GRANTS, type WebClient } from '../../src/web/tenant';

// What a browser lets a page of another origin do with identity: CORS only for a client's
// registered web origins, and the web_message answer only to a registered origin.

// A browser and the relying parties take longer than the API tests.
jest.setTimeout(120_000);

describeWithChromium('identity and pages of other origins, in Chromium', () => {
  let browser: Browser;
  let registered: RelyingParty;
  let unlisted: RelyingParty;
  let app: WebClient;

  beforeAll(async () => {
    const origin = await relyingPartyOrigin();
    ({ app } = await createWebClients('cross-origin', {
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
    const blankPage = (rp: Parameters<Parameters<typeof RelyingParty.start>[1]>[0]) =>
      void rp.get('/', (_req, res) => void res.type('html').send('<!doctype html><html lang="en"><head><title>App</title></head><body>App</body></html>'));
    registered = await RelyingParty.start(origin, blankPage);
    unlisted = await RelyingParty.start(await relyingPartyOrigin(), blankPage);
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await registered?.close();
    await unlisted?.close();
  });

  /** What the page's fetch of `path` gives: the HTTP status, or the browser's refusal. */
  function fetchFrom(page: Page, path: string, init: RequestInit): Promise<number | string> {
    return page.evaluate(
      ([url, options]) => fetch(url, options).then((res) => res.status, (err: Error) => `refused: ${err.name}`),
      [`${compat.issuer}${path}`, init] as const,
    );
  }

  const tokenRequest = (clientId: string): RequestInit => ({
    method: 'POST',
    // The header spa-js sends, which needs a preflight.
    headers: { 'content-type': 'application/json', 'auth0-client': btoa(JSON.stringify({ name: 'auth0-spa-js', version: '2.28.3' })) },
    body: JSON.stringify({ grant_type: 'authorization_code', client_id: clientId, code: 'not-a-code', code_verifier: 'x'.repeat(43), redirect_uri: registered.url('/callback') }),
  });

  it("answers a registered web origin's token, userinfo, discovery and JWKS requests, preflight included", async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.goto(registered.url('/'));
    // An unknown code: invalid_grant, 400 as RFC 6749 §5.2 says (Auth0 answers 403). The point: the page gets to read the answer.
    expect(await fetchFrom(page, 'oauth/token', tokenRequest(app.clientId))).toBe(400);
    expect(await fetchFrom(page, 'userinfo', { headers: { authorization: 'Bearer not-a-token' } })).toBe(401);
    expect(await fetchFrom(page, '.well-known/openid-configuration', {})).toBe(200);
    expect(await fetchFrom(page, '.well-known/jwks.json', {})).toBe(200);
    await context.close();
  });

  it('gives a page of an unlisted origin no CORS answer: the browser refuses it the token and userinfo responses', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.goto(unlisted.url('/'));
    expect(await fetchFrom(page, 'oauth/token', tokenRequest(app.clientId))).toBe('refused: TypeError');
    expect(await fetchFrom(page, 'userinfo', { headers: { authorization: 'Bearer not-a-token' } })).toBe('refused: TypeError');
    const preflight = await fetch(`${compat.issuer}oauth/token`, {
      method: 'OPTIONS',
      headers: { origin: unlisted.origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,auth0-client' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    await context.close();
  });

  function webMessageAuthorize(redirectUri: string): string {
    const query = new URLSearchParams({
      client_id: app.clientId,
      response_type: 'code',
      response_mode: 'web_message',
      prompt: 'none',
      redirect_uri: redirectUri,
      state: 'web-message-state',
      nonce: 'web-message-nonce',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    });
    return `${compat.issuer}authorize?${query.toString()}`;
  }

  it('answers web_message with a page that only its registered origin may frame, and that posts to that origin', async () => {
    const steps = new Steps('web-cross-origin', 'web-message');
    const context = await newContext(browser);
    const page = await context.newPage();
    const response = await page.goto(webMessageAuthorize(registered.origin));
    await steps.shot(page, 'registered');
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toMatch(new RegExp(`frame-ancestors ${registered.origin}(;|$)`));
    expect(await response?.text()).toContain('authorization_response');
    await context.close();
  });

  it('refuses to answer web_message to an origin the client has not registered: an error page, nothing posted', async () => {
    const steps = new Steps('web-cross-origin', 'web-message');
    const context = await newContext(browser);
    const page = await context.newPage();
    const response = await page.goto(webMessageAuthorize(unlisted.origin));
    await steps.shot(page, 'unlisted');
    expect(response?.status()).toBe(400);
    const body = (await response?.text()) ?? '';
    expect(body).not.toContain('authorization_response');
    await context.close();
  });
});
