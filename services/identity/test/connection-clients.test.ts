import request from 'supertest';
import { adminToken, connectionBody, startTestIdentity, type TestIdentity } from './helpers';

// Auth0's enabled-clients sub-resource of a connection, which auth0-deploy-cli reads on export
// and writes on import.
describe('/api/v2/connections/{id}/clients', () => {
  let identity: TestIdentity;
  let auth: { authorization: string };
  let clientIds: string[];
  let connectionId: string;

  beforeAll(async () => {
    identity = await startTestIdentity();
    auth = { authorization: `Bearer ${await adminToken(identity.app)}` };
    clientIds = [];
    for (const name of ['One', 'Two', 'Three']) {
      clientIds.push((await request(identity.app).post('/api/v2/clients').set(auth).send({ name, app_type: 'native' })).body.client_id);
    }
    const created = await request(identity.app).post('/api/v2/connections').set(auth).send(connectionBody({ name: 'sms-clients' }, [clientIds[0]!]));
    connectionId = created.body.id;
  });
  afterAll(() => identity.close());

  const path = () => `/api/v2/connections/${connectionId}/clients`;
  const list = (query = '') => request(identity.app).get(`${path()}${query}`).set(auth);
  const change = (body: unknown) => request(identity.app).patch(path()).set(auth).send(body as object);
  const enabledClients = async () => (await request(identity.app).get(`/api/v2/connections/${connectionId}`).set(auth)).body.enabled_clients as string[];

  it("lists the enabled clients in Auth0's shape, {clients: [{client_id}]}, without next on the last page", async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ clients: [{ client_id: clientIds[0] }] });
  });

  it('enables and disables the clients named, leaving the others as they were', async () => {
    expect((await change([{ client_id: clientIds[1], status: true }, { client_id: clientIds[2], status: true }])).status).toBe(204);
    expect([...(await enabledClients())].sort()).toEqual([...clientIds].sort());
    expect((await change([{ client_id: clientIds[1], status: false }])).status).toBe(204);
    expect([...(await enabledClients())].sort()).toEqual([clientIds[0], clientIds[2]].sort());
    // Disabling a client that is not enabled changes nothing.
    expect((await change([{ client_id: clientIds[1], status: false }])).status).toBe(204);
    expect([...(await enabledClients())].sort()).toEqual([clientIds[0], clientIds[2]].sort());
  });

  it('pages with take and the next checkpoint, in client_id order', async () => {
    expect((await change(clientIds.map((id) => ({ client_id: id, status: true })))).status).toBe(204);
    const sorted = [...clientIds].sort();
    const first = await list('?take=2');
    expect(first.body.clients).toEqual(sorted.slice(0, 2).map((id) => ({ client_id: id })));
    expect(first.body.next).toEqual(expect.any(String));
    const second = await list(`?take=2&from=${encodeURIComponent(first.body.next)}`);
    expect(second.body).toEqual({ clients: [{ client_id: sorted[2] }] });
  });

  it('refuses an unknown client, a checkpoint it did not issue, an empty or oversized change and extra fields', async () => {
    const unknown = await change([{ client_id: clientIds[0], status: true }, { client_id: 'nope', status: true }]);
    expect(unknown.status).toBe(400);
    expect(unknown.body.details).toEqual([{ path: '1.client_id', message: 'no client with id nope' }]);
    expect((await list('?from=***')).status).toBe(400);
    expect((await change([])).status).toBe(400);
    expect((await change(Array.from({ length: 51 }, () => ({ client_id: clientIds[0], status: true })))).status).toBe(400);
    expect((await change([{ client_id: clientIds[0], status: true, extra: 1 }])).status).toBe(400);
  });

  it('answers 404 for an unknown connection', async () => {
    expect((await request(identity.app).get('/api/v2/connections/con_unknown/clients').set(auth)).status).toBe(404);
    expect((await request(identity.app).patch('/api/v2/connections/con_unknown/clients').set(auth).send([{ client_id: clientIds[0], status: true }])).status).toBe(404);
  });
});
