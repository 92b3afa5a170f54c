import request from 'supertest';
import { adminToken, connectionBody, startTestIdentity, TestClock, type TestIdentity } from './helpers';

describe('/api/v2/users and /api/v2/user-blocks', () => {
  const clock = new TestClock();
  let identity: TestIdentity;
  let auth: { authorization: string };
  let connection: { id: string; name: string };

  beforeAll(async () => {
    identity = await startTestIdentity({}, { clock });
    auth = { authorization: `Bearer ${await adminToken(identity.app)}` };
    connection = (await request(identity.app).post('/api/v2/connections').set(auth).send(connectionBody({ name: 'sms' }))).body;
    const at = new Date('2030-01-01T00:00:00Z');
    await identity.store.users.recordLogin({ user_id: 'sms|aaa', connection_id: connection.id, phone_number: '+14155550101', at });
    await identity.store.users.recordLogin({ user_id: 'sms|aaa', connection_id: connection.id, phone_number: '+14155550101', at });
    await identity.store.users.recordLogin({ user_id: 'sms|bbb', connection_id: connection.id, phone_number: '+447400900123', at });
  });
  afterAll(() => identity.close());

  it('lists users in the reference record shape', async () => {
    const res = await request(identity.app).get('/api/v2/users').set(auth);
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(2);
    expect(res.body[0]).toEqual({
      user_id: 'sms|aaa',
      phone_number: '+14155550101',
      phone_verified: true,
      name: '+14155550101',
      nickname: '+14155550101',
      identities: [{ provider: 'sms', connection: 'sms', user_id: 'aaa', isSocial: false }],
      created_at: '2030-01-01T00:00:00.000Z',
      updated_at: '2030-01-01T00:00:00.000Z',
      last_login: '2030-01-01T00:00:00.000Z',
      logins_count: 2,
      blocked: false,
      user_metadata: {},
      app_metadata: {},
    });
  });

  it('searches by phone number with q, exact or partial, an unencoded + included', async () => {
    const ids = async (q: string) => (await request(identity.app).get(`/api/v2/users?q=${q}`).set(auth)).body.map((u: { user_id: string }) => u.user_id);
    expect(await ids(encodeURIComponent('phone_number:"+447400900123"'))).toEqual(['sms|bbb']);
    expect(await ids('%2B1415')).toEqual(['sms|aaa']);
    expect(await ids('+1415')).toEqual(['sms|aaa']);
    expect(await ids('0900')).toEqual(['sms|bbb']);
    expect(await ids('999999')).toEqual([]);
  });

  it('pages through users', async () => {
    const page = await request(identity.app).get('/api/v2/users?per_page=1&page=1').set(auth);
    expect(page.body.map((u: { user_id: string }) => u.user_id)).toEqual(['sms|bbb']);
    expect((await request(identity.app).get('/api/v2/users?per_page=1000').set(auth)).status).toBe(400);
  });

  it('gets a user by id (URL-encoded |)', async () => {
    const res = await request(identity.app).get(`/api/v2/users/${encodeURIComponent('sms|bbb')}`).set(auth);
    expect(res.status).toBe(200);
    expect(res.body.phone_number).toBe('+447400900123');
    expect((await request(identity.app).get('/api/v2/users/sms%7Cnope').set(auth)).status).toBe(404);
  });

  it('deletes a user: 204, then 404', async () => {
    await identity.store.users.recordLogin({ user_id: 'sms|ccc', connection_id: connection.id, phone_number: '+14155551003', at: clock.now() });
    expect((await request(identity.app).delete('/api/v2/users/sms%7Cccc').set(auth)).status).toBe(204);
    expect((await request(identity.app).get('/api/v2/users/sms%7Cccc').set(auth)).status).toBe(404);
    expect((await request(identity.app).delete('/api/v2/users/sms%7Cccc').set(auth)).status).toBe(404);
  });

  describe('POST /api/v2/users', () => {
    const create = (body: Record<string, unknown>) => request(identity.app).post('/api/v2/users').set(auth).send(body);

    it('creates an sms user: 201 with the record, unverified and unblocked unless told otherwise', async () => {
      const res = await create({ connection: 'sms', phone_number: '+14155551101', user_metadata: { colour: 'blue' }, app_metadata: { plan: 'gold' } });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        user_id: expect.stringMatching(/^sms\|[A-Za-z0-9]+$/),
        phone_number: '+14155551101',
        phone_verified: false,
        name: '+14155551101',
        nickname: '+14155551101',
        identities: [{ provider: 'sms', connection: 'sms', user_id: res.body.user_id.slice(4), isSocial: false }],
        created_at: clock.now().toISOString(),
        updated_at: clock.now().toISOString(),
        last_login: null,
        logins_count: 0,
        blocked: false,
        user_metadata: { colour: 'blue' },
        app_metadata: { plan: 'gold' },
      });
      expect((await request(identity.app).get(`/api/v2/users/${encodeURIComponent(res.body.user_id)}`).set(auth)).body).toEqual(res.body);
      const blocked = await create({ connection: 'sms', phone_number: '+14155551102', phone_verified: true, blocked: true });
      expect(blocked.body).toMatchObject({ phone_verified: true, blocked: true });
    });

    it('answers 409 when the connection already has a user with that number', async () => {
      await create({ connection: 'sms', phone_number: '+14155551103' }).expect(201);
      const res = await create({ connection: 'sms', phone_number: '+14155551103' });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ error: 'conflict', error_description: 'The user already exists.' });
      // A user who signed up by logging in counts too.
      expect((await create({ connection: 'sms', phone_number: '+447400900123' })).status).toBe(409);
    });

    it.each([
      ['an unknown connection', { connection: 'nope', phone_number: '+14155551104' }, 'connection'],
      ['a number that is not E.164', { connection: 'sms', phone_number: '555-0100' }, 'phone_number'],
      ['a number too short for its country', { connection: 'sms', phone_number: '+1 555 0100' }, 'phone_number'],
      ['no connection', { phone_number: '+14155551104' }, 'connection'],
      ['a field SMS users do not have', { connection: 'sms', phone_number: '+14155551104', email: 'a@example.com' }, 'email'],
      ['a blocked that is not a boolean', { connection: 'sms', phone_number: '+14155551104', blocked: 'yes' }, 'blocked'],
      ['metadata that is not an object', { connection: 'sms', phone_number: '+14155551104', user_metadata: ['a'] }, 'user_metadata'],
      ['a metadata name with a dot', { connection: 'sms', phone_number: '+14155551104', app_metadata: { 'a.b': 1 } }, 'app_metadata.a.b'],
      ['metadata over 16 KB', { connection: 'sms', phone_number: '+14155551104', user_metadata: { big: 'x'.repeat(20_000) } }, 'user_metadata'],
    ])('answers 400 naming the field for %s', async (_case, body, path) => {
      const res = await create(body);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_request');
      expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
    });

    it('needs create:users', async () => {
      const readOnly = { authorization: `Bearer ${await adminToken(identity.app, 'read:users')}` };
      const res = await request(identity.app).post('/api/v2/users').set(readOnly).send({ connection: 'sms', phone_number: '+14155551105' });
      expect(res.status).toBe(403);
    });
  });

  describe('PATCH /api/v2/users/{id}', () => {
    const create = async (phone: string, body: Record<string, unknown> = {}) =>
      (await request(identity.app).post('/api/v2/users').set(auth).send({ connection: 'sms', phone_number: phone, ...body }).expect(201)).body as { user_id: string };
    const patch = (userId: string, body: Record<string, unknown>) =>
      request(identity.app).patch(`/api/v2/users/${encodeURIComponent(userId)}`).set(auth).send(body);

    it('changes the number to a free one, which is then unverified unless phone_verified says otherwise', async () => {
      const { user_id } = await create('+14155551201', { phone_verified: true });
      clock.advance(60);
      const moved = await patch(user_id, { phone_number: '+14155551202' });
      expect(moved.status).toBe(200);
      expect(moved.body).toMatchObject({ user_id, phone_number: '+14155551202', phone_verified: false, updated_at: clock.now().toISOString() });
      expect((await patch(user_id, { phone_number: '+14155551203', phone_verified: true })).body).toMatchObject({ phone_verified: true });
      // The same number again changes nothing about verification.
      expect((await patch(user_id, { phone_number: '+14155551203' })).body).toMatchObject({ phone_verified: true });
    });

    it('answers 409 when the new number is another user\'s, and changes nothing', async () => {
      const { user_id } = await create('+14155551204');
      await create('+14155551205');
      const res = await patch(user_id, { phone_number: '+14155551205', blocked: true });
      expect(res.status).toBe(409);
      expect(res.body.error).toBe('conflict');
      const user = (await request(identity.app).get(`/api/v2/users/${encodeURIComponent(user_id)}`).set(auth)).body;
      expect(user).toMatchObject({ phone_number: '+14155551204', blocked: false });
    });

    it('merges metadata as the reference product does: top-level keys merged, null removes, nested objects replaced, {} empties', async () => {
      const { user_id } = await create('+14155551206', {
        user_metadata: { hobby: 'surfing', addresses: { home: '1 Main St' }, colour: 'blue' },
        app_metadata: { plan: 'full' },
      });
      const merged = await patch(user_id, { user_metadata: { addresses: { work: '2 Side St' }, colour: null, lang: 'fr' } });
      expect(merged.status).toBe(200);
      expect(merged.body.user_metadata).toEqual({ hobby: 'surfing', addresses: { work: '2 Side St' }, lang: 'fr' });
      expect(merged.body.app_metadata).toEqual({ plan: 'full' });
      const app = await patch(user_id, { app_metadata: { roles: ['admin'] } });
      expect(app.body.app_metadata).toEqual({ plan: 'full', roles: ['admin'] });
      expect(app.body.user_metadata).toEqual({ hobby: 'surfing', addresses: { work: '2 Side St' }, lang: 'fr' });
      expect((await patch(user_id, { user_metadata: {} })).body.user_metadata).toEqual({});
      expect((await patch(user_id, { app_metadata: { plan: null, roles: null } })).body.app_metadata).toEqual({});
    });

    it('keeps both changes of two parallel metadata PATCHes', async () => {
      const { user_id } = await create('+14155551207');
      const results = await Promise.all([patch(user_id, { user_metadata: { a: 1 } }), patch(user_id, { user_metadata: { b: 2 } })]);
      expect(results.map((r) => r.status)).toEqual([200, 200]);
      const user = (await request(identity.app).get(`/api/v2/users/${encodeURIComponent(user_id)}`).set(auth)).body;
      expect(user.user_metadata).toEqual({ a: 1, b: 2 });
    });

    it('refuses a merge that outgrows the metadata limit with 400', async () => {
      const { user_id } = await create('+14155551208', { user_metadata: { a: 'x'.repeat(10_000) } });
      const res = await patch(user_id, { user_metadata: { b: 'y'.repeat(10_000) } });
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual([{ path: 'user_metadata', message: expect.stringContaining('16384 bytes') }]);
    });

    it('accepts the user\'s own connection name and refuses another with 400', async () => {
      const { user_id } = await create('+14155551209');
      expect((await patch(user_id, { connection: 'sms', blocked: true })).body.blocked).toBe(true);
      const res = await patch(user_id, { connection: 'other' });
      expect(res.status).toBe(400);
      expect(res.body.details[0].path).toBe('connection');
    });

    it('answers 404 for an unknown user and 400 for an unknown field', async () => {
      expect((await patch('sms|nope', { blocked: true })).status).toBe(404);
      const { user_id } = await create('+14155551210');
      const res = await patch(user_id, { nickname: 'x' });
      expect(res.status).toBe(400);
      expect(res.body.details[0].path).toBe('nickname');
    });
  });

  describe('user blocks', () => {
    beforeAll(async () => {
      const until = new Date(clock.now().getTime() + 3600_000);
      await identity.sql.query(
        `INSERT INTO login_failures_by_ip (phone_number, ip, failures, blocked_until) VALUES ($1, '198.51.100.7', 10, $2), ($1, '198.51.100.8', 2, NULL)`,
        ['+14155550101', until],
      );
      await identity.sql.query(`INSERT INTO login_failures_by_phone (phone_number, consecutive_failures, locked_at) VALUES ($1, 100, $2)`, [
        '+14155550101',
        clock.now(),
      ]);
    });

    it('lists the blocks of a number', async () => {
      const res = await request(identity.app).get('/api/v2/user-blocks?identifier=%2B14155550101').set(auth);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        blocked_for: [{ identifier: '+14155550101' }, { identifier: '+14155550101', ip: '198.51.100.7' }],
      });
    });

    it('answers 400 without an identifier', async () => {
      const res = await request(identity.app).delete('/api/v2/user-blocks').set(auth);
      expect(res.status).toBe(400);
      expect(res.body.details[0].path).toBe('identifier');
    });

    it('lifts every block and resets the counters of the number', async () => {
      expect((await request(identity.app).delete('/api/v2/user-blocks?identifier=+14155550101').set(auth)).status).toBe(204);
      expect((await request(identity.app).get('/api/v2/user-blocks?identifier=%2B14155550101').set(auth)).body).toEqual({ blocked_for: [] });
      const { rows } = await identity.sql.query('SELECT * FROM login_failures_by_ip WHERE phone_number = $1', ['+14155550101']);
      expect(rows).toEqual([]);
    });
  });
});
