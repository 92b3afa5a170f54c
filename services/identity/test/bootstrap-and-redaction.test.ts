import request from 'supertest';
import { bootstrapManagement } from '../src/domain/bootstrap';
import { ADMIN_CLIENT_ID, ADMIN_CLIENT_SECRET, adminToken, captureLogger, clientCredentialsToken, connectionBody, startTestIdentity, type TestIdentity } from './helpers';

describe('bootstrap admin client', () => {
  it('generates an admin client on first start, prints its credentials once, and never logs them', async () => {
    const identity = await startTestIdentity({ ADMIN_CLIENT_ID: undefined, ADMIN_CLIENT_SECRET: undefined });
    try {
      expect(identity.printed).toHaveLength(1);
      const printed = identity.printed[0]!;
      expect(printed).toContain('Store these credentials now');
      const clientId = /ADMIN_CLIENT_ID=(\S+)/.exec(printed)![1]!;
      const clientSecret = /ADMIN_CLIENT_SECRET=(\S+)/.exec(printed)![1]!;
      expect(clientSecret.length).toBeGreaterThanOrEqual(43);
      const token = await clientCredentialsToken(identity.app, { clientId, clientSecret });
      expect((await request(identity.app).get('/api/v2/connections').set('authorization', `Bearer ${token}`)).status).toBe(200);
      expect(identity.logs()).not.toContain(clientSecret);
      expect(identity.logs()).toContain('generated the bootstrap admin client');
    } finally {
      await identity.close();
    }
  });

  it('updates the configured admin when ADMIN_CLIENT_SECRET changes, demoting a generated one', async () => {
    const identity = await startTestIdentity({ ADMIN_CLIENT_ID: undefined, ADMIN_CLIENT_SECRET: undefined });
    try {
      const generatedId = /ADMIN_CLIENT_ID=(\S+)/.exec(identity.printed[0]!)![1]!;
      const print = jest.fn();
      const options = { managementAudience: 'http://identity.test/api/v2/', logger: captureLogger().logger };
      await bootstrapManagement(identity.store, { ...options, adminClientId: 'ops-admin', adminClientSecret: 's'.repeat(40), print });
      await bootstrapManagement(identity.store, { ...options, adminClientId: 'ops-admin', adminClientSecret: 't'.repeat(40), print });
      expect(print).not.toHaveBeenCalled();
      await expect(clientCredentialsToken(identity.app, { clientId: 'ops-admin', clientSecret: 't'.repeat(40) })).resolves.toEqual(expect.any(String));
      await expect(clientCredentialsToken(identity.app, { clientId: 'ops-admin', clientSecret: 's'.repeat(40) })).rejects.toThrow('401');
      expect((await identity.store.clients.findById(generatedId))!.system_role).toBeNull();
      expect(await identity.store.clientGrants.find(generatedId, 'http://identity.test/api/v2/')).toBeUndefined();
    } finally {
      await identity.close();
    }
  });

  it('makes the configured ADMIN_CLIENT_SECRET work again after the admin was switched to private_key_jwt', async () => {
    const identity = await startTestIdentity();
    try {
      const auth = { authorization: `Bearer ${await adminToken(identity.app)}` };
      const patched = await request(identity.app).patch(`/api/v2/clients/${ADMIN_CLIENT_ID}`).set(auth).send({ token_endpoint_auth_method: 'private_key_jwt' });
      expect(patched.body).toMatchObject({ token_endpoint_auth_method: null, client_authentication_methods: { private_key_jwt: { credentials: [] } } });
      await expect(adminToken(identity.app)).rejects.toThrow('401');
      const options = { managementAudience: 'http://identity.test/api/v2/', logger: captureLogger().logger, print: jest.fn() };
      await bootstrapManagement(identity.store, { ...options, adminClientId: ADMIN_CLIENT_ID, adminClientSecret: ADMIN_CLIENT_SECRET });
      await expect(adminToken(identity.app)).resolves.toEqual(expect.any(String));
    } finally {
      await identity.close();
    }
  });
});

describe('secrets stay out of responses and logs', () => {
  let identity: TestIdentity;
  beforeAll(async () => {
    identity = await startTestIdentity({ KEY_ENCRYPTION_SECRET: 'e'.repeat(40) });
  });
  afterAll(() => identity.close());

  it('never writes client secrets, gateway secrets, tokens or private keys to the log', async () => {
    const token = await adminToken(identity.app);
    const auth = { authorization: `Bearer ${token}` };
    const client = (await request(identity.app).post('/api/v2/clients').set(auth).send({ name: 'Backend', app_type: 'non_interactive' })).body;
    const rotated = (await request(identity.app).post(`/api/v2/clients/${client.client_id}/rotate-secret`).set(auth)).body;
    const gateway_authentication = { method: 'bearer', subject: 's', audience: 'a', secret: 'gateway-secret-xyz', secret_base64_encoded: false };
    await request(identity.app).post('/api/v2/connections').set(auth).send(connectionBody({ gateway_authentication })).expect(201);
    // Failed requests are logged at warn level with more detail: include some.
    await request(identity.app).post('/oauth/token').send({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: 'wrong-secret-abc', audience: 'x' });
    await request(identity.app).post('/oauth/token').type('form').send({ grant_type: 'client_credentials', client_id: 'x', client_secret: 'form-secret-def', audience: 'x' });
    await request(identity.app).get('/api/v2/clients?access_token=query-token-ghi');

    const logs = identity.logs();
    expect(logs).toContain('/api/v2/clients');
    const keyRows = await identity.store.signingKeys.list();
    for (const secret of [ADMIN_CLIENT_SECRET, token, client.client_secret, rotated.client_secret, 'gateway-secret-xyz', 'wrong-secret-abc', 'form-secret-def', 'query-token-ghi', 'e'.repeat(40)]) {
      expect(logs).not.toContain(secret);
    }
    for (const key of keyRows) expect(logs).not.toContain(key.private_key.split('\n')[1]!);
    expect(logs).not.toContain('PRIVATE KEY');
  });

  it('encrypts private keys and gateway secrets at rest with KEY_ENCRYPTION_SECRET', async () => {
    const { rows: keys } = await identity.sql.query<{ private_key: string }>('SELECT private_key FROM signing_keys');
    for (const key of keys) expect(key.private_key).toMatch(/^aes256gcm:v2:[0-9a-f]{8}:/);
    const { rows: connections } = await identity.sql.query<{ gateway_secret: string; options: unknown }>(
      'SELECT gateway_secret, options FROM connections WHERE gateway_secret IS NOT NULL',
    );
    expect(connections.length).toBeGreaterThan(0);
    for (const row of connections) {
      expect(row.gateway_secret).toMatch(/^aes256gcm:v2:[0-9a-f]{8}:/);
      expect(JSON.stringify(row.options)).not.toContain('gateway-secret-xyz');
    }
  });
});
