import { generateKeyPairSync } from 'node:crypto';
import { ClientRecordSchema, UserBlocksResponseSchema } from '@smsauth/contracts';
import request from 'supertest';
import { adminToken, connectionBody, dropSchema, startTestIdentity, TEST_DATABASE_URL, TestClock, uniqueSchema, type TestIdentity } from './helpers';

// What Auth0's SDKs read from single records: user blocks by user id, `fields` projection on
// single-record GETs, and a private_key_jwt client's `client_authentication_methods`.

interface Driver {
  name: string;
  env: Record<string, string>;
  schema?: string;
}

const drivers: Driver[] = [{ name: 'PGlite', env: {} }];
if (TEST_DATABASE_URL) drivers.push({ name: 'PostgreSQL', env: { DATABASE_URL: TEST_DATABASE_URL }, schema: uniqueSchema('records') });
else console.warn('SKIPPED: the management records suite on PostgreSQL needs TEST_DATABASE_URL; running it on PGlite only');

const publicPem = () => generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();

describe.each(drivers)('single management records over HTTP on $name', (driver) => {
  const clock = new TestClock();
  let identity: TestIdentity;
  let auth: { authorization: string };
  let connection: { id: string; name: string };
  const api = (method: 'get' | 'post' | 'patch' | 'delete', path: string) => request(identity.app)[method](`/api/v2${path}`).set(auth);

  beforeAll(async () => {
    identity = await startTestIdentity(driver.env, { clock, schema: driver.schema });
    auth = { authorization: `Bearer ${await adminToken(identity.app)}` };
    connection = (await api('post', '/connections').send(connectionBody({ name: 'sms' }))).body;
    const at = new Date('2030-01-01T00:00:00Z');
    await identity.store.users.recordLogin({ user_id: 'sms|blocked', connection_id: connection.id, phone_number: '+14155550177', at });
    await identity.store.users.recordLogin({ user_id: 'sms|free', connection_id: connection.id, phone_number: '+14155550178', at });
  });
  afterAll(async () => {
    await identity.close();
    if (driver.schema) await dropSchema(TEST_DATABASE_URL!, driver.schema);
  });

  describe('user blocks by user id', () => {
    beforeAll(async () => {
      const until = new Date(clock.now().getTime() + 3600_000);
      await identity.sql.query(
        `INSERT INTO login_failures_by_ip (phone_number, ip, failures, blocked_until) VALUES ($1, '198.51.100.7', 10, $2), ($1, '198.51.100.8', 2, NULL)`,
        ['+14155550177', until],
      );
      await identity.sql.query('INSERT INTO login_failures_by_phone (phone_number, consecutive_failures, locked_at) VALUES ($1, 100, $2)', [
        '+14155550177',
        clock.now(),
      ]);
    });

    it("lists the blocks on the user's phone number, each naming the user's connection", async () => {
      const res = await api('get', `/user-blocks/${encodeURIComponent('sms|blocked')}`);
      expect(res.status).toBe(200);
      expect(UserBlocksResponseSchema.strict().parse(res.body)).toEqual({
        blocked_for: [
          { identifier: '+14155550177', connection: 'sms' },
          { identifier: '+14155550177', ip: '198.51.100.7', connection: 'sms' },
        ],
      });
      expect((await api('get', `/user-blocks/${encodeURIComponent('sms|free')}`)).body).toEqual({ blocked_for: [] });
    });

    it('answers 404 for a user that does not exist, on GET and DELETE', async () => {
      for (const method of ['get', 'delete'] as const) {
        const res = await api(method, '/user-blocks/sms%7Cnobody');
        expect(res.status).toBe(404);
        expect(res.body.error_description).toMatch(/User/);
      }
    });

    it("lifts every block and resets the counters of the user's number", async () => {
      expect((await api('delete', `/user-blocks/${encodeURIComponent('sms|blocked')}`)).status).toBe(204);
      expect((await api('get', `/user-blocks/${encodeURIComponent('sms|blocked')}`)).body).toEqual({ blocked_for: [] });
      const { rows } = await identity.sql.query('SELECT 1 FROM login_failures_by_ip WHERE phone_number = $1', ['+14155550177']);
      expect(rows).toEqual([]);
    });

    it('needs read:user_blocks to list and delete:user_blocks to lift', async () => {
      const readOnly = { authorization: `Bearer ${await adminToken(identity.app, 'read:user_blocks')}` };
      const path = `/api/v2/user-blocks/${encodeURIComponent('sms|free')}`;
      expect((await request(identity.app).get(path).set(readOnly)).status).toBe(200);
      expect((await request(identity.app).delete(path).set(readOnly)).status).toBe(403);
    });
  });

  describe('fields on single-record GETs', () => {
    it('keeps only the named fields of a connection, client, API and user, or drops them with include_fields=false', async () => {
      const client = (await api('post', '/clients').send({ name: 'Projected', app_type: 'spa' })).body;
      const resourceServer = (await api('post', '/resource-servers').send({ name: 'Projected API', identifier: 'https://projected.test' })).body;
      expect((await api('get', `/connections/${connection.id}?fields=id,name`)).body).toEqual({ id: connection.id, name: 'sms' });
      expect((await api('get', `/clients/${client.client_id}?fields=name,app_type,no_such_field`)).body).toEqual({ name: 'Projected', app_type: 'spa' });
      expect((await api('get', `/resource-servers/${resourceServer.id}?fields=identifier`)).body).toEqual({ identifier: 'https://projected.test' });
      expect((await api('get', '/users/sms%7Cfree?fields=user_id,phone_number')).body).toEqual({ user_id: 'sms|free', phone_number: '+14155550178' });
      const dropped = (await api('get', '/users/sms%7Cfree?fields=identities,user_metadata,app_metadata&include_fields=false')).body;
      expect(dropped).toHaveProperty('user_id', 'sms|free');
      expect(Object.keys(dropped)).not.toContain('identities');
      expect(Object.keys(dropped)).not.toContain('user_metadata');
    });

    it('answers whole records without fields, and with fields empty', async () => {
      const whole = (await api('get', `/connections/${connection.id}`)).body;
      expect(whole).toHaveProperty('options');
      expect((await api('get', `/connections/${connection.id}?fields=`)).body).toEqual(whole);
    });

    it.each([
      ['/connections/x', 'include_fields=maybe', 'include_fields'],
      ['/clients/x', 'include_fields=1', 'include_fields'],
      ['/resource-servers/x', 'fields=a&fields=b', 'fields'],
      ['/users/x', 'include_fields=yes', 'include_fields'],
    ])('GET %s?%s is a 400 naming %s, before looking the record up', async (path, query, parameter) => {
      const res = await api('get', `${path}?${query}`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: 'invalid_request', details: [{ path: parameter }] });
      expect(res.body.error_description).toContain(parameter);
    });
  });

  describe('client_authentication_methods on client records', () => {
    it('shows a private_key_jwt client as Auth0 does: token_endpoint_auth_method null and its credential ids', async () => {
      const created = await api('post', '/clients').send({
        name: 'Keyed records',
        app_type: 'non_interactive',
        client_authentication_methods: { private_key_jwt: { credentials: [{ credential_type: 'public_key', name: 'first', pem: publicPem() }] } },
      });
      expect(created.status).toBe(201);
      const clientId = created.body.client_id as string;
      const second = await api('post', `/clients/${clientId}/credentials`).send({ credential_type: 'public_key', name: 'second', pem: publicPem() });
      const ids = (await api('get', `/clients/${clientId}/credentials`)).body.map((c: { id: string }) => ({ id: c.id }));
      expect(ids).toHaveLength(2);
      expect(ids[1]).toEqual({ id: second.body.id });

      const got = await api('get', `/clients/${clientId}`);
      expect(ClientRecordSchema.strict().parse(got.body)).toMatchObject({
        token_endpoint_auth_method: null,
        client_authentication_methods: { private_key_jwt: { credentials: ids } },
      });
      const listed = (await api('get', '/clients')).body.find((c: { client_id: string }) => c.client_id === clientId);
      expect(listed.client_authentication_methods).toEqual({ private_key_jwt: { credentials: ids } });
      expect((await api('get', `/clients/${clientId}?fields=client_authentication_methods`)).body).toEqual({
        client_authentication_methods: { private_key_jwt: { credentials: ids } },
      });

      // Sending the record back (null method, no client_authentication_methods) keeps private_key_jwt.
      const renamed = await api('patch', `/clients/${clientId}`).send({ name: 'Keyed, renamed', token_endpoint_auth_method: null });
      expect(renamed.body).toMatchObject({ token_endpoint_auth_method: null, client_authentication_methods: { private_key_jwt: { credentials: ids } } });
      await api('delete', `/clients/${clientId}/credentials/${second.body.id}`);
      expect((await api('get', `/clients/${clientId}`)).body.client_authentication_methods).toEqual({ private_key_jwt: { credentials: [ids[0]] } });
    });

    it('leaves client_authentication_methods out for secret and public clients', async () => {
      const secret = (await api('post', '/clients').send({ name: 'Secret', app_type: 'regular_web' })).body;
      const publicClient = (await api('post', '/clients').send({ name: 'Public', app_type: 'native' })).body;
      expect(secret.token_endpoint_auth_method).toBe('client_secret_post');
      expect(publicClient.token_endpoint_auth_method).toBe('none');
      for (const record of [secret, publicClient, (await api('get', `/clients/${secret.client_id}`)).body]) {
        expect(record).not.toHaveProperty('client_authentication_methods');
      }
    });
  });
});
