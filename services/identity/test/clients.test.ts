import request from 'supertest';
import { ADMIN_CLIENT_ID, adminToken, clientCredentialsToken, MANAGEMENT_AUDIENCE, startTestIdentity, type TestIdentity } from './helpers';

describe('/api/v2/clients', () => {
  let identity: TestIdentity;
  let auth: { authorization: string };
  beforeAll(async () => {
    identity = await startTestIdentity();
    auth = { authorization: `Bearer ${await adminToken(identity.app)}` };
  });
  afterAll(() => identity.close());

  const create = (body: object) => request(identity.app).post('/api/v2/clients').set(auth).send(body);

  it('creates a confidential client and shows its secret in that response only', async () => {
    const res = await create({ name: 'Backend', app_type: 'non_interactive' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      client_id: expect.stringMatching(/^[A-Za-z0-9]{32}$/),
      name: 'Backend',
      app_type: 'non_interactive',
      callbacks: [],
      allowed_origins: [],
      grant_types: ['client_credentials'],
      token_endpoint_auth_method: 'client_secret_post',
      allowed_logout_urls: [],
      web_origins: [],
      oidc_conformant: true,
      refresh_token: {
        rotation_type: 'rotating',
        expiration_type: 'expiring',
        leeway: 0,
        token_lifetime: 2592000,
        infinite_token_lifetime: true,
        idle_token_lifetime: 2592000,
        infinite_idle_token_lifetime: false,
      },
      cross_origin_authentication: false,
      client_secret: expect.any(String),
    });
    expect(Buffer.from(res.body.client_secret, 'base64url').length).toBeGreaterThanOrEqual(32);
    const read = await request(identity.app).get(`/api/v2/clients/${res.body.client_id}`).set(auth);
    expect(read.status).toBe(200);
    expect(read.body.client_secret).toBeUndefined();
    const list = await request(identity.app).get('/api/v2/clients').set(auth);
    expect(JSON.stringify(list.body)).not.toContain(res.body.client_secret);
    expect(JSON.stringify(list.body)).not.toContain('secret_hash');
  });

  it('stores only a hash of the secret', async () => {
    const res = await create({ name: 'Hashed', app_type: 'regular_web' });
    const stored = await identity.store.clients.findById(res.body.client_id);
    expect(stored!.secret_hash).toMatch(/^sha256\$/);
    expect(stored!.secret_hash).not.toContain(res.body.client_secret);
  });

  it('creates a public client without a secret, with the passwordless grants by default', async () => {
    const res = await create({
      name: 'Mobile',
      app_type: 'native',
      callbacks: ['https://app.test/callback'],
      allowed_origins: ['https://app.test'],
      default_audience: 'https://airport.test',
    });
    expect(res.status).toBe(201);
    expect(res.body.client_secret).toBeUndefined();
    expect(res.body).toMatchObject({
      token_endpoint_auth_method: 'none',
      callbacks: ['https://app.test/callback'],
      allowed_origins: ['https://app.test'],
      default_audience: 'https://airport.test',
    });
    expect(res.body.grant_types).toEqual(
      expect.arrayContaining(['http://auth0.com/oauth/grant-type/passwordless/otp', 'refresh_token']),
    );
    expect(res.body.grant_types).not.toContain('client_credentials');
  });

  it.each([
    ['name is missing', { app_type: 'native' }, 'name'],
    ['app_type is unknown', { name: 'x', app_type: 'desktop' }, 'app_type'],
    ['a callback is not an http(s) URL', { name: 'x', app_type: 'spa', callbacks: ['javascript:alert(1)'] }, 'callbacks.0'],
    ['a grant type is unknown', { name: 'x', app_type: 'spa', grant_types: ['implicit-ish'] }, 'grant_types.0'],
    ['a public client asks for client_credentials', { name: 'x', app_type: 'spa', grant_types: ['client_credentials'] }, 'grant_types'],
    ['a field is unknown', { name: 'x', app_type: 'spa', colour: 'red' }, 'colour'],
  ])('answers 400 when %s', async (_case, body, path) => {
    const res = await create(body);
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it('rotates a secret: the new one works, the old one stops working', async () => {
    const created = (await create({ name: 'Rotating', app_type: 'non_interactive' })).body;
    await request(identity.app)
      .post('/api/v2/client-grants')
      .set(auth)
      .send({ client_id: created.client_id, audience: MANAGEMENT_AUDIENCE, scope: ['read:clients'] })
      .expect(201);
    const rotated = await request(identity.app).post(`/api/v2/clients/${created.client_id}/rotate-secret`).set(auth);
    expect(rotated.status).toBe(200);
    expect(rotated.body.client_secret).toEqual(expect.any(String));
    expect(rotated.body.client_secret).not.toBe(created.client_secret);
    await expect(clientCredentialsToken(identity.app, { clientId: created.client_id, clientSecret: rotated.body.client_secret })).resolves.toEqual(expect.any(String));
    await expect(clientCredentialsToken(identity.app, { clientId: created.client_id, clientSecret: created.client_secret })).rejects.toThrow('401');
  });

  it('refuses to rotate the secret of a public client', async () => {
    const created = (await create({ name: 'Public', app_type: 'spa' })).body;
    expect((await request(identity.app).post(`/api/v2/clients/${created.client_id}/rotate-secret`).set(auth)).status).toBe(400);
  });

  it('updates a client and drops its secret when it becomes public', async () => {
    const created = (await create({ name: 'Changing', app_type: 'regular_web', default_audience: 'https://a.test' })).body;
    const renamed = await request(identity.app).patch(`/api/v2/clients/${created.client_id}`).set(auth).send({ name: 'Changed', default_audience: null });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe('Changed');
    expect(renamed.body.default_audience).toBeUndefined();
    const toPublic = await request(identity.app)
      .patch(`/api/v2/clients/${created.client_id}`)
      .set(auth)
      .send({ app_type: 'spa', grant_types: ['refresh_token'] });
    expect(toPublic.status).toBe(200);
    expect(toPublic.body.token_endpoint_auth_method).toBe('none');
    expect((await identity.store.clients.findById(created.client_id))!.secret_hash).toBeNull();
  });

  it("stores Auth0's description, shows it, changes it, and refuses one over 140 characters", async () => {
    const created = await create({ name: 'Described', app_type: 'native', description: 'Signs drivers in' });
    expect(created.status).toBe(201);
    expect(created.body.description).toBe('Signs drivers in');
    const path = `/api/v2/clients/${created.body.client_id}`;
    expect((await request(identity.app).get(path).set(auth)).body.description).toBe('Signs drivers in');
    expect((await request(identity.app).patch(path).set(auth).send({ description: 'Signs couriers in' })).body.description).toBe('Signs couriers in');
    const tooLong = await request(identity.app).patch(path).set(auth).send({ description: 'x'.repeat(141) });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.details.map((d: { path: string }) => d.path)).toEqual(['description']);
    // A client created without one has none (not an empty string).
    expect((await create({ name: 'Plain', app_type: 'native' })).body).not.toHaveProperty('description');
  });

  /** A single-page app as auth0-deploy-cli exports it from an Auth0 tenant (clients/Dispatch Web.json). */
  const FROM_AUTH0 = {
    name: 'Dispatch Web',
    allowed_clients: [],
    app_type: 'spa',
    callbacks: ['https://dispatch.example.com/callback'],
    client_aliases: [],
    client_metadata: { team: 'dispatch', 'cost-center': '42' },
    compliance_level: null,
    cross_origin_auth: false,
    custom_login_page_on: true,
    grant_types: ['authorization_code', 'implicit', 'refresh_token'],
    is_first_party: true,
    is_token_endpoint_ip_header_trusted: false,
    jwt_configuration: { alg: 'RS256', lifetime_in_seconds: 36000, secret_encoded: false },
    logo_uri: 'https://dispatch.example.com/logo.png',
    native_social_login: { apple: { enabled: false }, facebook: { enabled: false }, google: { enabled: false } },
    oidc_conformant: true,
    organization_usage: 'deny',
    refresh_token: {
      expiration_type: 'expiring',
      leeway: 0,
      token_lifetime: 2592000,
      idle_token_lifetime: 1296000,
      infinite_token_lifetime: false,
      infinite_idle_token_lifetime: false,
      rotation_type: 'rotating',
    },
    require_proof_of_possession: false,
    require_pushed_authorization_requests: false,
    sso_disabled: false,
    token_endpoint_auth_method: 'none',
    web_origins: ['https://dispatch.example.com'],
  };

  it("accepts a client as Auth0 exports it, shows Auth0's settings back as sent, and keeps the others when one changes", async () => {
    const fromAuth0 = FROM_AUTH0;
    const created = await create(fromAuth0);
    expect(created.status).toBe(201);
    const inert = {
      logo_uri: fromAuth0.logo_uri,
      is_first_party: true,
      is_token_endpoint_ip_header_trusted: false,
      sso_disabled: false,
      custom_login_page_on: true,
      client_aliases: [],
      allowed_clients: [],
      client_metadata: fromAuth0.client_metadata,
      native_social_login: fromAuth0.native_social_login,
      organization_usage: 'deny',
    };
    expect(created.body).toMatchObject({ ...inert, jwt_configuration: fromAuth0.jwt_configuration });
    // Off-only settings are accepted at off and not shown (they cannot be anything else).
    expect(created.body).not.toHaveProperty('require_pushed_authorization_requests');
    expect(created.body).not.toHaveProperty('compliance_level');
    const path = `/api/v2/clients/${created.body.client_id}`;
    expect(JSON.stringify((await request(identity.app).get(path).set(auth)).body.native_social_login)).toBe(JSON.stringify(fromAuth0.native_social_login));

    const patched = await request(identity.app).patch(path).set(auth).send({ is_first_party: false, client_metadata: { team: 'ops' } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ ...inert, is_first_party: false, client_metadata: { team: 'ops' } });
  });

  it("takes Auth0's older cross_origin_auth for cross_origin_authentication, and refuses the two disagreeing", async () => {
    const created = await create({ name: 'Embedded', app_type: 'spa', cross_origin_auth: true });
    expect(created.status).toBe(201);
    expect(created.body.cross_origin_authentication).toBe(true);
    expect(created.body).not.toHaveProperty('cross_origin_auth');
    const path = `/api/v2/clients/${created.body.client_id}`;
    expect((await request(identity.app).patch(path).set(auth).send({ cross_origin_auth: false, cross_origin_authentication: false })).body.cross_origin_authentication).toBe(false);
    const disagreeing = await request(identity.app).patch(path).set(auth).send({ cross_origin_auth: true, cross_origin_authentication: false });
    expect(disagreeing.status).toBe(400);
    expect(disagreeing.body.details.map((d: { path: string }) => d.path)).toEqual(['cross_origin_auth']);
  });

  it('refuses a setting that would promise a protection identity does not give, saying why', async () => {
    const res = await create({ name: 'Bank', app_type: 'regular_web', require_pushed_authorization_requests: true, compliance_level: 'fapi1_adv_pkj_par' });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: 'require_pushed_authorization_requests', message: 'identity has no pushed authorization requests (PAR): only false' }),
        expect.objectContaining({ path: 'compliance_level', message: 'identity has no FAPI profile: only none (or null)' }),
      ]),
    );
  });

  it('refuses client_metadata beyond Auth0 bounds (11 properties), naming the field', async () => {
    const metadata = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`key${i}`, 'v']));
    const res = await create({ name: 'Busy', app_type: 'native', client_metadata: metadata });
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { path: string }) => d.path)).toEqual(['client_metadata']);
  });

  it('answers stored refresh_token settings in the same field order as the defaults (a tool comparing exports sees no change)', async () => {
    const created = (await create({ name: 'Rotating', app_type: 'native' })).body;
    const path = `/api/v2/clients/${created.client_id}`;
    const stored = await request(identity.app).patch(path).set(auth).send({ refresh_token: created.refresh_token });
    expect(Object.keys(stored.body.refresh_token)).toEqual(Object.keys(created.refresh_token));
    expect(JSON.stringify((await request(identity.app).get(path).set(auth)).body.refresh_token)).toBe(JSON.stringify(created.refresh_token));
  });

  it('refuses a PATCH that would give a public client client_credentials', async () => {
    const created = (await create({ name: 'Spa', app_type: 'spa' })).body;
    const res = await request(identity.app).patch(`/api/v2/clients/${created.client_id}`).set(auth).send({ grant_types: ['client_credentials'] });
    expect(res.status).toBe(400);
    expect(res.body.details[0].path).toBe('grant_types');
  });

  it('deletes a client, its grants and its place in enabled_clients', async () => {
    const created = (await create({ name: 'Doomed', app_type: 'non_interactive' })).body;
    const grant = await request(identity.app)
      .post('/api/v2/client-grants')
      .set(auth)
      .send({ client_id: created.client_id, audience: MANAGEMENT_AUDIENCE, scope: [] });
    expect((await request(identity.app).delete(`/api/v2/clients/${created.client_id}`).set(auth)).status).toBe(204);
    expect((await request(identity.app).get(`/api/v2/clients/${created.client_id}`).set(auth)).status).toBe(404);
    expect((await request(identity.app).get(`/api/v2/client-grants/${grant.body.id}`).set(auth)).status).toBe(404);
  });

  it('refuses to delete the bootstrap admin client', async () => {
    const res = await request(identity.app).delete(`/api/v2/clients/${ADMIN_CLIENT_ID}`).set(auth);
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('forbidden');
  });

  it('marks the bootstrap admin built_in (so a console offers no delete), not the others, and keeps the mark read-only', async () => {
    const admin = await request(identity.app).get(`/api/v2/clients/${ADMIN_CLIENT_ID}`).set(auth);
    expect(admin.body.built_in).toBe(true);
    const other = await create({ name: 'Not built in', app_type: 'spa' });
    expect(other.body).not.toHaveProperty('built_in');
    // Sent back as GET showed it: accepted; any other value: refused, naming the field.
    const same = await request(identity.app).patch(`/api/v2/clients/${ADMIN_CLIENT_ID}`).set(auth).send({ built_in: true, description: 'kept' });
    expect(same.status).toBe(200);
    expect(same.body).toMatchObject({ built_in: true, description: 'kept' });
    const made = await request(identity.app).patch(`/api/v2/clients/${other.body.client_id}`).set(auth).send({ built_in: true });
    expect(made.status).toBe(400);
    expect(JSON.stringify(made.body)).toContain('built_in');
    expect((await create({ name: 'Claims built in', app_type: 'spa', built_in: true })).status).toBe(400);
  });

  it('stores Auth0\'s cross_origin_authentication (off by default) and cross_origin_loc, and clears the location with null', async () => {
    const created = await create({ name: 'Embedded', app_type: 'spa', web_origins: ['https://app.example.com'] });
    expect(created.body.cross_origin_authentication).toBe(false);
    expect(created.body).not.toHaveProperty('cross_origin_loc');
    const id = created.body.client_id as string;
    const on = await request(identity.app)
      .patch(`/api/v2/clients/${id}`)
      .set(auth)
      .send({ cross_origin_authentication: true, cross_origin_loc: 'https://app.example.com/co-verify' });
    expect(on.status).toBe(200);
    expect(on.body).toMatchObject({ cross_origin_authentication: true, cross_origin_loc: 'https://app.example.com/co-verify' });
    const cleared = await request(identity.app).patch(`/api/v2/clients/${id}`).set(auth).send({ cross_origin_loc: null });
    expect(cleared.body).not.toHaveProperty('cross_origin_loc');
    expect(cleared.body.cross_origin_authentication).toBe(true);
    const bad = await request(identity.app).patch(`/api/v2/clients/${id}`).set(auth).send({ cross_origin_loc: 'javascript:alert(1)' });
    expect(bad.status).toBe(400);
    expect((await request(identity.app).patch(`/api/v2/clients/${id}`).set(auth).send({ cross_origin_authentication: 'yes' })).status).toBe(400);
  });

  it('answers 404 for unknown client ids', async () => {
    expect((await request(identity.app).get('/api/v2/clients/nope').set(auth)).status).toBe(404);
    expect((await request(identity.app).patch('/api/v2/clients/nope').set(auth).send({ name: 'x' })).status).toBe(404);
    expect((await request(identity.app).delete('/api/v2/clients/nope').set(auth)).status).toBe(404);
    expect((await request(identity.app).post('/api/v2/clients/nope/rotate-secret').set(auth)).status).toBe(404);
  });
});
