import request from 'supertest';
import { adminToken, AUTH_URL } from '../helpers';
import { describeOnPersistentDatabases, managementGet, tenantFile, tenantState, withIdentity } from './tenant-harness';
import { tenantDocument, VARIABLES } from './tenant-document';

const FIRST_OPERATOR = '+14155550100';

describeOnPersistentDatabases('what identity sets up at every start', (database) => {
  it('creates the console client, the tenant file and the first operator once: a second start finds the same state, nothing duplicated', async () => {
    const db = database();
    const env = { TENANT_FILE: tenantFile(tenantDocument()), FIRST_OPERATOR_PHONE_NUMBER: FIRST_OPERATOR, FIRST_OPERATOR_ROLE: 'Admin, Airport reader' };
    const start = () =>
      withIdentity(db, env, async (identity) => ({ state: await tenantState(identity.app), logs: identity.logs() }), { tenantFileVariables: VARIABLES });

    const first = await start();
    const second = await start();

    expect(second.state).toEqual(first.state);
    const clients = first.state.clients as Array<{ name: string }>;
    expect(clients.map((c) => c.name).sort()).toEqual(['Bootstrap admin (management API)', 'Console', 'Demo', 'Demo M2M', 'Demo Web App']);
    expect((first.state.connections as unknown[]).length).toBe(1);
    expect((first.state.resource_servers as Array<{ identifier: string }>).map((r) => r.identifier).sort()).toEqual([`${AUTH_URL}/api/v2/`, 'https://airport-api.example.com']);
    expect((first.state.roles as Array<{ name: string }>).map((r) => r.name)).toEqual(['Admin', 'Airport reader', 'Support', 'Viewer']);
    expect(first.state.users).toEqual([expect.objectContaining({ phone_number: FIRST_OPERATOR })]);
    expect(first.logs).toContain('console client created');
    expect(first.logs).toMatch(/"created":7,"updated":0,"unchanged":0.*"msg":"tenant file applied"/);
    expect(second.logs).not.toContain('console client created');
    expect(second.logs).toMatch(/"created":0,"updated":0,"unchanged":7.*"msg":"tenant file applied"/);
    expect(second.logs).toMatch(/"created":false.*"msg":"first operator ensured"/);
  });

  it('gives the console its client on a fresh start with nothing but the environment, brings it back when deleted, and adopts one seeded before', async () => {
    const db = database();
    const consoleClientId = await withIdentity(db, {}, async ({ app }) => {
      const config = await request(app).get('/console/config.json').expect(200);
      expect(config.body).toMatchObject({ domain: AUTH_URL, audience: `${AUTH_URL}/api/v2/`, redirect_uri: `${AUTH_URL}/console/callback` });
      const client = await managementGet(app, `/clients/${config.body.client_id}`);
      expect(client).toMatchObject({
        name: 'Console',
        app_type: 'spa',
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        callbacks: [`${AUTH_URL}/console/callback`],
        allowed_origins: [AUTH_URL],
        web_origins: [AUTH_URL],
        allowed_logout_urls: [`${AUTH_URL}/console/`],
      });
      return config.body.client_id as string;
    });
    // An operator's own additions stay; what the console needs comes back; a deleted client is created again.
    await withIdentity(db, {}, async ({ app, store }) => {
      await store.clients.update(consoleClientId, { callbacks: ['https://console.example.com/console/callback'], grant_types: ['authorization_code'] });
      expect((await request(app).get('/console/config.json').expect(503)).body.error).toBe('console_client_missing');
    });
    await withIdentity(db, {}, async ({ app, store }) => {
      const client = (await store.clients.findById(consoleClientId))!;
      expect(client.callbacks).toEqual(['https://console.example.com/console/callback', `${AUTH_URL}/console/callback`]);
      expect(client.grant_types).toEqual(['authorization_code', 'refresh_token']);
      expect((await request(app).get('/console/config.json').expect(200)).body.client_id).toBe(consoleClientId);
      await store.clients.delete(consoleClientId);
    });
    const seededElsewhere = await withIdentity(db, {}, async ({ app, store }) => {
      const config = await request(app).get('/console/config.json').expect(200);
      expect(config.body.client_id).not.toBe(consoleClientId);
      expect((await managementGet(app, '/clients?per_page=100')) as unknown[]).toHaveLength(2);
      // What `pnpm start` seeded before identity kept the client itself, for another AUTH_URL.
      await store.clients.delete(config.body.client_id);
      const auth = { authorization: `Bearer ${await adminToken(app)}` };
      const old = await request(app).post('/api/v2/clients').set(auth).send({ name: 'Console', app_type: 'spa', callbacks: ['http://localhost:4000/console/callback'] });
      return old.body.client_id as string;
    });
    await withIdentity(db, {}, async ({ app }) => {
      expect((await request(app).get('/console/config.json').expect(200)).body.client_id).toBe(seededElsewhere);
      expect((await managementGet(app, '/clients?per_page=100')) as unknown[]).toHaveLength(2);
    });
  });
});
