import { TenantLogSchema } from '@smsauth/contracts';
import { maskPhoneNumber } from '@smsauth/service-kit';
import { answer } from '@smsauth/test-support';
import { describeOnEachDatabase, FlowHarness, type LoginSetup } from '../passwordless/flow-harness';
import { ADMIN_CLIENT_ID, ADMIN_CLIENT_SECRET, adminToken } from '../helpers';
import { logMark } from './log-harness';

// Every event the issue lists, each produced by its action and by nothing else: the records
// appended while a test runs its action are exactly the expected ones.
describeOnEachDatabase('tenant log events', (database) => {
  let h: FlowHarness;
  let setup: LoginSetup;
  /** Everything secret this suite created or saw: no record may contain any of it. */
  const secrets = new Set<string>([ADMIN_CLIENT_SECRET]);
  const fullNumbers = new Set<string>();
  const caller = () => {
    const who = h.caller();
    fullNumbers.add(who.phone);
    return who;
  };
  const sendCode = async (who: { phone: string; ip: string }, target = setup) => {
    const code = await h.sendCode(target, who);
    secrets.add(code);
    return code;
  };
  const keep = (body: Record<string, unknown>) => {
    for (const key of ['access_token', 'id_token', 'refresh_token', 'client_secret']) if (typeof body[key] === 'string') secrets.add(body[key] as string);
    return body;
  };

  beforeAll(async () => {
    h = await FlowHarness.start(
      { TRUST_PROXY: 'true', BRUTE_FORCE_THRESHOLD: '4', PASSWORDLESS_START_LIMIT_PER_PHONE_PER_HOUR: '3' },
      { database },
    );
    setup = await h.loginSetup();
    secrets.add(h.admin);
  });
  afterAll(() => h?.close());

  it('records a code sent (cs) with who asked, the masked number and nothing of the code', async () => {
    const who = caller();
    const mark = await logMark(h);
    const res = await h
      .start({ client_id: setup.clientId, connection: setup.connection, phone_number: who.phone, send: 'code' }, who.ip)
      .set('user-agent', 'LogTest/1.0');
    expect(res.status).toBe(200);
    secrets.add(h.codeSentTo(who.phone));
    const [record, ...others] = await mark.records();
    expect(others).toEqual([]);
    expect(record).toMatchObject({
      type: 'cs',
      description: 'Code Sent',
      client_id: setup.clientId,
      client_name: setup.clientName,
      connection: setup.connection,
      connection_id: setup.connectionId,
      ip: who.ip,
      user_agent: 'LogTest/1.0',
      phone_number: maskPhoneNumber(who.phone),
      user_id: null,
      details: { start_id: res.body._id, delivery: 'sent' },
    });
    expect(record!.log_id).toMatch(/^900\d{53}$/);
  });

  it('marks the code-sent record written ahead (cs) failed and records the failed delivery (fn) when the gateway refuses', async () => {
    const who = caller();
    const mark = await logMark(h);
    h.gateway.respondWith(answer(500));
    try {
      const res = await h.start({ client_id: setup.clientId, connection: setup.connection, phone_number: who.phone, send: 'code' }, who.ip);
      expect(res.status).toBeGreaterThanOrEqual(400);
    } finally {
      h.gateway.respondWith(answer(200));
    }
    const records = await mark.records();
    expect(records.map((r) => r.type)).toEqual(['cs', 'fn']);
    expect(records[0]!.details).toEqual({ start_id: records[1]!.details.start_id, delivery: 'failed', error: 'sms_provider_error', status: 400, channel: 'sms' });
    expect(records[1]!.details).toMatchObject({ error: expect.any(String), channel: 'sms' });
    const codes = await h.identity.sql.query('SELECT 1 FROM one_time_codes WHERE phone_number = $1', [who.phone]);
    expect(codes.rows).toEqual([]);
  });

  it('records a login (s) for /oauth/ro and for the OTP grant, with the user the login created', async () => {
    const first = caller();
    await sendCode(first);
    let mark = await logMark(h);
    const ro = await h.ro(setup, first, [...secrets].at(-1)!);
    expect(ro.status).toBe(200);
    keep(ro.body);
    const [login, ...others] = await mark.records();
    expect(others).toEqual([]);
    const user = await h.identity.store.users.findByPhone(setup.connectionId, first.phone);
    expect(login).toMatchObject({ type: 's', user_id: user!.user_id, client_id: setup.clientId, client_name: setup.clientName, ip: first.ip, details: { via: 'oauth/ro' } });

    const second = caller();
    const code = await sendCode(second);
    mark = await logMark(h);
    const otp = await h.otp(setup, second, code);
    expect(otp.status).toBe(200);
    keep(otp.body);
    const records = await mark.records();
    expect(records.map((r) => [r.type, r.details])).toEqual([['s', { via: 'otp', channel: 'sms', provider: 'unknown' }]]);
    expect(records[0]!.user_id).toMatch(/^sms\|/);
  });

  it('records a wrong code (fp), an expired code and a used one, each counted once', async () => {
    const who = caller();
    const code = await sendCode(who);
    const wrong = code === '000000' ? '111111' : '000000';
    let mark = await logMark(h);
    expect((await h.ro(setup, who, wrong)).status).toBe(401);
    expect(await mark.types()).toEqual(['fp']);

    expect((await h.ro(setup, who, code)).status).toBe(200);
    mark = await logMark(h);
    expect((await h.ro(setup, who, code)).status).toBe(401);
    expect(await mark.types()).toEqual(['sms_code_used']);

    const late = caller();
    const lateCode = await sendCode(late);
    h.clock.advance(301);
    mark = await logMark(h);
    expect((await h.otp(setup, late, lateCode)).status).toBe(400);
    expect(await mark.types()).toEqual(['sms_code_expired']);
  });

  it('records too many attempts, the failure that blocked the IP (limit_wc), the refused attempts, and the unblock (ublkdu)', async () => {
    const who = caller();
    const code = await sendCode(who);
    const wrong = code === '000000' ? '111111' : '000000';
    let mark = await logMark(h);
    for (let i = 0; i < 3; i += 1) expect((await h.otp(setup, who, wrong)).status).toBe(400);
    expect(await mark.types()).toEqual(['fp', 'fp', 'fp']);

    // The 4th failure (threshold 4) exhausts the code and blocks the IP, in one transaction.
    mark = await logMark(h);
    expect((await h.otp(setup, who, code)).status).toBe(400);
    const blocked = await mark.records();
    expect(blocked.map((r) => r.type)).toEqual(['sms_code_exhausted', 'limit_wc']);
    expect(blocked[1]).toMatchObject({ ip: who.ip, phone_number: maskPhoneNumber(who.phone), details: { via: 'otp', threshold: 4 } });

    mark = await logMark(h);
    expect((await h.otp(setup, who, code)).status).toBe(429);
    expect(await mark.types()).toEqual(['sms_blocked_attempt']);

    mark = await logMark(h);
    await h.management('delete', `/user-blocks?identifier=${encodeURIComponent(who.phone)}`).expect(204);
    const unblock = await mark.records();
    expect(unblock.map((r) => r.type)).toEqual(['ublkdu']);
    expect(unblock[0]).toMatchObject({ client_id: ADMIN_CLIENT_ID, phone_number: maskPhoneNumber(who.phone), details: { request: { method: 'DELETE', path: '/api/v2/user-blocks' } } });
  });

  it('records a guess for a number with no code pending (fu)', async () => {
    const who = caller();
    const mark = await logMark(h);
    expect((await h.ro(setup, who, '123456')).status).toBe(401);
    const records = await mark.records();
    expect(records.map((r) => [r.type, r.phone_number, r.details])).toEqual([['fu', maskPhoneNumber(who.phone), { via: 'oauth/ro' }]]);
  });

  it('records a start refused by the SMS policy (sms_start_refused) with the refusal, and nothing sent', async () => {
    const britishOnly = await h.loginSetup({ allowed_countries: ['GB'] });
    const who = caller();
    const mark = await logMark(h);
    const refused = await h.start({ client_id: britishOnly.clientId, connection: britishOnly.connection, phone_number: who.phone, send: 'code' }, who.ip);
    expect(refused.status).toBe(400);
    const records = await mark.records();
    expect(records.map((r) => [r.type, r.description, r.connection, r.phone_number, r.details])).toEqual([
      [
        'sms_start_refused',
        'Start Refused by SMS Policy',
        britishOnly.connection,
        maskPhoneNumber(who.phone),
        { error: 'bad.phone_number', reason: 'SMS to this country is not enabled for this connection', refusal: 'country', channel: 'sms' },
      ],
    ]);
  });

  it('records a start over the rate limit (api_limit) and a refused sign-up (fs)', async () => {
    const who = caller();
    for (let i = 0; i < 3; i += 1) await sendCode(who);
    const mark = await logMark(h);
    const limited = await h.start({ client_id: setup.clientId, connection: setup.connection, phone_number: who.phone, send: 'code' }, who.ip);
    expect(limited.status).toBe(429);
    expect(await mark.types()).toEqual(['api_limit']);

    const closed = await h.loginSetup({ disable_signup: true });
    const stranger = caller();
    const signupMark = await logMark(h);
    const refused = await h.start({ client_id: closed.clientId, connection: closed.connection, phone_number: stranger.phone, send: 'code' }, stranger.ip);
    expect(refused.status).toBe(400);
    expect(await signupMark.types()).toEqual(['fs']);
  });

  it('records a refresh (sertft) and a reused refresh token (ferrt)', async () => {
    const who = caller();
    const login = keep((await h.ro(setup, who, await sendCode(who), { scope: 'openid offline_access', device: 'Pixel' })).body);
    const refresh = (token: unknown) => h.http().post('/oauth/token').send({ grant_type: 'refresh_token', client_id: setup.clientId, refresh_token: token });
    let mark = await logMark(h);
    const rotated = await refresh(login.refresh_token);
    expect(rotated.status).toBe(200);
    keep(rotated.body);
    const records = await mark.records();
    expect(records.map((r) => r.type)).toEqual(['sertft']);
    expect(records[0]!.user_id).toMatch(/^sms\|/);

    mark = await logMark(h);
    expect((await refresh(login.refresh_token)).status).toBe(400);
    expect(await mark.types()).toEqual(['ferrt']);
  });

  it('records client credentials exchanges, granted (seccft) and refused (feccft)', async () => {
    let mark = await logMark(h);
    const granted = await h.http().post('/oauth/token').send({ grant_type: 'client_credentials', client_id: ADMIN_CLIENT_ID, client_secret: ADMIN_CLIENT_SECRET, audience: `${h.identity.config.AUTH_URL}/api/v2/` });
    expect(granted.status).toBe(200);
    keep(granted.body);
    const records = await mark.records();
    expect(records.map((r) => r.type)).toEqual(['seccft']);
    expect(records[0]).toMatchObject({ client_id: ADMIN_CLIENT_ID, details: { audience: `${h.identity.config.AUTH_URL}/api/v2/` } });

    mark = await logMark(h);
    const refused = await h.http().post('/oauth/token').send({ grant_type: 'client_credentials', client_id: ADMIN_CLIENT_ID, client_secret: 'not-the-secret-of-this-client-at-all', audience: `${h.identity.config.AUTH_URL}/api/v2/` });
    expect(refused.status).toBe(401);
    expect(await mark.types()).toEqual(['feccft']);
  });

  it('records each management write (sapi) naming the caller and the object, and no read', async () => {
    let mark = await logMark(h);
    const created = keep((await h.management('post', '/clients', { name: 'Audited', app_type: 'regular_web' }).expect(201)).body);
    await h.management('patch', `/clients/${created.client_id}`, { name: 'Audited 2' }).expect(200);
    await h.management('get', `/clients/${created.client_id}`).expect(200);
    await h.management('get', '/logs').expect(200);
    await h.management('delete', `/clients/${created.client_id}`).expect(204);
    const records = await mark.records();
    expect(records.map((r) => [r.type, r.description, r.details])).toEqual([
      ['sapi', 'Create a client', { request: { method: 'POST', path: '/api/v2/clients' }, target: created.client_id }],
      ['sapi', 'Update a client', { request: { method: 'PATCH', path: `/api/v2/clients/${created.client_id}` }, target: created.client_id }],
      ['sapi', 'Delete a client', { request: { method: 'DELETE', path: `/api/v2/clients/${created.client_id}` }, target: created.client_id }],
    ]);
    expect(records.every((r) => r.client_id === ADMIN_CLIENT_ID)).toBe(true);

    // A refused write changes nothing and records nothing.
    mark = await logMark(h);
    await h.management('post', '/clients', { name: '' }).expect(400);
    expect(await mark.types()).toEqual([]);
  });

  it('names a block and an unblock of a user as such, on the user\'s and the number\'s timeline', async () => {
    const who = caller();
    const user = (await h.management('post', '/users', { connection: setup.connection, phone_number: who.phone }).expect(201)).body as { user_id: string };
    const mark = await logMark(h);
    await h.management('patch', `/users/${encodeURIComponent(user.user_id)}`, { blocked: true }).expect(200);
    await h.management('patch', `/users/${encodeURIComponent(user.user_id)}`, { blocked: false }).expect(200);
    await h.management('patch', `/users/${encodeURIComponent(user.user_id)}`, { user_metadata: { plan: 'pro' } }).expect(200);
    const records = await mark.records();
    expect(records.map((r) => [r.type, r.description, r.user_id, r.phone_number])).toEqual([
      ['sapi', 'Block a user', user.user_id, maskPhoneNumber(who.phone)],
      ['sapi', 'Unblock a user', user.user_id, maskPhoneNumber(who.phone)],
      ['sapi', 'Update a user', user.user_id, maskPhoneNumber(who.phone)],
    ]);
  });

  it('records a signing key rotation and a revocation, and not a refused revocation', async () => {
    let mark = await logMark(h);
    const rotated = await h.management('post', '/keys/signing/rotate').expect(201);
    expect((await mark.records()).map((r) => [r.type, r.description, r.details.target])).toEqual([['sapi', 'Rotate the signing key', rotated.body.kid]]);
    // Revoking the previous key revokes the tokens it signed, h.admin's among them.
    const token = await adminToken(h.identity.app);
    secrets.add(token);
    const put = (path: string) => h.http().put(`/api/v2${path}`).set('authorization', `Bearer ${token}`);
    const keys = (await h.management('get', '/keys/signing').expect(200)).body as Array<{ kid: string; previous: boolean; current: boolean }>;
    const previous = keys.find((k) => k.previous)!;
    const current = keys.find((k) => k.current)!;
    mark = await logMark(h);
    await put(`/keys/signing/${previous.kid}/revoke`).expect(200);
    expect((await mark.records()).map((r) => [r.type, r.description, r.details.target])).toEqual([['sapi', 'Revoke a signing key', previous.kid]]);
    mark = await logMark(h);
    await put(`/keys/signing/${current.kid}/revoke`).expect(409);
    expect(await mark.types()).toEqual([]);
  });

  it('keeps every code, secret, token and full phone number of this suite out of every record', async () => {
    // Every field but the record's own ids (log_id is 53 digits: any short code occurs in some).
    const { rows } = await h.identity.sql.query<{ record: unknown }>("SELECT to_jsonb(l) - 'log_id' - 'seq' - 'tx_id' AS record FROM tenant_logs l");
    expect(rows.length).toBeGreaterThan(20);
    for (const { record } of rows) {
      const text = JSON.stringify(record);
      for (const secret of secrets) expect(text).not.toContain(secret);
      for (const number of fullNumbers) expect(text).not.toContain(number);
      for (const number of fullNumbers) expect(text).not.toContain(number.slice(1));
    }
    // And every record reads as the API's schema.
    const token = await adminToken(h.identity.app, 'read:logs');
    const listed = await h.http().get('/api/v2/logs?per_page=100').set('authorization', `Bearer ${token}`).expect(200);
    for (const log of listed.body) TenantLogSchema.parse(log);
  });
});
