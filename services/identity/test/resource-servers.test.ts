import request from 'supertest';
import { adminToken, MANAGEMENT_AUDIENCE, startTestIdentity, type TestIdentity } from './helpers';

describe('/api/v2/resource-servers and /api/v2/client-grants', () => {
  let identity: TestIdentity;
  let auth: { authorization: string };
  let clientId: string;
  beforeAll(async () => {
    identity = await startTestIdentity();
    auth = { authorization: `Bearer ${await adminToken(identity.app)}` };
    clientId = (await request(identity.app).post('/api/v2/clients').set(auth).send({ name: 'M2M', app_type: 'non_interactive' })).body.client_id;
  });
  afterAll(() => identity.close());

  const createRs = (body: object) => request(identity.app).post('/api/v2/resource-servers').set(auth).send(body);
  const createGrant = (body: object) => request(identity.app).post('/api/v2/client-grants').set(auth).send(body);

  it('creates a resource server with RS256 and a 86400 s lifetime by default', async () => {
    const res = await createRs({ name: 'Airport API', identifier: 'https://airport.test', scopes: [{ value: 'read:airports', description: 'Read' }] });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^rs_/),
      name: 'Airport API',
      identifier: 'https://airport.test',
      signing_alg: 'RS256',
      token_lifetime: 86400,
      scopes: [{ value: 'read:airports', description: 'Read' }],
      is_system: false,
      enforce_policies: false,
      token_dialect: 'access_token',
    });
    expect((await request(identity.app).get(`/api/v2/resource-servers/${res.body.id}`).set(auth)).body).toEqual(res.body);
  });

  it('treats an identifier with a trailing slash as a different one', async () => {
    expect((await createRs({ name: 'Slash', identifier: 'https://airport.test/' })).status).toBe(201);
  });

  it('refuses a duplicate identifier with 409', async () => {
    const res = await createRs({ name: 'Dup', identifier: 'https://airport.test' });
    expect(res.status).toBe(409);
    expect(res.body.error).toBe('conflict');
  });

  it('finds a resource server by its URL-encoded identifier', async () => {
    const res = await request(identity.app).get(`/api/v2/resource-servers/${encodeURIComponent('https://airport.test')}`).set(auth);
    expect(res.status).toBe(200);
    expect(res.body.name).toBe('Airport API');
  });

  it.each([
    ['identifier is missing', { name: 'x' }, 'identifier'],
    ['signing_alg is not RS256', { name: 'x', identifier: 'urn:x1', signing_alg: 'HS256' }, 'signing_alg'],
    ['token_lifetime is not a positive whole number of seconds', { name: 'x', identifier: 'urn:x2', token_lifetime: 1.5 }, 'token_lifetime'],
    ['a scope value has spaces', { name: 'x', identifier: 'urn:x3', scopes: [{ value: 'read airports' }] }, 'scopes.0.value'],
    ['a scope is listed twice', { name: 'x', identifier: 'urn:x4', scopes: [{ value: 'a' }, { value: 'a' }] }, 'scopes.1.value'],
  ])('answers 400 when %s', async (_case, body, path) => {
    const res = await createRs(body);
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it('updates name, lifetime and scopes but never the identifier', async () => {
    const { id } = (await createRs({ name: 'Old', identifier: 'urn:updatable' })).body;
    const res = await request(identity.app)
      .patch(`/api/v2/resource-servers/${id}`)
      .set(auth)
      .send({ name: 'New', token_lifetime: 600, scopes: [{ value: 'x' }], identifier: 'urn:updatable' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'New', token_lifetime: 600, scopes: [{ value: 'x', description: '' }], identifier: 'urn:updatable' });
    const change = await request(identity.app).patch(`/api/v2/resource-servers/${id}`).set(auth).send({ identifier: 'urn:other' });
    expect(change.status).toBe(400);
    expect(change.body.details[0].path).toBe('identifier');
  });

  it('lists the management API as a system resource server that cannot be changed or deleted', async () => {
    const list = await request(identity.app).get('/api/v2/resource-servers').set(auth);
    const system = list.body.find((rs: { is_system: boolean }) => rs.is_system);
    expect(system).toMatchObject({ identifier: MANAGEMENT_AUDIENCE, token_lifetime: 86400 });
    expect(system.scopes.map((s: { value: string }) => s.value)).toContain('read:signing_keys');
    expect((await request(identity.app).patch(`/api/v2/resource-servers/${system.id}`).set(auth).send({ name: 'x' })).status).toBe(403);
    expect((await request(identity.app).delete(`/api/v2/resource-servers/${system.id}`).set(auth)).status).toBe(403);
  });

  it("names the management API as Auth0 does, and accepts its read-only fields sent back unchanged", async () => {
    const system = (await request(identity.app).get('/api/v2/resource-servers').set(auth)).body.find((rs: { is_system: boolean }) => rs.is_system);
    // auth0-deploy-cli leaves out the API of this name.
    expect(system.name).toBe('Auth0 Management API');
    const path = `/api/v2/resource-servers/${system.id}`;
    const { id: _id, is_system: _system, ...sentBack } = system;
    const unchanged = await request(identity.app).patch(path).set(auth).send({ ...sentBack, token_lifetime: 7200 });
    expect(unchanged.status).toBe(200);
    expect(unchanged.body).toEqual({ ...system, token_lifetime: 7200 });
    const renamed = await request(identity.app).patch(path).set(auth).send({ ...sentBack, name: 'Mine', scopes: [] });
    expect(renamed.status).toBe(403);
    expect(renamed.body.error_description).toMatch(/this request changes name, scopes\)$/);
    expect((await request(identity.app).get(path).set(auth)).body).toEqual({ ...system, token_lifetime: 7200 });
  });

  it('creates, lists, updates and deletes a client grant', async () => {
    const created = await createGrant({ client_id: clientId, audience: 'https://airport.test', scope: ['read:airports'] });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.stringMatching(/^cgr_/), client_id: clientId, audience: 'https://airport.test', scope: ['read:airports'] });
    const listed = await request(identity.app).get(`/api/v2/client-grants?client_id=${clientId}`).set(auth);
    expect(listed.body).toEqual([created.body]);
    const byAudience = await request(identity.app).get(`/api/v2/client-grants?audience=${encodeURIComponent(MANAGEMENT_AUDIENCE)}`).set(auth);
    expect(byAudience.body.every((g: { audience: string }) => g.audience === MANAGEMENT_AUDIENCE)).toBe(true);
    const updated = await request(identity.app).patch(`/api/v2/client-grants/${created.body.id}`).set(auth).send({ scope: [] });
    expect(updated.status).toBe(200);
    expect(updated.body.scope).toEqual([]);
    expect((await request(identity.app).delete(`/api/v2/client-grants/${created.body.id}`).set(auth)).status).toBe(204);
    expect((await request(identity.app).delete(`/api/v2/client-grants/${created.body.id}`).set(auth)).status).toBe(404);
  });

  it('refuses a second grant for the same client and audience with 409', async () => {
    expect((await createGrant({ client_id: clientId, audience: 'https://airport.test/', scope: [] })).status).toBe(201);
    expect((await createGrant({ client_id: clientId, audience: 'https://airport.test/', scope: [] })).status).toBe(409);
  });

  it('answers 404 for a grant naming an unknown client or audience', async () => {
    expect((await createGrant({ client_id: 'ghost', audience: 'https://airport.test', scope: [] })).status).toBe(404);
    expect((await createGrant({ client_id: clientId, audience: 'https://nowhere.test', scope: [] })).status).toBe(404);
  });

  it('refuses a grant scope the API does not define', async () => {
    const res = await createGrant({ client_id: clientId, audience: 'urn:updatable', scope: ['x', 'delete:everything'] });
    expect(res.status).toBe(400);
    expect(res.body.details[0].path).toBe('scope.1');
  });

  it('deletes a resource server together with its grants', async () => {
    const rs = (await createRs({ name: 'Gone', identifier: 'urn:gone' })).body;
    const grant = (await createGrant({ client_id: clientId, audience: 'urn:gone', scope: [] })).body;
    expect((await request(identity.app).delete(`/api/v2/resource-servers/${rs.id}`).set(auth)).status).toBe(204);
    expect((await request(identity.app).get(`/api/v2/resource-servers/${rs.id}`).set(auth)).status).toBe(404);
    expect((await request(identity.app).get(`/api/v2/client-grants/${grant.id}`).set(auth)).status).toBe(404);
  });
});
