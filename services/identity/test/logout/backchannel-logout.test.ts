import { createHash, randomBytes } from 'node:crypto';
import request from 'supertest';
import { CALLBACK, fragmentOf, LoginSession } from '../authorize/login-session';
import { manualTimers } from '../log-streams/stream-harness';
import { describeOnEachDatabase, FlowHarness, ISSUER } from '../passwordless/flow-harness';
import { LogoutReceiver } from './logout-receiver';

const WEB_ORIGIN = 'https://app.example.com';
const EVENT = 'http://schemas.openid.net/event/backchannel-logout';

function challenge(): string {
  return createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
}

interface App {
  client_id: string;
  name: string;
}

describeOnEachDatabase('back-channel and front-channel logout', (database) => {
  let h: FlowHarness;
  let jwks: { keys: Array<{ kid: string }> };
  const receivers: LogoutReceiver[] = [];

  beforeAll(async () => {
    // The worker's timers never fire: each test delivers with runOnce(), so it sees every attempt.
    h = await FlowHarness.start({ TRUST_PROXY: 'true' }, { database, backchannelLogout: { timers: manualTimers } });
    jwks = (await h.http().get('/.well-known/jwks.json')).body;
  });
  afterAll(async () => {
    for (const receiver of receivers) await receiver.close();
    await h.close();
  });

  /** A relying party's back-channel endpoint (verifying with the published keys) and its client, registered with it. */
  async function appWithReceiver(oidcLogout: Record<string, unknown> = {}, name = 'Web App'): Promise<{ app: App; receiver: LogoutReceiver }> {
    const receiver = await LogoutReceiver.start(ISSUER, () => h.clock.now());
    receivers.push(receiver);
    const app = await h.createClient({
      name,
      app_type: 'spa',
      callbacks: [CALLBACK],
      web_origins: [WEB_ORIGIN],
      allowed_logout_urls: [`${WEB_ORIGIN}/bye`],
      oidc_logout: { backchannel_logout_urls: [receiver.url], ...oidcLogout },
    });
    receiver.configure(app.client_id, jwks);
    return { app, receiver };
  }

  async function plainApp(body: Record<string, unknown> = {}): Promise<App> {
    return h.createClient({ name: 'Plain App', app_type: 'spa', callbacks: [CALLBACK], web_origins: [WEB_ORIGIN], allowed_logout_urls: [`${WEB_ORIGIN}/bye`], ...body });
  }

  const query = (app: App, extra: Record<string, string> = {}) => ({
    client_id: app.client_id,
    redirect_uri: CALLBACK,
    response_type: 'code',
    code_challenge: challenge(),
    code_challenge_method: 'S256',
    state: 'st',
    scope: 'openid',
    ...extra,
  });

  /** A browser signed in with one SMS to the first app, then to the others by single sign-on. */
  const connected = new Set<string>();
  async function signedInTo(...apps: App[]): Promise<LoginSession> {
    // One connection per client: a client with two would be asked which to use.
    const unconnected = apps.filter((app) => !connected.has(app.client_id));
    if (unconnected.length > 0) await h.createConnection({}, unconnected.map((app) => app.client_id));
    for (const app of unconnected) connected.add(app.client_id);
    const who = h.caller();
    const browser = new LoginSession(h, who.ip);
    expect((await browser.open(query(apps[0]!))).status).toBe(200);
    await browser.submitPhone(who.phone);
    expect((await browser.submitCode(h.codeSentTo(who.phone))).status).toBe(302);
    for (const app of apps.slice(1)) expect((await browser.open(query(app, { prompt: 'none' }))).headers.location).toContain('code=');
    return browser;
  }

  /** An ID token for `app` from the browser's session (prompt=none). */
  async function idTokenOf(browser: LoginSession, app: App): Promise<string> {
    const res = await browser.open({ client_id: app.client_id, redirect_uri: CALLBACK, response_type: 'id_token', nonce: 'n', prompt: 'none' });
    return fragmentOf(res.headers.location).id_token!;
  }

  async function sessionOf(browser: LoginSession, app: App): Promise<{ sid: string; sub: string }> {
    const { claims } = await h.verifyWithJwks(await idTokenOf(browser, app), app.client_id);
    return { sid: claims.sid as string, sub: claims.sub! };
  }

  const deliver = () => h.identity.backchannelLogoutWorker.runOnce();

  async function logsOf(app: App, type: string): Promise<Array<{ type: string; user_id?: string; details: Record<string, unknown> }>> {
    const res = await h.management('get', `/logs?q=${encodeURIComponent(`client_id:${app.client_id} AND type:${type}`)}&sort=date:1`);
    expect(res.status).toBe(200);
    return res.body;
  }

  it('advertises back-channel and front-channel logout, with sid, in discovery', async () => {
    const res = await h.http().get('/.well-known/openid-configuration');
    expect(res.body).toMatchObject({
      backchannel_logout_supported: true,
      backchannel_logout_session_supported: true,
      frontchannel_logout_supported: true,
      frontchannel_logout_session_supported: true,
    });
    expect(res.body.claims_supported).toContain('sid');
  });

  it('RP-initiated logout POSTs a verifiable logout_token to every client the session signed in to, and nothing to the others', async () => {
    const first = await appWithReceiver({}, 'First');
    const second = await appWithReceiver({}, 'Second');
    const outsider = await appWithReceiver({}, 'Outsider');
    const browser = await signedInTo(first.app, second.app);
    await signedInTo(outsider.app); // another browser's session: its client is not told about this one
    const { sid, sub } = await sessionOf(browser, first.app);
    const hint = await idTokenOf(browser, first.app);

    const res = await browser.get('/oidc/logout', { id_token_hint: hint, post_logout_redirect_uri: `${WEB_ORIGIN}/bye`, state: 'xyz' });
    expect([res.status, res.headers.location]).toEqual([302, `${WEB_ORIGIN}/bye?state=xyz`]);
    // The logout answered without calling anyone: the tokens go out from the worker.
    expect(first.receiver.received).toHaveLength(0);

    await deliver();
    expect(outsider.receiver.received).toHaveLength(0);
    const jtis: unknown[] = [];
    for (const { app, receiver } of [first, second]) {
      expect(receiver.received).toHaveLength(1);
      const [got] = receiver.received;
      expect(got!.problem).toBeUndefined();
      expect(got!.contentType).toBe('application/x-www-form-urlencoded');
      expect(got!.header).toMatchObject({ alg: 'RS256', typ: 'logout+jwt', kid: expect.any(String) });
      expect(got!.claims).toMatchObject({ iss: ISSUER, aud: app.client_id, sid, sub, events: { [EVENT]: {} } });
      expect(got!.claims!.exp! - got!.claims!.iat!).toBe(120);
      expect(got!.claims).not.toHaveProperty('nonce');
      jtis.push(got!.claims!.jti);
      const logs = await logsOf(app, 'oidc_backchannel_logout_succeeded');
      expect(logs).toHaveLength(1);
      expect(logs[0]).toMatchObject({ user_id: sub, details: { session_id: sid, initiator: 'rp-logout', attempt: 1, status: 200 } });
    }
    expect(new Set(jtis).size).toBe(2);
    // Delivered once: nothing is left to send.
    await deliver();
    expect(first.receiver.received).toHaveLength(1);
    expect(await h.identity.store.backchannelLogouts.pending()).toEqual([]);
    // No token in the service's own log lines.
    expect(h.identity.logs()).not.toContain(first.receiver.received[0]!.token!.split('.')[2]);
  });

  it('retries a receiver that answered 500 after a backoff, and logs both attempts; /v2/logout notifies too', async () => {
    const { app, receiver } = await appWithReceiver();
    const browser = await signedInTo(app);
    const { sid } = await sessionOf(browser, app);
    receiver.failNext(1);
    expect((await browser.get('/v2/logout', { client_id: app.client_id, returnTo: `${WEB_ORIGIN}/bye` })).status).toBe(302);

    await deliver();
    expect(receiver.received).toHaveLength(1);
    const failed = await logsOf(app, 'oidc_backchannel_logout_failed');
    expect(failed).toEqual([expect.objectContaining({ details: expect.objectContaining({ session_id: sid, status: 500, will_retry: true, attempt: 1 }) })]);
    // Not due before its backoff (5 s) has passed.
    await deliver();
    expect(receiver.received).toHaveLength(1);
    h.clock.advance(6);
    await deliver();
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]!.problem).toBeUndefined();
    expect(receiver.received[1]!.claims).toMatchObject({ sid, aud: app.client_id });
    expect(await logsOf(app, 'oidc_backchannel_logout_succeeded')).toEqual([expect.objectContaining({ details: expect.objectContaining({ attempt: 2, status: 200 }) })]);
    expect(await h.identity.store.backchannelLogouts.pending()).toEqual([]);

    const metrics = (await request(h.identity.app).get('/metrics')).text;
    expect(metrics).toMatch(/backchannel_logout_deliveries_total\{[^}]*outcome="failed"[^}]*\} [1-9]/);
    expect(metrics).toMatch(/backchannel_logout_deliveries_total\{[^}]*outcome="delivered"[^}]*\} [1-9]/);
  });

  it('gives up at once when the receiver refuses the token (4xx), and after the retry time when it keeps failing', async () => {
    const refusing = await appWithReceiver();
    refusing.receiver.answer(403);
    await (await signedInTo(refusing.app)).get('/v2/logout', { client_id: refusing.app.client_id });
    await deliver();
    expect(await logsOf(refusing.app, 'oidc_backchannel_logout_failed')).toEqual([
      expect.objectContaining({ details: expect.objectContaining({ status: 403, will_retry: false }) }),
    ]);

    const down = await appWithReceiver();
    down.receiver.failNext(1000);
    await (await signedInTo(down.app)).get('/v2/logout', { client_id: down.app.client_id });
    await deliver();
    h.clock.advance(3600);
    await deliver();
    expect(down.receiver.received).toHaveLength(2);
    const failures = await logsOf(down.app, 'oidc_backchannel_logout_failed');
    expect(failures.map((l) => l.details.will_retry)).toEqual([true, false]);
    expect(await h.identity.store.backchannelLogouts.pending()).toEqual([]);
    h.clock.advance(3600);
    await deliver();
    expect(down.receiver.received).toHaveLength(2);
  });

  it('tells clients of sessions ended through the management API only for the initiators they chose (Auth0\'s backchannel_logout_initiators)', async () => {
    const rpOnly = await appWithReceiver();
    const revoked = await appWithReceiver({ backchannel_logout_initiators: { mode: 'custom', selected_initiators: ['session-revoked'] } });
    const all = await appWithReceiver({ backchannel_logout_initiators: { mode: 'all' } });
    const browser = await signedInTo(rpOnly.app, revoked.app, all.app);
    const { sid, sub } = await sessionOf(browser, rpOnly.app);

    expect((await h.management('delete', `/sessions/${sid}`)).status).toBe(202);
    await deliver();
    expect(rpOnly.receiver.received).toHaveLength(0);
    for (const { receiver } of [revoked, all]) {
      expect(receiver.received).toHaveLength(1);
      expect(receiver.received[0]!.problem).toBeUndefined();
      expect(receiver.received[0]!.claims).toMatchObject({ sid, sub });
    }
    expect((await logsOf(all.app, 'oidc_backchannel_logout_succeeded'))[0]!.details.initiator).toBe('session-revoked');

    // A deleted account: only the client that takes every initiator is told.
    const again = await signedInTo(rpOnly.app, revoked.app, all.app);
    const second = await sessionOf(again, all.app);
    expect((await h.management('delete', `/users/${encodeURIComponent(second.sub)}`)).status).toBe(204);
    await deliver();
    expect([rpOnly.receiver.received.length, revoked.receiver.received.length, all.receiver.received.length]).toEqual([0, 1, 2]);
    expect(all.receiver.received[1]!.claims).toMatchObject({ sid: second.sid, sub: second.sub });
    expect((await logsOf(all.app, 'oidc_backchannel_logout_succeeded'))[1]!.details.initiator).toBe('account-deleted');
  });

  it('tells a client of a blocked user (account-deactivated) when it selected that initiator', async () => {
    const { app, receiver } = await appWithReceiver({ backchannel_logout_initiators: { mode: 'custom', selected_initiators: ['account-deactivated'] } });
    const browser = await signedInTo(app);
    const { sid, sub } = await sessionOf(browser, app);
    expect((await h.management('patch', `/users/${encodeURIComponent(sub)}`, { blocked: true })).status).toBe(200);
    await deliver();
    expect(receiver.received.map((r) => [r.problem, r.claims?.sid])).toEqual([[undefined, sid]]);
    expect((await logsOf(app, 'oidc_backchannel_logout_succeeded'))[0]!.details.initiator).toBe('account-deactivated');
  });

  it('retries to the URL the client registers after a failure, and gives up when it removes it', async () => {
    const { app, receiver } = await appWithReceiver();
    const fixed = await LogoutReceiver.start(ISSUER, () => h.clock.now());
    receivers.push(fixed);
    fixed.configure(app.client_id, jwks);
    receiver.failNext(1);
    await (await signedInTo(app)).get('/v2/logout', { client_id: app.client_id });
    await deliver();
    expect((await h.management('patch', `/clients/${app.client_id}`, { oidc_logout: { backchannel_logout_urls: [fixed.url] } })).status).toBe(200);
    h.clock.advance(6);
    await deliver();
    expect([receiver.received.length, fixed.received.length]).toEqual([1, 1]);
    expect(fixed.received[0]!.problem).toBeUndefined();

    fixed.failNext(1);
    await (await signedInTo(app)).get('/v2/logout', { client_id: app.client_id });
    await deliver();
    expect((await h.management('patch', `/clients/${app.client_id}`, { oidc_logout: null })).status).toBe(200);
    h.clock.advance(6);
    await deliver();
    expect(fixed.received).toHaveLength(2);
    const last = (await logsOf(app, 'oidc_backchannel_logout_failed')).at(-1)!;
    expect(last.details).toMatchObject({ will_retry: false, error: 'the client no longer has a back-channel logout URL' });
    expect(await h.identity.store.backchannelLogouts.pending()).toEqual([]);
  });

  it('claims each pending notification for one worker at a time', async () => {
    const apps = [await appWithReceiver({ backchannel_logout_initiators: { mode: 'all' } }), await appWithReceiver({ backchannel_logout_initiators: { mode: 'all' } })];
    const users: string[] = [];
    for (let i = 0; i < 3; i += 1) users.push((await sessionOf(await signedInTo(...apps.map((a) => a.app)), apps[0]!.app)).sub);
    // 3 sessions x 2 clients, ended by an administrator.
    for (const user of users) expect((await h.management('delete', `/users/${encodeURIComponent(user)}/sessions`)).status).toBe(202);
    const now = h.clock.now();
    const lease = new Date(now.getTime() + 60_000);
    const [a, b] = await Promise.all([
      h.identity.store.backchannelLogouts.claimDue(now, lease, 4),
      h.identity.store.backchannelLogouts.claimDue(now, lease, 4),
    ]);
    const claimed = [...a!, ...b!];
    const ids = claimed.map((n) => n.id);
    expect(new Set(ids).size).toBe(ids.length);
    const ours = apps.map((x) => x.app.client_id);
    expect(claimed.filter((n) => ours.includes(n.client_id))).toHaveLength(6);
    expect(claimed.every((n) => n.attempts === 1 && n.initiator === 'session-revoked')).toBe(true);
    // Claimed: not due again until the lease ends, then due for the next attempt.
    expect(await h.identity.store.backchannelLogouts.claimDue(now, lease, 100)).toEqual([]);
    h.clock.advance(61);
    await deliver();
    await deliver();
    expect(await h.identity.store.backchannelLogouts.pending()).toEqual([]);
  });

  describe('front-channel logout', () => {
    it('frames each front-channel URL with iss and sid on the logout page, then goes on to the return URL', async () => {
      const framed = await plainApp({ name: 'Framed <App>', oidc_logout: { frontchannel_logout_url: 'https://rp.example.com/fc?tenant=1' } });
      const bare = await plainApp({ oidc_logout: { frontchannel_logout_url: 'https://other.example.com/logout', frontchannel_logout_session_required: false } });
      const silent = await plainApp();
      const browser = await signedInTo(framed, bare, silent);
      const { sid } = await sessionOf(browser, framed);
      const res = await browser.get('/oidc/logout', { id_token_hint: await idTokenOf(browser, framed), post_logout_redirect_uri: `${WEB_ORIGIN}/bye`, state: 'xyz' });
      expect(res.status).toBe(200);
      expect(browser.cookies.has('smsauth_session')).toBe(false);
      const unescape = (text: string) => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
      // Framed by the page's script, or without script by the noscript block: the same frames.
      const slots = [...res.text.matchAll(/<span data-logout-url="([^"]*)" data-title="([^"]*)"><\/span>/g)].map((m) => ({ title: unescape(m[2]!), src: unescape(m[1]!) }));
      const noscript = [...res.text.matchAll(/<iframe hidden title="([^"]*)" src="([^"]*)"><\/iframe>/g)].map((m) => ({ title: unescape(m[1]!), src: unescape(m[2]!) }));
      expect(noscript).toEqual(slots);
      expect(slots).toEqual([
        { title: 'Signing out of Framed <App>', src: `https://rp.example.com/fc?tenant=1&iss=${encodeURIComponent(ISSUER)}&sid=${sid}` },
        { title: 'Signing out of Plain App', src: 'https://other.example.com/logout' },
      ]);
      expect(res.text).toContain(`<a id="continue" class="button" href="${WEB_ORIGIN}/bye?state=xyz">Continue</a>`);
      expect(res.text).toContain('role="status"');
      const csp = res.headers['content-security-policy'] as string;
      expect(csp).toContain('frame-src https://rp.example.com https://other.example.com;');
      expect(csp).toContain("frame-ancestors 'none'");
      const script = /<script>([\s\S]*?)<\/script>/.exec(res.text)![1]!;
      expect(csp).toContain(`script-src 'sha256-${createHash('sha256').update(script).digest('base64')}'`);
      // No session, nothing to frame: a plain redirect.
      const again = await browser.get('/oidc/logout', { client_id: framed.client_id, post_logout_redirect_uri: `${WEB_ORIGIN}/bye` });
      expect([again.status, again.headers.location]).toEqual([302, `${WEB_ORIGIN}/bye`]);
    });
  });

  describe('client settings (management API)', () => {
    it('stores and shows oidc_logout, accepts Auth0\'s older oidc_backchannel_logout, and clears with null', async () => {
      const settings = {
        backchannel_logout_urls: ['https://rp.example.com/backchannel'],
        backchannel_logout_initiators: { mode: 'custom', selected_initiators: ['rp-logout', 'session-revoked'] },
        backchannel_logout_session_metadata: { include: false },
        frontchannel_logout_url: 'https://rp.example.com/frontchannel',
        frontchannel_logout_session_required: true,
      };
      const created = await h.management('post', '/clients', { name: 'RP', app_type: 'regular_web', oidc_logout: settings });
      expect(created.status).toBe(201);
      expect(created.body.oidc_logout).toEqual(settings);
      expect((await h.management('get', `/clients/${created.body.client_id}`)).body.oidc_logout).toEqual(settings);

      const legacy = await h.management('post', '/clients', { name: 'Old RP', app_type: 'regular_web', oidc_backchannel_logout: { backchannel_logout_urls: ['https://rp.example.com/bc'] } });
      expect(legacy.status).toBe(201);
      expect(legacy.body.oidc_logout).toEqual({ backchannel_logout_urls: ['https://rp.example.com/bc'] });

      const cleared = await h.management('patch', `/clients/${created.body.client_id}`, { oidc_logout: null });
      expect(cleared.status).toBe(200);
      expect(cleared.body).not.toHaveProperty('oidc_logout');
      expect((await h.management('get', '/clients?per_page=100')).body.find((c: App) => c.client_id === legacy.body.client_id).oidc_logout).toEqual({
        backchannel_logout_urls: ['https://rp.example.com/bc'],
      });
    });

    it.each([
      ['an http URL to another host', { oidc_logout: { backchannel_logout_urls: ['http://rp.example.com/bc'] } }, 'oidc_logout.backchannel_logout_urls.0'],
      ['two back-channel URLs', { oidc_logout: { backchannel_logout_urls: ['https://a.example.com/', 'https://b.example.com/'] } }, 'oidc_logout.backchannel_logout_urls'],
      ['a URL with a fragment', { oidc_logout: { frontchannel_logout_url: 'https://rp.example.com/fc#x' } }, 'oidc_logout.frontchannel_logout_url'],
      ['an unknown initiator', { oidc_logout: { backchannel_logout_urls: [], backchannel_logout_initiators: { mode: 'custom', selected_initiators: ['nope'] } } }, 'oidc_logout.backchannel_logout_initiators.selected_initiators.0'],
      ['both names at once', { oidc_logout: { backchannel_logout_urls: [] }, oidc_backchannel_logout: { backchannel_logout_urls: [] } }, 'oidc_backchannel_logout'],
    ])('refuses %s (400 naming the field)', async (_name, body, field) => {
      const res = await h.management('post', '/clients', { name: 'RP', app_type: 'regular_web', ...body });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).toContain(field);
    });

    it('accepts http only for localhost (local development)', async () => {
      const res = await h.management('post', '/clients', { name: 'Dev RP', app_type: 'regular_web', oidc_logout: { backchannel_logout_urls: ['http://localhost:3000/backchannel'] } });
      expect(res.status).toBe(201);
    });
  });

  // Last: it moves the clock by days (the harness's management token would expire).
  it('tells a client that selected session-expired when an expired session is cleaned up (at the next sign-in)', async () => {
    const { app, receiver } = await appWithReceiver({ backchannel_logout_initiators: { mode: 'custom', selected_initiators: ['session-expired'] } });
    const { sid } = await sessionOf(await signedInTo(app), app);
    h.clock.advance(3 * 86_400 + 1);
    await signedInTo(app);
    await deliver();
    expect(receiver.received.map((r) => [r.problem, r.claims?.sid])).toEqual([[undefined, sid]]);
  });
});
