import { randomBytes } from 'node:crypto';
import { describeOnEachDatabase, FlowHarness, type LoginSetup } from '../passwordless/flow-harness';
import { authorizeQuery, CALLBACK, fragmentOf, LoginSession } from '../authorize/login-session';

/** Every way a number enters identity reads it with canonicalPhoneNumber and keeps it in E.164. */
describeOnEachDatabase('canonical phone numbers over HTTP', (database) => {
  let h: FlowHarness;
  let setup: LoginSetup;
  let ip = 0;
  /** A client address no other test uses (rate limits count per IP). */
  const nextIp = () => `198.19.0.${(ip += 1)}`;

  beforeAll(async () => {
    h = await FlowHarness.start({ TRUST_PROXY: 'true', BRUTE_FORCE_THRESHOLD: '2' }, { database });
    setup = await h.loginSetup({}, { name: 'Flow App', callbacks: [CALLBACK] });
  });
  afterAll(() => h.close());

  const startBody = (phone: string, on = setup) => ({ client_id: on.clientId, connection: on.connection, phone_number: phone, send: 'code' });

  /** A browser at the phone page of a fresh hosted login. */
  async function openLogin() {
    const session = new LoginSession(h, nextIp());
    expect((await session.open(authorizeQuery(setup))).status).toBe(200);
    return { session };
  }

  /** The phone page /authorize shows a browser sending `headers`. */
  async function phonePageFor(client: LoginSetup, headers: Record<string, string> = {}): Promise<string> {
    const req = h.http().get('/authorize').query(authorizeQuery(client)).set('X-Forwarded-For', nextIp());
    for (const [name, value] of Object.entries(headers)) req.set(name, value);
    const res = await req;
    expect(res.status).toBe(200);
    return res.text;
  }

  const selectedCountry = (html: string) => /<option value="([A-Z]*)" selected>/.exec(html)?.[1];

  const usersWith = async (phone: string) =>
    (await h.management('get', `/users?q=${encodeURIComponent(`phone_number:"${phone}"`)}`)).body as Array<{ user_id: string; phone_number: string; logins_count: number }>;

  describe('one person, one user', () => {
    it('gives the same number typed three ways one user: E.164 at start, formatted at start, national on the hosted page', async () => {
      const typedE164 = { phone: '+14155552671', ip: nextIp() };
      const start = await h.start(startBody(typedE164.phone), typedE164.ip);
      expect(start.body.phone_number).toBe('+14155552671');
      const first = await h.ro(setup, typedE164, h.codeSentTo('+14155552671'));
      expect(first.status).toBe(200);

      const formatted = { phone: '+1 415-555-2671', ip: nextIp() };
      const second = await h.start(startBody(formatted.phone), formatted.ip);
      expect(second.status).toBe(200);
      expect(second.body.phone_number).toBe('+14155552671');
      expect(JSON.parse(h.gateway.requests.at(-1)!.body).recipient).toBe('+14155552671');
      const otp = await h.otp(setup, { phone: '+1 (415) 555-2671', ip: formatted.ip }, h.codeSentTo('+14155552671'));
      expect(otp.status).toBe(200);

      const { session } = await openLogin();
      expect((await session.submitPhone('(415) 555-2671', 'US')).status).toBe(200);
      expect(session.last!.text).toContain('We sent a 6-digit code by text message (SMS) to your number ending in <strong><bdi dir="ltr">2671</bdi></strong>.');
      const done = await session.submitCode(h.codeSentTo('+14155552671'));
      expect(done.status).toBe(302);
      const ids = [first.body.id_token, otp.body.id_token, fragmentOf(done.headers.location).id_token] as string[];
      const subjects = await Promise.all(ids.map(async (token) => (await h.verifyWithJwks(token, setup.clientId)).claims.sub));
      expect(new Set(subjects).size).toBe(1);

      const users = await usersWith('+14155552671');
      expect(users).toHaveLength(1);
      expect(users[0]).toMatchObject({ user_id: subjects[0], phone_number: '+14155552671', logins_count: 3 });
    });

    it('reads a national number for the country chosen on the hosted page', async () => {
      const { session } = await openLogin();
      expect((await session.submitPhone('07400 123456', 'GB')).status).toBe(200);
      expect(h.codeSentTo('+447400123456')).toMatch(/^\d{6}$/);
    });

    it('reads a number with its country code whatever country is chosen', async () => {
      const { session } = await openLogin();
      expect((await session.submitPhone('+44 7400 123450', 'US')).status).toBe(200);
      expect(h.codeSentTo('+447400123450')).toMatch(/^\d{6}$/);
    });
  });

  describe('refused numbers (nothing is sent)', () => {
    it.each([
      ['too short', '+4479', 'phone_number is too short'],
      ['too long', '+44791112345678999', 'phone_number is too long'],
      ['of an unknown country code', '+999123456789', expect.stringContaining('phone_number has an unknown country code')],
      ['without a country code', '(415) 555-2671', expect.stringContaining('phone_number has an unknown country code')],
      ['not a number', 'call me', 'phone_number is not a phone number'],
      ['not valid for its country', '+44 1012 345678', 'phone_number is not a valid number for +44'],
      ['in a range no number of its country is in', '+15555550123', 'phone_number is not a valid number for +1'],
    ])('start answers 400 bad.phone_number for a number %s, saying so', async (_case, phone, description) => {
      const before = h.gateway.requests.length;
      const res = await h.start(startBody(phone), nextIp());
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'bad.phone_number', error_description: description });
      expect(h.gateway.requests.length).toBe(before);
    });

    it('answers 400 invalid_request naming username at /oauth/ro and the OTP grant, before any code is tried', async () => {
      const who = { phone: '+4479', ip: nextIp() };
      for (const res of [await h.ro(setup, who, '123456'), await h.otp(setup, who, '123456')]) {
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ error: 'invalid_request', error_description: 'username is too short' });
      }
    });

    it('tells the person on the hosted page what is wrong, in words about their country', async () => {
      const { session } = await openLogin();
      const before = h.gateway.requests.length;
      const res = await session.submitPhone('01012 345678', 'GB');
      expect(res.status).toBe(400);
      expect(res.text).toContain('That is not a valid phone number for United Kingdom. Check it and the country.');
      expect(res.text).toContain('<option value="GB" selected>United Kingdom (+44)</option>');
      expect((await session.submitPhone('0740', 'GB')).text).toContain('That number is too short.');
      expect(h.gateway.requests.length).toBe(before);
    });
  });

  describe('the country the hosted page chooses', () => {
    it('is the connection default_country, else the region of the preferred browser language, else none', async () => {
      const british = await h.loginSetup({ default_country: 'GB' }, { name: 'Flow App', callbacks: [CALLBACK] });
      expect(selectedCountry(await phonePageFor(british, { 'Accept-Language': 'de-DE' }))).toBe('GB');
      expect(selectedCountry(await phonePageFor(setup, { 'Accept-Language': 'fr;q=0.5, de-AT, en-GB;q=0.8' }))).toBe('AT');
      expect(selectedCountry(await phonePageFor(setup, { 'Accept-Language': 'fr, en-GB;q=0.8' }))).toBe('GB');
      expect(selectedCountry(await phonePageFor(setup, { 'Accept-Language': 'fr' }))).toBe('');
      expect(selectedCountry(await phonePageFor(setup))).toBe('');
    });

    it('lists countries by name with their calling code, in a form that works without script', async () => {
      const page = await phonePageFor(setup);
      expect(page).toContain('<select id="country" name="country" autocomplete="country">');
      expect(page).toContain('<option value="US">United States (+1)</option>');
      expect(page).toContain('<option value="DE">Germany (+49)</option>');
    });
  });

  describe('default_country through the management API', () => {
    it('is validated at create and at PATCH, shown in the record and removed with null', async () => {
      const refused = await h.management('post', '/connections', { options: { ...minimalOptions(), default_country: 'XX' } });
      expect(refused.status).toBe(400);
      expect(refused.body.error_description).toBe('options.default_country: XX is not a country with phone numbers');
      const lowerCase = await h.management('post', '/connections', { options: { ...minimalOptions(), default_country: 'gb' } });
      expect(lowerCase.status).toBe(400);
      expect(lowerCase.body.details.map((d: { path: string }) => d.path)).toContain('options.default_country');

      const created = await h.management('post', '/connections', { options: { ...minimalOptions(), default_country: 'FR' } });
      expect(created.status).toBe(201);
      expect(created.body.options.default_country).toBe('FR');
      const path = `/connections/${created.body.id}`;
      expect((await h.management('patch', path, { options: { default_country: 'ZZ' } })).status).toBe(400);
      expect((await h.management('patch', path, { options: { default_country: 'DE' } })).body.options.default_country).toBe('DE');
      const cleared = await h.management('patch', path, { options: { default_country: null } });
      expect(cleared.status).toBe(200);
      expect(cleared.body.options).not.toHaveProperty('default_country');
    });
  });

  describe('the management API', () => {
    it('stores the numbers it is given in E.164, refuses invalid ones naming phone_number, and finds a user by a formatted number', async () => {
      const created = await h.management('post', '/users', { connection: setup.connection, phone_number: '+44 (0) 7400 123457' });
      expect(created.status).toBe(201);
      expect(created.body.phone_number).toBe('+447400123457');
      const again = await h.management('post', '/users', { connection: setup.connection, phone_number: '+447400123457' });
      expect(again.status).toBe(409);

      const refused = await h.management('post', '/users', { connection: setup.connection, phone_number: '+15555550123' });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ error: 'invalid_request', error_description: 'phone_number: is not a valid number for +1' });

      const userPath = `/users/${encodeURIComponent(created.body.user_id)}`;
      const moved = await h.management('patch', userPath, { phone_number: '+1 (415) 555-2672' });
      expect(moved.body.phone_number).toBe('+14155552672');
      expect((await h.management('patch', userPath, { phone_number: '+1 415 555' })).status).toBe(400);

      for (const q of ['phone_number:"+1 (415) 555-2672"', 'phone_number:"+1.415.555.2672"', 'phone_number:+14155552672', 'phone_number:+1415555267*']) {
        const found = (await h.management('get', `/users?q=${encodeURIComponent(q)}`)).body as Array<{ user_id: string }>;
        expect(found.map((u) => u.user_id)).toContain(created.body.user_id);
      }
      // Formatted the same person logs in as that user.
      const who = { phone: '+1 415 555 2672', ip: nextIp() };
      await h.start(startBody(who.phone), who.ip);
      expect((await h.ro(setup, who, h.codeSentTo('+14155552672'))).status).toBe(200);
      expect(await usersWith('+14155552672')).toEqual([expect.objectContaining({ user_id: created.body.user_id, logins_count: 1 })]);
    });

    it('reads a user-blocks identifier as a number: a formatted one reaches the E.164 blocks', async () => {
      const who = { phone: '+14155552673', ip: nextIp() };
      await h.sendCode(setup, who);
      for (let i = 0; i < 3; i += 1) await h.ro(setup, { phone: '+1 415 555 2673', ip: who.ip }, '000000');
      const identifier = encodeURIComponent('+1 (415) 555-2673');
      const blocks = await h.management('get', `/user-blocks?identifier=${identifier}`);
      expect(blocks.body.blocked_for).toContainEqual({ identifier: '+14155552673', ip: who.ip });
      expect((await h.management('delete', `/user-blocks?identifier=${identifier}`)).status).toBe(204);
      expect((await h.management('get', '/user-blocks?identifier=%2B14155552673')).body).toEqual({ blocked_for: [] });
    });
  });

  describe('metrics', () => {
    it('counts codes sent and codes verified by the country of the number, unknown for non-geographic numbers', async () => {
      const metric = async (name: string, country: string) => {
        const text = (await h.http().get('/metrics')).text;
        const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(`country="${country}"`));
        return line ? Number(line.split(' ').at(-1)) : 0;
      };
      const [sentFr, verifiedFr, sentUnknown] = [await metric('sms_sent_total', 'FR'), await metric('sms_verified_total', 'FR'), await metric('sms_sent_total', 'unknown')];

      const french = { phone: '+33 6 12 34 56 78', ip: nextIp() };
      await h.start(startBody(french.phone), french.ip);
      // +800 numbers are toll free, which a new connection's SMS policy refuses unless listed.
      const tollFreeToo = await h.loginSetup({ allowed_number_types: ['MOBILE', 'FIXED_LINE_OR_MOBILE', 'TOLL_FREE'] });
      expect((await h.start(startBody('+800 1234 5678', tollFreeToo), nextIp())).status).toBe(200);
      expect(await metric('sms_sent_total', 'FR')).toBe(sentFr + 1);
      expect(await metric('sms_sent_total', 'unknown')).toBe(sentUnknown + 1);
      expect(await metric('sms_verified_total', 'FR')).toBe(verifiedFr);

      expect((await h.ro(setup, french, h.codeSentTo('+33612345678'))).status).toBe(200);
      expect(await metric('sms_verified_total', 'FR')).toBe(verifiedFr + 1);
      // A refused start and a wrong code count nothing.
      await h.start(startBody('+33 1'), nextIp());
      await h.ro(setup, french, '000000');
      expect(await metric('sms_sent_total', 'FR')).toBe(sentFr + 1);
      expect(await metric('sms_verified_total', 'FR')).toBe(verifiedFr + 1);
    });
  });

  function minimalOptions() {
    return {
      name: `sms-${randomBytes(4).toString('hex')}`,
      strategy: 'sms',
      provider: 'sms_gateway',
      gateway_url: h.gateway.url(),
      template: 'Your code is @@password@@',
    };
  }
});
