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
    await identity.store.users.recordLogin({ user_id: 'sms|bbb', connection_id: connection.id, phone_number: '+447700900123', at });
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
      identities: [{ provider: 'sms', connection: 'sms', user_id: 'aaa', isSocial: false }],
      created_at: '2030-01-01T00:00:00.000Z',
      updated_at: '2030-01-01T00:00:00.000Z',
      last_login: '2030-01-01T00:00:00.000Z',
      logins_count: 2,
    });
  });

  it('searches by phone number with q, exact or partial, an unencoded + included', async () => {
    const ids = async (q: string) => (await request(identity.app).get(`/api/v2/users?q=${q}`).set(auth)).body.map((u: { user_id: string }) => u.user_id);
    expect(await ids(encodeURIComponent('phone_number:"+447700900123"'))).toEqual(['sms|bbb']);
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
    expect(res.body.phone_number).toBe('+447700900123');
    expect((await request(identity.app).get('/api/v2/users/sms%7Cnope').set(auth)).status).toBe(404);
  });

  it('deletes a user: 204, then 404', async () => {
    await identity.store.users.recordLogin({ user_id: 'sms|ccc', connection_id: connection.id, phone_number: '+15550000003', at: clock.now() });
    expect((await request(identity.app).delete('/api/v2/users/sms%7Cccc').set(auth)).status).toBe(204);
    expect((await request(identity.app).get('/api/v2/users/sms%7Cccc').set(auth)).status).toBe(404);
    expect((await request(identity.app).delete('/api/v2/users/sms%7Cccc').set(auth)).status).toBe(404);
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
