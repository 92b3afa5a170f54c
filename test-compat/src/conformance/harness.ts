import { createHash, randomBytes } from 'node:crypto';
import express from 'express';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { compat, randomPhone } from '../fixtures';
import { completeHostedLogin, launchBrowser, newContext, Steps } from '../web/browser';
import { RelyingParty, relyingPartyOrigin } from '../web/relying-party';
import { createWebClients, type WebClient, type WebClientSettings } from '../web/tenant';

// What the OpenID Foundation's conformance suite does as the client of a test module, replayed
// against identity: the same authorization requests (parameters in the suite's order), the
// browser at the hosted login (Chromium, the code read from the gateway's outbox), the same
// token, UserInfo and end-session requests, and the checks of the suite's conditions, named
// after them in comments so a failure can be traced to the module's log.

/** The discovery document, as the suite reads it (GetDynamicServerConfiguration). */
export type Discovery = Record<string, unknown> & {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  userinfo_endpoint: string;
  jwks_uri: string;
  end_session_endpoint: string;
  scopes_supported?: string[];
  claims_supported?: string[];
};

/** A request the relying party received: the authorization response or the post-logout redirect. */
export interface Received {
  method: string;
  path: string;
  query: Record<string, string>;
  body: Record<string, string>;
  contentType?: string;
}

/**
 * Whether the hosted login may be shown: `true`, it is completed when shown; `'required'`, it
 * must be (prompt=login, max_age); otherwise the module expects an answer without the user.
 */
export type Login = boolean | 'required';

export type ClientAuth = 'client_secret_basic' | 'client_secret_post';

export interface SuiteClient extends WebClient {
  clientSecret: string;
  auth: ClientAuth;
}

/** An authorization request as the suite builds it (CreateAuthorizationRequestSteps). */
export interface AuthorizationRequest {
  client: SuiteClient;
  params: Record<string, string>;
}

export interface TokenResponse {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

export interface IdToken {
  value: string;
  claims: JWTPayload & Record<string, unknown>;
}

/** The outcome of the flow every module starts with (AbstractOIDCCServerTest). */
export interface CompletedFlow {
  request: AuthorizationRequest;
  response: Record<string, string>;
  tokens: TokenResponse;
  idToken: IdToken;
  accessToken: string;
}

const CALLBACK = '/callback';
const POST_LOGOUT = '/post_logout_redirect';
/** RFC 6749 §5.2, §4.1.2.1: error_description and error_uri characters. */
const ERROR_TEXT = /^[\x20\x21\x23-\x5B\x5D-\x7E]*$/;
/** Parameters an authorization error response may carry (CheckForUnexpectedParametersInErrorResponseFromAuthorizationEndpoint). */
const ERROR_RESPONSE_PARAMETERS = ['error', 'error_description', 'error_uri', 'state', 'session_state', 'iss'];

const random = (bytes: number) => randomBytes(bytes).toString('base64url');

/**
 * One relying party (the suite's redirect and post-logout URIs), its clients on an SMS
 * connection of their own, and one browser whose cookies carry the login session across
 * modules, as the suite's browser does.
 */
export class ConformanceClient {
  private readonly received: Received[] = [];
  private readonly waiting: Array<{ path: string; resolve: (r: Received) => void }> = [];
  private jwks!: JSONWebKeySet;
  discovery!: Discovery;
  browser!: Browser;
  context!: BrowserContext;
  page!: Page;
  /** The user's number: fresh logins use it, so every ID token is for the same sub. */
  readonly phone = randomPhone();

  private constructor(
    readonly rp: RelyingParty,
    readonly clients: Record<'basic' | 'post' | 'second', SuiteClient>,
    private readonly steps: Steps,
  ) {}

  static async start(name: string): Promise<ConformanceClient> {
    const origin = await relyingPartyOrigin();
    const settings = (auth: ClientAuth): WebClientSettings => ({
      app_type: 'regular_web',
      token_endpoint_auth_method: auth,
      grant_types: ['authorization_code', 'refresh_token'],
      callbacks: [`${origin}${CALLBACK}`],
      allowed_logout_urls: [`${origin}${POST_LOGOUT}`],
      refresh_token: { rotation_type: 'non-rotating', expiration_type: 'expiring', token_lifetime: 2_592_000, idle_token_lifetime: 1_296_000, leeway: 0 },
    });
    const made = await createWebClients(name, {
      basic: settings('client_secret_basic'),
      post: settings('client_secret_post'),
      second: settings('client_secret_basic'),
    });
    const suiteClient = (client: WebClient, auth: ClientAuth): SuiteClient => ({ ...client, clientSecret: client.clientSecret!, auth });
    const clients = { basic: suiteClient(made.basic, 'client_secret_basic'), post: suiteClient(made.post, 'client_secret_post'), second: suiteClient(made.second, 'client_secret_basic') };
    // The relying party starts before the harness exists (the harness holds it); requests reach the harness once it does.
    const sink: { harness?: ConformanceClient } = {};
    const rp = await RelyingParty.start(origin, (app) => {
      app.use(express.urlencoded({ extended: false }));
      const record = (req: express.Request, res: express.Response) => {
        const url = new URL(req.originalUrl, origin);
        sink.harness?.record({
          method: req.method,
          path: url.pathname,
          query: Object.fromEntries(url.searchParams),
          body: typeof req.body === 'object' && req.body ? (req.body as Record<string, string>) : {},
          contentType: req.headers['content-type'],
        });
        res.type('text').send('Received by the relying party.');
      };
      app.get(CALLBACK, record);
      app.post(CALLBACK, record);
      app.get(POST_LOGOUT, record);
      // The suite's browser POSTs to the authorization endpoint (OIDCCEnsurePostRequestSucceeds): a form that submits itself.
      app.get('/post-form', (req, res) => {
        const target = String(req.query.action);
        const fields = JSON.parse(String(req.query.fields)) as Record<string, string>;
        const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
        const inputs = Object.entries(fields).map(([k, v]) => `<input type="hidden" name="${escape(k)}" value="${escape(v)}">`).join('');
        res.type('html').send(`<!doctype html><form method="post" action="${escape(target)}">${inputs}</form><script>document.forms[0].submit()</script>`);
      });
    });
    const harness = new ConformanceClient(rp, clients, new Steps('conformance', name));
    sink.harness = harness;
    harness.discovery = (await (await fetch(`${compat.issuer}.well-known/openid-configuration`)).json()) as Discovery;
    harness.jwks = (await (await fetch(harness.discovery.jwks_uri)).json()) as JSONWebKeySet;
    harness.browser = await launchBrowser();
    await harness.newBrowserSession();
    return harness;
  }

  async close(): Promise<void> {
    await this.browser?.close();
    await this.rp.close();
  }

  /** Runs `fn` in a browser profile of its own (no login session), then goes back to the shared one. */
  async withFreshBrowser<T>(fn: () => Promise<T>): Promise<T> {
    const shared = { context: this.context, page: this.page };
    this.context = await newContext(this.browser);
    this.page = await this.context.newPage();
    try {
      return await fn();
    } finally {
      await this.context.close();
      Object.assign(this, shared);
    }
  }

  /** A fresh cookie jar: no login session ("remove any cookies you may have received from the OpenID Provider"). */
  async newBrowserSession(): Promise<void> {
    await this.context?.close();
    this.context = await newContext(this.browser);
    this.page = await this.context.newPage();
  }

  get redirectUri(): string {
    return this.rp.url(CALLBACK);
  }

  get postLogoutRedirectUri(): string {
    return this.rp.url(POST_LOGOUT);
  }

  private record(received: Received): void {
    const index = this.waiting.findIndex((w) => w.path === received.path);
    if (index >= 0) this.waiting.splice(index, 1)[0]!.resolve(received);
    else this.received.push(received);
  }

  /** Everything the relying party received since the last call. */
  drain(): Received[] {
    return this.received.splice(0);
  }

  private next(path: string): Promise<Received> {
    const index = this.received.findIndex((r) => r.path === path);
    if (index >= 0) return Promise.resolve(this.received.splice(index, 1)[0]!);
    return new Promise((resolve) => this.waiting.push({ path, resolve }));
  }

  /**
   * CreateAuthorizationRequestSteps: client_id, redirect_uri, scope (CreateAuthorizationEndpointRequestFromClientInformation),
   * state, nonce, response_type; response_mode=form_post for the Form Post plan; then the module's own.
   */
  authorizationRequest(options: { client?: SuiteClient; formPost: boolean; scope?: string; extra?: Record<string, string>; omit?: string[]; stateBytes?: number }): AuthorizationRequest {
    const client = options.client ?? this.clients.basic;
    const params: Record<string, string> = {
      client_id: client.clientId,
      redirect_uri: this.redirectUri,
      scope: options.scope ?? 'openid',
      state: random(options.stateBytes ?? 8),
      nonce: random(8),
      response_type: 'code',
      ...(options.formPost ? { response_mode: 'form_post' } : {}),
      ...options.extra,
    };
    for (const name of options.omit ?? []) delete params[name];
    return { client, params };
  }

  authorizationUrl(params: Record<string, string>): string {
    return `${this.discovery.authorization_endpoint}?${new URLSearchParams(params)}`;
  }

  /**
   * The browser at the authorization endpoint until the relying party receives the response.
   * `login`: the hosted login may be shown and is completed with `phone`; otherwise showing it
   * fails the module (it had to be answered without the user).
   */
  async authorize(request: AuthorizationRequest, options: { login?: Login; method?: 'GET' | 'POST'; url?: string } = {}): Promise<Received> {
    const callback = this.next(CALLBACK);
    const url =
      options.method === 'POST'
        ? this.rp.url(`/post-form?${new URLSearchParams({ action: this.discovery.authorization_endpoint, fields: JSON.stringify(request.params) })}`)
        : (options.url ?? this.authorizationUrl(request.params));
    await this.page.goto(url);
    const loginShown = this.page
      .getByLabel('Mobile phone number')
      .waitFor({ timeout: 15_000 })
      .then(() => 'login' as const, () => 'no-login' as const);
    const first = await Promise.race([callback, loginShown]);
    if (first !== 'login' && first !== 'no-login') {
      if (options.login === 'required') throw new Error('the module expects the user to sign in again, but the response came without the hosted login');
      return first;
    }
    if (first === 'no-login') {
      if (options.login === 'required') throw new Error('the module expects the user to sign in again, but the hosted login was not shown');
      return callback;
    }
    if (!options.login) throw new Error(`the hosted login was shown, but the module expects an answer without the user (${this.page.url()})`);
    await completeHostedLogin(this.page, this.phone, this.steps, (u) => u.origin === this.rp.origin);
    return callback;
  }

  /** The authorization response, from where the response mode puts it (AbstractOIDCCServerTest.processCallback). */
  responseOf(received: Received, formPost: boolean): Record<string, string> {
    if (formPost) {
      // CheckCallbackHttpMethodIsPost, CheckCallbackContentTypeIsFormUrlEncoded, RejectAuthCodeInUrlQuery, RejectErrorInUrlQuery
      expect(received.method).toBe('POST');
      expect(received.contentType).toMatch(/^application\/x-www-form-urlencoded/);
      expect(received.query).not.toHaveProperty('code');
      expect(received.query).not.toHaveProperty('error');
      return received.body;
    }
    expect(received.method).toBe('GET');
    return received.query;
  }

  /** onAuthorizationCallbackResponse: iss (RFC 9207), no error, state, then the code (EnsureMinimumAuthorizationCodeLength: 128 bits). */
  checkSuccessResponse(request: AuthorizationRequest, response: Record<string, string>): string {
    expect(response.iss).toBe(this.discovery.issuer);
    expect(response.error).toBeUndefined();
    expect(response.state).toBe(request.params.state);
    expect(response.code).toEqual(expect.any(String));
    expect(Buffer.byteLength(response.code!) * 8).toBeGreaterThanOrEqual(128);
    return response.code!;
  }

  /** performGenericAuthorizationEndpointErrorResponseValidation. */
  checkErrorResponse(response: Record<string, string>, state: string | undefined): void {
    if (state !== undefined) expect(response.state).toBe(state);
    expect(response.iss).toBe(this.discovery.issuer);
    expect(response.error).toEqual(expect.any(String));
    expect(response.code).toBeUndefined();
    for (const name of Object.keys(response)) expect(ERROR_RESPONSE_PARAMETERS).toContain(name);
    expect(response.error_description ?? '').toMatch(ERROR_TEXT);
    expect(response.error_uri ?? '').toMatch(ERROR_TEXT);
  }

  /** A token endpoint request with the client's authentication (AddBasicAuthClientSecretToRequest, AddFormBasedClientSecretToRequest). */
  async tokenRequest(client: SuiteClient, form: Record<string, string>): Promise<TokenResponse> {
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    const body = new URLSearchParams(form);
    if (client.auth === 'client_secret_basic') {
      headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`).toString('base64')}`;
    } else {
      body.set('client_id', client.clientId);
      body.set('client_secret', client.clientSecret);
    }
    const res = await fetch(this.discovery.token_endpoint, { method: 'POST', headers, body });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
  }

  codeGrant(client: SuiteClient, code: string, extra: Record<string, string> = {}): Promise<TokenResponse> {
    return this.tokenRequest(client, { grant_type: 'authorization_code', code, redirect_uri: this.redirectUri, ...extra });
  }

  /**
   * requestAuthorizationCode: 200 (CheckTokenEndpointHttpStatus200), an access token,
   * expires_in valid (ValidateExpiresIn), an ID token; then PerformStandardIdTokenChecks.
   */
  async checkTokenResponse(tokens: TokenResponse, request: AuthorizationRequest): Promise<IdToken> {
    expect(tokens.status).toBe(200);
    expect(tokens.headers.get('cache-control')).toMatch(/no-store/);
    expect(tokens.body.access_token).toEqual(expect.any(String));
    expect(String(tokens.body.token_type)).toMatch(/^bearer$/i);
    expect(tokens.body.expires_in).toBeGreaterThan(0);
    expect(tokens.body.expires_in).toBeLessThanOrEqual(31_536_000);
    expect(tokens.body.id_token).toEqual(expect.any(String));
    return this.checkIdToken(String(tokens.body.id_token), request.client, request.params.nonce);
  }

  /**
   * PerformStandardIdTokenChecks: ValidateIdToken (iss, aud, exp, iat within 5 minutes, auth_time
   * not in the future), ValidateIdTokenNonce, ValidateIdTokenSignature (the server's JWKS, kid —
   * CheckForKeyIdInServerJWKs — and RS256, the default), CheckForSubjectInIdToken, EnsureIdTokenUpdatedAtValid.
   */
  async checkIdToken(value: string, client: SuiteClient, nonce: string | undefined): Promise<IdToken> {
    const header = decodeProtectedHeader(value);
    expect(header).toMatchObject({ alg: 'RS256', kid: expect.any(String) });
    const { payload } = await jwtVerify(value, createLocalJWKSet(this.jwks), { issuer: this.discovery.issuer, audience: client.clientId, algorithms: ['RS256'] });
    const now = Date.now() / 1000;
    expect(payload.iat).toBeGreaterThan(now - 300);
    expect(payload.iat).toBeLessThan(now + 300);
    expect(payload.exp).toBeLessThan(now + 50 * 365 * 86_400);
    if (payload.auth_time !== undefined) expect(payload.auth_time).toBeLessThan(now + 300);
    if (nonce !== undefined) expect(payload.nonce).toBe(nonce);
    expect(payload.sub).toEqual(expect.any(String));
    if (payload.updated_at !== undefined) expect(payload.updated_at).toEqual(expect.any(Number));
    if (payload.acr !== undefined) expect(payload.acr).not.toBe('');
    // Beyond the module: discovery's claims_supported names every claim identity sends.
    expect(this.discovery.claims_supported).toEqual(expect.arrayContaining(Object.keys(payload)));
    return { value, claims: payload as IdToken['claims'] };
  }

  /** A UserInfo request as the suite makes it: GET with the bearer header, POST with it, or POST with the token in the body. */
  async userinfo(accessToken: string, how: 'get' | 'post-header' | 'post-body' = 'get'): Promise<{ status: number; contentType: string | null; body: Record<string, unknown> }> {
    const init: RequestInit =
      how === 'get'
        ? { headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' } }
        : how === 'post-header'
          ? { method: 'POST', headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' } }
          : { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, body: new URLSearchParams({ access_token: accessToken }) };
    const res = await fetch(this.discovery.userinfo_endpoint, init);
    const text = await res.text();
    return { status: res.status, contentType: res.headers.get('content-type'), body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  }

  /** validateExtractedUserInfoResponse: 200 JSON (EnsureContentTypeJson), sub (EnsureUserInfoContainsSub) equal to the ID token's. */
  async checkUserinfo(accessToken: string, idToken: IdToken, how: 'get' | 'post-header' | 'post-body' = 'get'): Promise<Record<string, unknown>> {
    const info = await this.userinfo(accessToken, how);
    expect(info.status).toBe(200);
    expect(info.contentType).toMatch(/^application\/json/);
    expect(info.body.sub).toBe(idToken.claims.sub);
    if (info.body.updated_at !== undefined) expect(info.body.updated_at).toEqual(expect.any(Number));
    expect(this.discovery.claims_supported).toEqual(expect.arrayContaining(Object.keys(info.body)));
    return info.body;
  }

  /**
   * The flow of AbstractOIDCCServerTest: the authorization request, the response checked, the
   * code exchanged, the ID token checked and UserInfo called (requestProtectedResource).
   */
  async flow(request: AuthorizationRequest, formPost: boolean, options: { login?: Login; method?: 'GET' | 'POST'; tokenExtra?: Record<string, string> } = {}): Promise<CompletedFlow> {
    const response = this.responseOf(await this.authorize(request, options), formPost);
    const code = this.checkSuccessResponse(request, response);
    const tokens = await this.codeGrant(request.client, code, options.tokenExtra);
    const idToken = await this.checkTokenResponse(tokens, request);
    const accessToken = String(tokens.body.access_token);
    const info = await this.userinfo(accessToken);
    expect(info.status).toBe(200);
    return { request, response, tokens, idToken, accessToken };
  }

  /** Navigates to `url` and expects identity's error page there, the relying party never called; a screenshot, as the suite asks for one. */
  async expectErrorPage(url: string, shot: string): Promise<string> {
    this.drain();
    const res = await this.page.goto(url);
    expect(res?.status()).toBeGreaterThanOrEqual(400);
    expect(new URL(this.page.url()).origin).toBe(new URL(this.discovery.issuer).origin);
    await this.steps.shot(this.page, shot);
    expect(this.drain()).toEqual([]);
    return this.page.locator('body').innerText();
  }

  /** The end-session request (BuildRedirectToEndSessionEndpoint), in the browser. */
  async endSession(params: Record<string, string>): Promise<{ status: number | undefined; url: URL }> {
    const res = await this.page.goto(`${this.discovery.end_session_endpoint}${Object.keys(params).length ? `?${new URLSearchParams(params)}` : ''}`);
    return { status: res?.status(), url: new URL(this.page.url()) };
  }

  nextPostLogoutRedirect(): Promise<Received> {
    return this.next(POST_LOGOUT);
  }

  async shot(name: string): Promise<void> {
    await this.steps.shot(this.page, name);
  }
}

/** SetupPkceAndAddToAuthorizationRequest: a S256 pair. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = random(32);
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** The token endpoint's error for a code or refresh token it must refuse (AbstractOIDCCAuthCodeReuse.checkResponse). */
export function expectInvalidGrant(tokens: TokenResponse): void {
  expect(tokens.status).toBe(400);
  expect(tokens.headers.get('content-type')).toMatch(/^application\/json/);
  expect(tokens.body.error).toBe('invalid_grant');
  expect(String(tokens.body.error_description ?? '')).toMatch(ERROR_TEXT);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
