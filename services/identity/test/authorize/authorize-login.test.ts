import { createHash } from 'node:crypto';
import { describeOnEachDatabase, FlowHarness, type LoginSetup } from '../passwordless/flow-harness';
import { authorizeQuery, CALLBACK, fragmentOf, LoginSession } from './login-session';

const API = 'https://flights.example.com';

describeOnEachDatabase('hosted login (/authorize)', (database) => {
  let h: FlowHarness;
  let setup: LoginSetup;

  beforeAll(async () => {
    h = await FlowHarness.start({ TRUST_PROXY: 'true' }, { database });
    setup = await h.loginSetup({}, { name: 'Flow App', callbacks: [CALLBACK] });
    await h.createApi({ name: 'Flights', identifier: API, scopes: [{ value: 'read:flights', description: 'Read flights' }] });
  });
  afterAll(() => h.close());

  /** A browser with its own number and address, at the phone step of a fresh login. */
  async function openLogin(extra: Record<string, string | undefined> = {}, client = setup) {
    const who = h.caller();
    const session = new LoginSession(h, who.ip);
    const res = await session.open(authorizeQuery(client, extra));
    expect(res.status).toBe(200);
    return { session, phone: who.phone };
  }

  async function atCodeStep(extra: Record<string, string | undefined> = {}, client = setup) {
    const login = await openLogin(extra, client);
    const res = await login.session.submitPhone(login.phone);
    expect(res.status).toBe(200);
    return { ...login, code: h.codeSentTo(login.phone) };
  }

  describe('success', () => {
    it('sends a code, then redirects with an ID token and an access token for the audience in the fragment', async () => {
      const { session, phone, code } = await atCodeStep({ audience: API, scope: 'openid phone read:flights offline_access' });
      expect(session.last!.text).toContain(`We sent a 6-digit code by text message (SMS) to your number ending in <strong><bdi dir="ltr">${phone.slice(-4)}</bdi></strong>.`);

      const res = await session.submitCode(code);
      expect(res.status).toBe(302);
      expect(res.headers.location!.startsWith(`${CALLBACK}#`)).toBe(true);
      const fragment = fragmentOf(res.headers.location);
      expect(Object.keys(fragment).sort()).toEqual(['access_token', 'expires_in', 'id_token', 'scope', 'state', 'token_type']);
      expect(fragment).toMatchObject({ token_type: 'Bearer', expires_in: '86400', state: 'state-123', scope: 'openid phone read:flights' });

      const id = await h.verifyWithJwks(fragment.id_token!, setup.clientId);
      expect(id.claims).toMatchObject({ nonce: 'nonce-456', phone_number: phone, sub: expect.stringMatching(/^sms\|/) });
      const access = await h.verifyWithJwks(fragment.access_token!, API);
      expect(access.header.typ).toBe('at+jwt');
      expect(access.claims).toMatchObject({ sub: id.claims.sub, azp: setup.clientId, scope: 'openid phone read:flights' });
      // OpenID Connect Core §3.2.2.9: the left half of the access token's SHA-256, base64url.
      const leftHalf = createHash('sha256').update(fragment.access_token!).digest().subarray(0, 16).toString('base64url');
      expect(id.claims.at_hash).toBe(leftHalf);
    });

    it('accepts the number as people type it: spaces, brackets, dashes, 00 prefix', async () => {
      const { session, phone } = await openLogin();
      const typed = `00${phone.slice(1, 2)} (${phone.slice(2, 5)}) ${phone.slice(5, 8)}-${phone.slice(8)}`;
      const res = await session.submitPhone(typed);
      expect(res.status).toBe(200);
      expect(h.codeSentTo(phone)).toMatch(/^\d{6}$/);
    });

    it('gives an opaque access token that works at /userinfo when no audience is asked for, and no id_token for response_type=token', async () => {
      const { session, phone, code } = await atCodeStep({ response_type: 'token', nonce: undefined });
      const fragment = fragmentOf((await session.submitCode(code)).headers.location);
      expect(fragment).not.toHaveProperty('id_token');
      expect(fragment).toMatchObject({ token_type: 'Bearer', expires_in: '86400', state: 'state-123' });
      const userinfo = await h.http().get('/userinfo').set('authorization', `Bearer ${fragment.access_token}`);
      expect(userinfo.status).toBe(200);
      expect(userinfo.body.phone_number).toBe(phone);
    });

    it('gives only the ID token (and state) for response_type=id_token', async () => {
      const { session, code } = await atCodeStep({ response_type: 'id_token' });
      const fragment = fragmentOf((await session.submitCode(code)).headers.location);
      expect(Object.keys(fragment).sort()).toEqual(['id_token', 'state']);
      const { claims } = await h.verifyWithJwks(fragment.id_token!, setup.clientId);
      expect(claims.nonce).toBe('nonce-456');
      expect(claims).not.toHaveProperty('at_hash');
    });

    it('uses the client default_audience when no audience is given', async () => {
      const withDefault = await h.loginSetup({}, { callbacks: [CALLBACK], default_audience: API });
      const { session, code } = await atCodeStep({}, withDefault);
      const fragment = fragmentOf((await session.submitCode(code)).headers.location);
      await expect(h.verifyWithJwks(fragment.access_token!, API)).resolves.toBeDefined();
    });

    it('ends the transaction: its cookie is cleared and the form cannot be posted again', async () => {
      const { session, code } = await atCodeStep();
      const cookieName = [...session.cookies.keys()][0]!;
      const saved = new Map(session.cookies);
      const res = await session.submitCode(code);
      expect((res.headers['set-cookie'] as unknown as string[])[0]).toMatch(new RegExp(`^${cookieName}=; Path=/authorize; Max-Age=0`));
      saved.forEach((v, k) => session.cookies.set(k, v));
      const again = await session.submitCode(code);
      expect(again.headers.location).toBeUndefined();
      expect(again.text).toContain('This sign-in to Flow App is complete.');
      expect(again.text).not.toContain('name="code"');
    });
  });

  describe('Back after a completed sign-in', () => {
    it("shows that the sign-in is done, with a link to the application's origin, instead of an expired page", async () => {
      const { session, code } = await atCodeStep();
      const transaction = session.fields!.transaction;
      expect((await session.submitCode(code)).status).toBe(302);
      const back = await session.get('/authorize/code', { transaction });
      expect(back.status).toBe(200);
      expect(back.text).toContain('<h1>You are signed in</h1>');
      expect(back.text).toContain('This sign-in to Flow App is complete.');
      expect(back.text).toContain(`<a class="button" href="${new URL(CALLBACK).origin}/">Return to Flow App</a>`);
      expect(back.text).not.toContain('expired');
    });

    it("goes to the application's login route (initiate_login_uri) when it has one, as Auth0 does", async () => {
      const withRoute = await h.loginSetup({}, { name: 'Routed App', callbacks: [CALLBACK], initiate_login_uri: 'https://app.example.com/login' });
      const { session, code } = await atCodeStep({}, withRoute);
      const transaction = session.fields!.transaction;
      await session.submitCode(code);
      const back = await session.get('/authorize/phone', { transaction });
      expect(back.status).toBe(303);
      expect(back.headers.location).toBe('https://app.example.com/login');
    });

    it('refuses every step of the completed transaction: no second code is sent', async () => {
      const { session, code } = await atCodeStep();
      await session.submitCode(code);
      h.clock.advance(31); // past the resend cooldown
      const sentBefore = h.gateway.requests.length;
      const resend = await session.post('/authorize/resend');
      expect(resend.status).toBe(200);
      expect(resend.text).toContain('This sign-in to Flow App is complete.');
      expect(h.gateway.requests).toHaveLength(sentBefore);
    });

    it('says the page expired once the completed sign-in is no longer kept (an hour)', async () => {
      const { session, code } = await atCodeStep();
      const transaction = session.fields!.transaction;
      await session.submitCode(code);
      h.clock.advance(60 * 60 + 1);
      const back = await session.get('/authorize/code', { transaction });
      expect(back.status).toBe(400);
      expect(back.text).toContain('This sign-in has expired');
    });

    it('shows the code step with a numeric one-time-code input and a resend cooldown', async () => {
      const { session } = await atCodeStep();
      const html = session.last!.text;
      expect(html).toContain('<label for="code">Code</label>');
      expect(html).toMatch(/<input id="code"[^>]* inputmode="numeric" autocomplete="one-time-code"/);
      expect(html).toContain('You can ask for a new code in 30 seconds.');
      expect(html).toContain('class="cooldown wait-30"');
    });
  });

  describe('wrong, expired and exhausted codes', () => {
    it('says a wrong code is wrong, marks the field invalid, and still accepts the right code', async () => {
      const { session, code } = await atCodeStep();
      const wrong = await session.submitCode(code === '000000' ? '111111' : '000000');
      expect(wrong.status).toBe(400);
      expect(wrong.headers.location).toBeUndefined();
      expect(wrong.text).toContain('role="alert">That code is not right. Check the text message and try again.');
      expect(wrong.text).toMatch(/<input id="code"[^>]*aria-invalid="true"/);
      expect((await session.submitCode(code)).status).toBe(302);
    });

    it('says an expired code has expired', async () => {
      const { session, code } = await atCodeStep();
      h.clock.advance(301);
      const res = await session.submitCode(code);
      expect(res.status).toBe(400);
      expect(res.text).toContain('This code has expired. Request a new code.');
    });

    it('says so after three wrong codes, and refuses the right one too', async () => {
      const { session, code } = await atCodeStep();
      const wrong = code === '000000' ? '111111' : '000000';
      for (let i = 0; i < 3; i++) await session.submitCode(wrong);
      const res = await session.submitCode(code);
      expect(res.text).toContain('Too many wrong codes. Request a new code.');
    });

    it('asks for the code when the field is empty, without spending an attempt', async () => {
      const { session, code } = await atCodeStep();
      expect((await session.submitCode('  ')).text).toContain('Enter the code from the text message.');
      expect((await session.submitCode(code)).status).toBe(302);
    });
  });

  describe('sending codes', () => {
    it('explains a number without a country code and sends nothing', async () => {
      const { session } = await openLogin();
      const before = h.gateway.requests.length;
      const res = await session.submitPhone('4155550100');
      expect(res.status).toBe(400);
      expect(res.text).toContain('Choose your country, or enter the number with its country code, starting with +');
      expect(res.text).toContain('value="4155550100"');
      expect(h.gateway.requests.length).toBe(before);
    });

    it('says a number starting with + has no known country code, rather than asking for a +', async () => {
      const { session } = await openLogin();
      const before = h.gateway.requests.length;
      const res = await session.submitPhone('+999 123 4567');
      expect(res.status).toBe(400);
      expect(res.text).toContain('No country has the code at the start of that number. Check the digits right after the +.');
      expect(res.text).not.toContain('starting with +');
      expect(h.gateway.requests.length).toBe(before);
    });

    it('enforces the resend cooldown, then sends a new code that replaces the old one', async () => {
      const { session, phone, code } = await atCodeStep();
      const early = await session.post('/authorize/resend');
      expect(early.status).toBe(429);
      expect(early.text).toMatch(/Please wait 30 seconds before requesting another code\./);

      h.clock.advance(30);
      const resent = await session.post('/authorize/resend');
      expect(resent.status).toBe(303);
      const page = await session.get('/authorize/code', Object.fromEntries(new URLSearchParams(resent.headers.location!.split('?')[1])));
      expect(page.text).toContain('A new code was sent.');
      const newCode = h.codeSentTo(phone);
      if (newCode !== code) expect((await session.submitCode(code)).status).toBe(400);
      expect((await session.submitCode(newCode)).status).toBe(302);
    });

    it('lets the user go back and use a different number', async () => {
      const { session } = await atCodeStep();
      const back = await session.get('/authorize/phone', { transaction: session.fields!.transaction });
      expect(back.status).toBe(200);
      expect(back.text).toContain('Mobile phone number');
      h.clock.advance(30);
      const other = h.caller().phone;
      expect((await session.submitPhone(other)).text).toContain(`your number ending in <strong><bdi dir="ltr">${other.slice(-4)}</bdi></strong>`);
      expect(h.codeSentTo(other)).toMatch(/^\d{6}$/);
    });

    it('says when the number may not sign up', async () => {
      const closed = await h.loginSetup({ disable_signup: true }, { callbacks: [CALLBACK] });
      const { session, phone } = await openLogin({}, closed);
      const res = await session.submitPhone(phone);
      expect(res.status).toBe(403);
      expect(res.text).toContain('This phone number cannot sign in to this application.');
    });

    it('says when the text message could not be sent', async () => {
      const broken = await h.loginSetup({ gateway_url: 'http://127.0.0.1:9/nowhere' }, { callbacks: [CALLBACK] });
      const { session, phone } = await openLogin({}, broken);
      const res = await session.submitPhone(phone);
      expect(res.status).toBe(502);
      expect(res.text).toContain('We could not send the text message.');
    });
  });

  describe('CSRF and transaction binding', () => {
    it('refuses a form post without the transaction cookie, and sends nothing', async () => {
      const { session, phone } = await openLogin();
      const before = h.gateway.requests.length;
      const res = await session.post('/authorize/phone', { phone_number: phone }, { cookies: false });
      expect(res.status).toBe(403);
      expect(res.headers.location).toBeUndefined();
      expect(res.text).toContain('Request refused');
      expect(h.gateway.requests.length).toBe(before);
    });

    it('refuses a form post with a wrong or missing CSRF token', async () => {
      const { session, phone } = await openLogin();
      expect((await session.post('/authorize/phone', { phone_number: phone, csrf_token: 'forged' })).status).toBe(403);
      const { csrf_token: _dropped, ...withoutToken } = session.fields!;
      const res = await h
        .http()
        .post('/authorize/phone')
        .type('form')
        .set('Cookie', [...session.cookies].map(([k, v]) => `${k}=${v}`).join('; '))
        .send({ ...withoutToken, phone_number: phone });
      expect(res.status).toBe(403);
    });

    it("refuses another transaction's CSRF token and cookie pair for this transaction", async () => {
      const a = await openLogin();
      const b = await openLogin();
      // b's cookie and token, a's transaction id
      b.session.fields = { ...b.session.fields!, transaction: a.session.fields!.transaction };
      expect((await b.session.post('/authorize/phone', { phone_number: b.phone })).status).toBe(403);
    });

    it('refuses a code post without the cookie, and spends no attempt', async () => {
      const { session, code } = await atCodeStep();
      expect((await session.post('/authorize/code', { code }, { cookies: false })).status).toBe(403);
      expect((await session.submitCode(code)).status).toBe(302);
    });

    it('shows the code page only to the browser holding the cookie', async () => {
      const { session } = await atCodeStep();
      const stranger = new LoginSession(h, h.caller().ip);
      const res = await stranger.get('/authorize/code', { transaction: session.fields!.transaction });
      expect(res.status).toBe(403);
      expect(res.text).not.toContain('We sent');
    });

    it('refuses an unknown or expired transaction with a page, never a redirect', async () => {
      const { session, phone } = await openLogin();
      expect((await session.post('/authorize/phone', { phone_number: phone, transaction: 'A'.repeat(22) })).status).toBe(400);
      h.clock.advance(30 * 60 + 1);
      const res = await session.post('/authorize/phone', { phone_number: phone });
      expect(res.status).toBe(400);
      expect(res.headers.location).toBeUndefined();
      expect(res.text).toContain('This sign-in has expired');
    });
  });

  it('sends the user back with access_denied and the state on cancel', async () => {
    const { session } = await openLogin();
    const res = await session.post('/authorize/cancel');
    expect(res.status).toBe(302);
    expect(fragmentOf(res.headers.location)).toEqual({
      error: 'access_denied',
      error_description: 'The user cancelled the sign-in.',
      state: 'state-123',
    });
  });

  it('re-checks the request before issuing tokens: a callback removed meanwhile gets a page, not tokens', async () => {
    const client = await h.loginSetup({}, { callbacks: [CALLBACK] });
    const { session, code } = await atCodeStep({}, client);
    await h.management('patch', `/clients/${client.clientId}`, { callbacks: ['https://elsewhere.example.com/cb'] }).expect(200);
    const res = await session.submitCode(code);
    expect(res.status).toBe(400);
    expect(res.headers.location).toBeUndefined();
    expect(res.text).toContain('Callback URL mismatch');
  });

  it('keeps codes, tokens, CSRF tokens and cookie secrets out of the logs', async () => {
    const { session, code } = await atCodeStep({ audience: API });
    const secrets = [code, session.fields!.csrf_token, ...session.cookies.values()];
    const res = await session.submitCode(code);
    const fragment = fragmentOf(res.headers.location);
    secrets.push(fragment.access_token!, fragment.id_token!);
    const logs = h.identity.logs();
    expect(logs).toContain('hosted login completed');
    expect(logs).toContain('"statusCode":302');
    for (const secret of secrets) expect(logs).not.toContain(secret);
  });
});

describe('hosted login under brute-force protection and rate limits', () => {
  let h: FlowHarness;
  let setup: LoginSetup;

  beforeAll(async () => {
    h = await FlowHarness.start({ TRUST_PROXY: 'true', BRUTE_FORCE_THRESHOLD: '2', PASSWORDLESS_START_LIMIT_PER_PHONE_PER_HOUR: '2' });
    setup = await h.loginSetup({}, { callbacks: [CALLBACK] });
  });
  afterAll(() => h.close());

  it('says the number is blocked, even for the right code', async () => {
    const who = h.caller();
    const session = new LoginSession(h, who.ip);
    await session.open(authorizeQuery(setup));
    await session.submitPhone(who.phone);
    const code = h.codeSentTo(who.phone);
    const wrong = code === '000000' ? '111111' : '000000';
    await session.submitCode(wrong);
    await session.submitCode(wrong);
    const res = await session.submitCode(code);
    expect(res.status).toBe(429);
    expect(res.text).toContain('Too many failed attempts: signing in with this number is blocked for now.');
  });

  it('says when too many codes were requested for the number', async () => {
    const who = h.caller();
    const session = new LoginSession(h, who.ip);
    await session.open(authorizeQuery(setup));
    expect((await session.submitPhone(who.phone)).status).toBe(200);
    h.clock.advance(30);
    expect((await session.post('/authorize/resend')).status).toBe(303);
    h.clock.advance(30);
    const res = await session.post('/authorize/resend');
    expect(res.status).toBe(429);
    expect(res.text).toMatch(/Too many codes were requested\. Try again in \d+ (seconds|minutes)\./);
  });
});
