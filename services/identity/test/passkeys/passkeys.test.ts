import type { Response } from 'supertest';
import { authorizeQuery, CALLBACK, fragmentOf, LoginSession } from '../authorize/login-session';
import { describeOnEachDatabase, FlowHarness, type LoginSetup } from '../passwordless/flow-harness';
import { SOFTWARE_AAGUID, SoftwareAuthenticator, type SoftwarePasskey } from './software-authenticator';

/** What the registration options tell the browser (the parts the tests read). */
interface RegistrationOptions {
  challenge: string;
  rp: { id: string };
  user: { id: string; name: string };
}

/** identity's AUTH_URL in tests (test/helpers.ts): the RP ID is its host, the origin its origin. */
const ORIGIN = 'http://identity.test';
const RP_ID = 'identity.test';

describeOnEachDatabase('passkeys on the hosted login', (database) => {
  let h: FlowHarness;
  let setup: LoginSetup;

  beforeAll(async () => {
    h = await FlowHarness.start({ TRUST_PROXY: 'true' }, { database });
    // A new connection: passkeys on (offer_after_sms_logins 3, user verification required).
    setup = await h.loginSetup({}, { name: 'Passkey App', callbacks: [CALLBACK] });
  });
  afterAll(() => h.close());

  /** The SMS login of `phone` in a fresh browser, up to the answer to the code; `capable`: the code page's script found a platform authenticator. */
  async function smsLogin(phone: string, ip: string, options: { capable?: boolean; session?: LoginSession; client?: LoginSetup; extra?: Record<string, string> } = {}) {
    const session = options.session ?? new LoginSession(h, ip);
    expect((await session.open(authorizeQuery(options.client ?? setup, options.extra))).status).toBe(200);
    expect((await session.submitPhone(phone)).status).toBe(200);
    const res = await session.post('/authorize/code', { code: h.codeSentTo(phone), ...(options.capable === false ? {} : { passkey_capable: '1' }) });
    return { session, res };
  }

  /** From the offer page: creates the passkey with `authenticator` and posts it; the answer is the application's response. */
  async function registerPasskey(session: LoginSession, authenticator: SoftwareAuthenticator): Promise<{ passkey: SoftwarePasskey; res: Response; options: RegistrationOptions }> {
    const options = await session.post('/authorize/passkey/registration-options');
    expect(options.status).toBe(200);
    const { passkey, credential } = authenticator.create(options.body);
    const res = await session.post('/authorize/passkey/register', { credential: JSON.stringify(credential) });
    return { passkey, res, options: options.body };
  }

  /** A user who signed in once by SMS and registered a passkey on the offer. */
  async function userWithPasskey() {
    const who = h.caller();
    const authenticator = new SoftwareAuthenticator(ORIGIN);
    const { session, res } = await smsLogin(who.phone, who.ip);
    expect(res.status).toBe(303);
    await session.get('/authorize/passkey/offer', { transaction: session.fields!.transaction });
    const registered = await registerPasskey(session, authenticator);
    expect(registered.res.status).toBe(302);
    const userId = (await h.verifyWithJwks(fragmentOf(registered.res.headers.location).id_token!, setup.clientId)).claims.sub!;
    return { who, authenticator, passkey: registered.passkey, userId };
  }

  /** A fresh browser at the phone page, with the options of a passkey sign-in. */
  async function passkeyPage(ip: string, extra: Record<string, string> = {}) {
    const session = new LoginSession(h, ip);
    const page = await session.open(authorizeQuery(setup, extra));
    expect(page.status).toBe(200);
    const options = await session.post('/authorize/passkey/options');
    expect(options.status).toBe(200);
    return { session, page, options: options.body as { challenge: string; rpId: string; userVerification: string; allowCredentials?: unknown[] } };
  }

  const smsCount = () => h.gateway.requests.length;

  /** The console's figures of the last 7 days, summed: passkey logins, codes verified and what passkeys saved (USD). */
  async function loginFigures(): Promise<{ passkeyLogins: number; verified: number; savedUsd: number }> {
    const res = await h.management('get', '/stats/sms?group_by=channel');
    expect(res.status).toBe(200);
    const figures = res.body as Array<{ passkey_logins: number; verified: number; saved_usd: number }>;
    return {
      passkeyLogins: figures.reduce((n, f) => n + f.passkey_logins, 0),
      verified: figures.reduce((n, f) => n + f.verified, 0),
      savedUsd: Math.round(figures.reduce((n, f) => n + f.saved_usd, 0) * 1e6) / 1e6,
    };
  }

  describe('the offer after an SMS login', () => {
    it('offers a passkey after the first SMS login where the browser can make one, then creates it and continues to the application', async () => {
      const who = h.caller();
      const { session, res } = await smsLogin(who.phone, who.ip);
      expect(res.status).toBe(303);
      expect(res.headers.location).toBe(`/authorize/passkey/offer?transaction=${session.fields!.transaction}`);
      // Signed in already: the login session cookie is set with the redirect to the offer.
      expect(session.cookies.has('smsauth_session')).toBe(true);

      const offer = await session.get('/authorize/passkey/offer', { transaction: session.fields!.transaction });
      expect(offer.status).toBe(200);
      expect(offer.text).toContain('Sign in faster next time with a passkey</button>');
      expect(offer.text).toContain('>Not now</button>');
      expect(offer.text).toContain(">Don't ask on this device</button>");
      expect(offer.headers['content-security-policy']).toContain("script-src 'self'; connect-src 'self'");
      expect(offer.text).toContain('<script src="/authorize/webauthn.js"></script>');

      const authenticator = new SoftwareAuthenticator(ORIGIN);
      const { res: registered, options, passkey } = await registerPasskey(session, authenticator);
      // A discoverable passkey of identity's host, user verification required, no attestation.
      expect(options).toMatchObject({
        rp: { id: RP_ID },
        attestation: 'none',
        authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'required' },
        user: { name: who.phone },
      });
      // The user handle is opaque: neither the number nor the user id.
      const handle = Buffer.from(options.user.id, 'base64url').toString('latin1');
      expect(handle).not.toContain(who.phone.slice(1));
      expect(Buffer.from(options.user.id, 'base64url')).toHaveLength(32);

      expect(registered.status).toBe(302);
      const fragment = fragmentOf(registered.headers.location);
      expect(fragment).toMatchObject({ token_type: 'Bearer', state: 'state-123' });
      const id = await h.verifyWithJwks(fragment.id_token!, setup.clientId);
      expect(id.claims).toMatchObject({ phone_number: who.phone, nonce: 'nonce-456' });
      expect(Buffer.from(options.user.id, 'base64url').toString('latin1')).not.toContain(id.claims.sub!);

      const methods = await h.management('get', `/users/${encodeURIComponent(id.claims.sub!)}/authentication-methods`);
      expect(methods.status).toBe(200);
      expect(methods.body).toEqual([
        {
          id: passkey.id,
          type: 'passkey',
          confirmed: true,
          name: 'Google Password Manager',
          created_at: expect.any(String),
          key_id: passkey.id,
          aaguid: SOFTWARE_AAGUID,
          credential_device_type: 'multi_device',
          credential_backed_up: true,
          relying_party_identifier: RP_ID,
        },
      ]);
      const logs = await h.management('get', `/users/${encodeURIComponent(id.claims.sub!)}/logs`);
      expect(logs.body.map((l: { type: string }) => l.type)).toContain('passkey_enrolled');
    });

    it('does not offer where the browser cannot make a passkey (no script, or no platform authenticator): the code answers the client as before', async () => {
      const who = h.caller();
      const { res } = await smsLogin(who.phone, who.ip, { capable: false });
      expect(res.status).toBe(302);
      expect(res.headers.location!.startsWith(`${CALLBACK}#`)).toBe(true);
    });

    it('asks again after "Not now" only at the configured SMS login', async () => {
      const twice = await h.loginSetup({ passkeys: { offer_after_sms_logins: 2 } }, { callbacks: [CALLBACK] });
      const who = h.caller();
      const first = await smsLogin(who.phone, who.ip, { client: twice });
      expect(first.res.status).toBe(303);
      const skipped = await first.session.post('/authorize/passkey/skip', { choice: 'later' });
      expect(skipped.status).toBe(302);
      expect(fragmentOf(skipped.headers.location).access_token).toBeDefined();

      // The next SMS login passes without the offer; the one after asks again.
      const second = await smsLogin(who.phone, who.ip, { client: twice });
      expect(second.res.status).toBe(302);
      expect(second.res.headers.location!.startsWith(`${CALLBACK}#`)).toBe(true);
      const third = await smsLogin(who.phone, who.ip, { client: twice });
      expect(third.res.status).toBe(303);
      expect(third.res.headers.location).toMatch(/^\/authorize\/passkey\/offer\?/);
    });

    it('never asks again on a device that said "Don\'t ask on this device"', async () => {
      const who = h.caller();
      const first = await smsLogin(who.phone, who.ip);
      expect(first.res.status).toBe(303);
      const declined = await first.session.post('/authorize/passkey/skip', { choice: 'never' });
      expect(declined.status).toBe(302);
      expect(([] as string[]).concat(declined.headers['set-cookie'] ?? []).join('\n')).toMatch(/smsauth_passkey_offer=never; Path=\/authorize; Max-Age=\d+; HttpOnly; SameSite=Lax/);

      const again = await smsLogin(who.phone, who.ip, { session: first.session, extra: { prompt: 'login' } });
      expect(again.res.status).toBe(302);
      expect(again.res.headers.location!.startsWith(`${CALLBACK}#`)).toBe(true);
    });

    it('does not offer, nor serve any script or passkey route, for a connection with passkeys off', async () => {
      const off = await h.loginSetup({ passkeys: { enabled: false } }, { callbacks: [CALLBACK] });
      const who = h.caller();
      const session = new LoginSession(h, who.ip);
      const page = await session.open(authorizeQuery(off));
      expect(page.text).not.toContain('<script');
      expect(page.text).toContain('autocomplete="tel"');
      expect(page.headers['content-security-policy']).not.toContain('script-src');
      expect((await session.post('/authorize/passkey/options')).status).toBe(404);
      const { res } = await smsLogin(who.phone, who.ip, { session, client: off });
      expect(res.status).toBe(302);
    });
  });

  describe('signing in with a passkey', () => {
    it('offers the passkey on the phone page (button and autofill) and signs in without any SMS, the login session begun', async () => {
      const { who, authenticator, passkey, userId } = await userWithPasskey();
      const { session, page, options } = await passkeyPage(h.caller().ip);
      expect(page.text).toMatch(/<input id="phone_number" name="phone_number" type="tel" autocomplete="username webauthn"/);
      expect(page.text).toContain('Sign in with a passkey</button>');
      expect(options).toMatchObject({ rpId: RP_ID, userVerification: 'required' });
      expect(options.allowCredentials ?? []).toEqual([]);

      const sent = smsCount();
      const figuresBefore = await loginFigures();
      const res = await session.post('/authorize/passkey/login', { credential: JSON.stringify(authenticator.get(passkey, options)) });
      expect(res.status).toBe(302);
      const fragment = fragmentOf(res.headers.location);
      const id = await h.verifyWithJwks(fragment.id_token!, setup.clientId);
      expect(id.claims).toMatchObject({ sub: userId, phone_number: who.phone, nonce: 'nonce-456' });
      expect(smsCount()).toBe(sent);
      expect(session.cookies.has('smsauth_session')).toBe(true);

      // The session signs in silently afterwards (prompt=none), still without an SMS.
      const silent = await session.open(authorizeQuery(setup, { prompt: 'none' }));
      expect(silent.status).toBe(302);
      expect(fragmentOf(silent.headers.location).access_token).toBeDefined();
      expect(smsCount()).toBe(sent);

      const methods = await h.management('get', `/users/${encodeURIComponent(userId)}/authentication-methods`);
      expect(methods.body[0].last_auth_at).toEqual(expect.any(String));
      const logs = await h.management('get', `/users/${encodeURIComponent(userId)}/logs`);
      expect(logs.body.find((l: { type: string; details: { via?: string } }) => l.type === 's' && l.details.via === 'passkey')).toBeDefined();
      const metrics = await h.http().get('/metrics');
      expect(metrics.text).toMatch(/\npasskey_logins_total\{[^}]*result="success"[^}]*\} [1-9]/);
      expect(metrics.text).toMatch(/\npasskey_sms_saved_total(\{[^}]*\})? [1-9]/);
      expect(metrics.text).toMatch(/\npasskey_enrollments_total\{[^}]*result="success"[^}]*\} [1-9]/);
      // The console's figures: one passkey login (an SMS saved); the silent sign-in is no code verified.
      // The passkey login saved a US SMS at its built-in price (0.0083 USD).
      expect(await loginFigures()).toEqual({
        passkeyLogins: figuresBefore.passkeyLogins + 1,
        verified: figuresBefore.verified,
        savedUsd: Math.round((figuresBefore.savedUsd + 0.0083) * 1e6) / 1e6,
      });
    });

    it('continues a code flow with PKCE: the code exchanges for tokens', async () => {
      const { authenticator, passkey, userId } = await userWithPasskey();
      const verifier = 'passkey-verifier-0123456789-0123456789-0123456789';
      const { createHash } = await import('node:crypto');
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      const { session, options } = await passkeyPage(h.caller().ip, { response_type: 'code', code_challenge: challenge, code_challenge_method: 'S256' });
      const res = await session.post('/authorize/passkey/login', { credential: JSON.stringify(authenticator.get(passkey, options)) });
      expect(res.status).toBe(302);
      const code = new URL(res.headers.location!).searchParams.get('code')!;
      const token = await h
        .http()
        .post('/oauth/token')
        .send({ grant_type: 'authorization_code', client_id: setup.clientId, code, redirect_uri: CALLBACK, code_verifier: verifier });
      expect(token.status).toBe(200);
      expect((await h.verifyWithJwks(token.body.id_token, setup.clientId)).claims.sub).toBe(userId);
    });

    it('refuses a replayed assertion: its challenge was used', async () => {
      const { authenticator, passkey } = await userWithPasskey();
      const first = await passkeyPage(h.caller().ip);
      const assertion = JSON.stringify(authenticator.get(passkey, first.options));
      expect((await first.session.post('/authorize/passkey/login', { credential: assertion })).status).toBe(302);

      // The same assertion posted in another sign-in (its own transaction and cookie).
      const second = await passkeyPage(h.caller().ip);
      const replayed = await second.session.post('/authorize/passkey/login', { credential: assertion });
      expect(replayed.status).toBe(400);
      expect(replayed.headers.location).toBeUndefined();
      expect(replayed.text).toContain('That passkey could not sign you in.');
      // SMS is still offered: the page is the phone page.
      expect(replayed.text).toContain('Send code</button>');
    });

    it('refuses an assertion whose signature counter did not go up (a cloned authenticator)', async () => {
      const { authenticator, passkey } = await userWithPasskey();
      const first = await passkeyPage(h.caller().ip);
      expect((await first.session.post('/authorize/passkey/login', { credential: JSON.stringify(authenticator.get(passkey, first.options)) })).status).toBe(302);
      const second = await passkeyPage(h.caller().ip);
      const stale = authenticator.get(passkey, second.options, { counter: passkey.counter });
      expect((await second.session.post('/authorize/passkey/login', { credential: JSON.stringify(stale) })).status).toBe(400);
    });

    it('refuses a wrong user handle, a tampered signature and a passkey of another RP ID or origin', async () => {
      const { authenticator, passkey, userId } = await userWithPasskey();
      const other = await userWithPasskey();
      const cases: Array<[string, Parameters<SoftwareAuthenticator['get']>[2]]> = [
        ['wrong_user_handle', { userHandle: other.passkey.userHandle }],
        ['wrong_user_handle', { userHandle: null }],
        ['invalid_signature', { tamper: true }],
        ['wrong_rp_id', { rpId: 'evil.example' }],
        ['wrong_origin', { origin: 'https://evil.example' }],
      ];
      for (const [reason, bend] of cases) {
        const { session, options } = await passkeyPage(h.caller().ip);
        const res = await session.post('/authorize/passkey/login', { credential: JSON.stringify(authenticator.get(passkey, options, bend)) });
        expect([reason, res.status]).toEqual([reason, 400]);
        expect(res.text).toContain('That passkey could not sign you in.');
      }
      const logs = await h.management('get', `/users/${encodeURIComponent(userId)}/logs`);
      const refusals = logs.body.filter((l: { type: string }) => l.type === 'f').map((l: { details: { reason: string } }) => l.details.reason);
      expect(refusals.sort()).toEqual(cases.map(([reason]) => reason).sort());
      // None of them signed in: the genuine passkey still works afterwards.
      const { session, options } = await passkeyPage(h.caller().ip);
      expect((await session.post('/authorize/passkey/login', { credential: JSON.stringify(authenticator.get(passkey, options)) })).status).toBe(302);
    });

    it('refuses a passkey registered for a user of another connection', async () => {
      const { authenticator, passkey } = await userWithPasskey();
      const elsewhere = await h.loginSetup({}, { callbacks: [CALLBACK] });
      const session = new LoginSession(h, h.caller().ip);
      await session.open(authorizeQuery(elsewhere));
      const options = (await session.post('/authorize/passkey/options')).body;
      const res = await session.post('/authorize/passkey/login', { credential: JSON.stringify(authenticator.get(passkey, options)) });
      expect(res.status).toBe(400);
    });

    it('stops accepting a passkey deleted through the management API', async () => {
      const { authenticator, passkey, userId } = await userWithPasskey();
      const path = `/users/${encodeURIComponent(userId)}/authentication-methods/${passkey.id}`;
      expect((await h.management('get', path)).body.id).toBe(passkey.id);
      expect((await h.management('delete', path)).status).toBe(204);
      expect((await h.management('delete', path)).status).toBe(404);
      expect((await h.management('get', `/users/${encodeURIComponent(userId)}/authentication-methods`)).body).toEqual([]);
      const { session, options } = await passkeyPage(h.caller().ip);
      const res = await session.post('/authorize/passkey/login', { credential: JSON.stringify(authenticator.get(passkey, options)) });
      expect(res.status).toBe(400);
      expect(res.text).toContain('That passkey could not sign you in.');
    });

    it('sends a blocked user back to the application with "user is blocked"', async () => {
      const { authenticator, passkey, userId } = await userWithPasskey();
      expect((await h.management('patch', `/users/${encodeURIComponent(userId)}`, { blocked: true })).status).toBe(200);
      const { session, options } = await passkeyPage(h.caller().ip);
      const res = await session.post('/authorize/passkey/login', { credential: JSON.stringify(authenticator.get(passkey, options)) });
      expect(res.status).toBe(302);
      expect(fragmentOf(res.headers.location)).toMatchObject({ error: 'unauthorized', error_description: 'user is blocked', state: 'state-123' });
      expect(res.headers['set-cookie']?.toString() ?? '').not.toContain('smsauth_session=');
    });

    it('refuses a post without the page\'s CSRF token, and garbage as the credential', async () => {
      const { session } = await passkeyPage(h.caller().ip);
      expect((await session.post('/authorize/passkey/login', { csrf_token: 'forged', credential: '{}' })).status).toBe(403);
      expect((await session.post('/authorize/passkey/login', { credential: 'not json' })).status).toBe(400);
      expect((await session.post('/authorize/passkey/login', { credential: '{"id":"x"}' })).status).toBe(400);
    });
  });

  describe('management API', () => {
    it('answers 404 for an unknown user and needs read:users / update:users', async () => {
      expect((await h.management('get', '/users/sms%7Cnobody/authentication-methods')).status).toBe(404);
      expect((await h.http().get('/api/v2/users/sms%7Cnobody/authentication-methods')).status).toBe(401);
    });
  });
});
