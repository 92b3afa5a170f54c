import { createPublicKey } from 'node:crypto';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { ADMIN_CLIENT_ID, ADMIN_CLIENT_SECRET, adminToken, AUTH_URL, MANAGEMENT_AUDIENCE, startTestIdentity, TestClock, type TestIdentity } from './helpers';

describe('POST /oauth/token with client_credentials', () => {
  const clock = new TestClock();
  let identity: TestIdentity;
  let admin: string;
  let api: { client_id: string; client_secret: string };

  beforeAll(async () => {
    identity = await startTestIdentity({}, { clock });
    admin = await adminToken(identity.app);
    const auth = { authorization: `Bearer ${admin}` };
    await request(identity.app)
      .post('/api/v2/resource-servers')
      .set(auth)
      .send({ name: 'Airport API', identifier: 'https://airport.test', token_lifetime: 3600, scopes: [{ value: 'read:airports' }, { value: 'write:airports' }] })
      .expect(201);
    const created = await request(identity.app).post('/api/v2/clients').set(auth).send({ name: 'M2M', app_type: 'non_interactive' }).expect(201);
    api = { client_id: created.body.client_id, client_secret: created.body.client_secret };
  });
  afterAll(() => identity.close());

  const token = (body: Record<string, unknown>) => request(identity.app).post('/oauth/token').send(body);

  it('issues an RS256 management token with the reference claims, verifiable with the published JWKS', async () => {
    const res = await token({ grant_type: 'client_credentials', client_id: ADMIN_CLIENT_ID, client_secret: ADMIN_CLIENT_SECRET, audience: MANAGEMENT_AUDIENCE });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toMatchObject({ token_type: 'Bearer', expires_in: 86400, access_token: expect.any(String) });
    expect(res.body.scope.split(' ')).toEqual(expect.arrayContaining(['create:connections', 'read:signing_keys', 'delete:user_blocks']));

    const decoded = jwt.decode(res.body.access_token, { complete: true })!;
    expect(decoded.header).toMatchObject({ alg: 'RS256', typ: 'JWT', kid: expect.any(String) });
    const jwks = (await request(identity.app).get('/.well-known/jwks.json')).body as { keys: Array<{ kid: string }> };
    const jwk = jwks.keys.find((k) => k.kid === decoded.header.kid)!;
    const claims = jwt.verify(res.body.access_token, createPublicKey({ key: jwk, format: 'jwk' }), {
      algorithms: ['RS256'],
      clockTimestamp: Math.floor(clock.now().getTime() / 1000),
    }) as jwt.JwtPayload;
    const iat = Math.floor(clock.now().getTime() / 1000);
    expect(claims).toEqual({
      iss: `${AUTH_URL}/`,
      sub: `${ADMIN_CLIENT_ID}@clients`,
      aud: MANAGEMENT_AUDIENCE,
      azp: ADMIN_CLIENT_ID,
      scope: res.body.scope,
      gty: 'client-credentials',
      iat,
      exp: iat + 86400,
    });
  });

  it('accepts a form-encoded request', async () => {
    const res = await request(identity.app)
      .post('/oauth/token')
      .type('form')
      .send({ grant_type: 'client_credentials', client_id: ADMIN_CLIENT_ID, client_secret: ADMIN_CLIENT_SECRET, audience: MANAGEMENT_AUDIENCE });
    expect(res.status).toBe(200);
    expect(res.body.token_type).toBe('Bearer');
  });

  it('accepts client credentials in HTTP Basic authentication', async () => {
    const res = await request(identity.app)
      .post('/oauth/token')
      .auth(ADMIN_CLIENT_ID, ADMIN_CLIENT_SECRET)
      .send({ grant_type: 'client_credentials', audience: MANAGEMENT_AUDIENCE });
    expect(res.status).toBe(200);
  });

  it('rejects a wrong secret with 401 invalid_client', async () => {
    const res = await token({ grant_type: 'client_credentials', client_id: ADMIN_CLIENT_ID, client_secret: 'x'.repeat(40), audience: MANAGEMENT_AUDIENCE });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'invalid_client', error_description: 'Client authentication failed' });
  });

  it('rejects an unknown client exactly like a wrong secret', async () => {
    const res = await token({ grant_type: 'client_credentials', client_id: 'nobody', client_secret: 'x'.repeat(40), audience: MANAGEMENT_AUDIENCE });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_client');
  });

  it('answers 403 access_denied when the client has no grant for the API', async () => {
    const res = await token({ grant_type: 'client_credentials', ...api, audience: 'https://airport.test' });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      error: 'access_denied',
      error_description: `Client ${api.client_id} is not authorized to access resource server https://airport.test`,
    });
  });

  it('answers 403 access_denied for an audience that names no API, trailing slash included', async () => {
    const res = await token({ grant_type: 'client_credentials', ...api, audience: 'https://airport.test/' });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('access_denied');
  });

  it('issues a token for the API once granted, with its lifetime and only granted scopes', async () => {
    await request(identity.app)
      .post('/api/v2/client-grants')
      .set('authorization', `Bearer ${admin}`)
      .send({ client_id: api.client_id, audience: 'https://airport.test', scope: ['read:airports'] })
      .expect(201);
    const res = await token({ grant_type: 'client_credentials', ...api, audience: 'https://airport.test', scope: 'read:airports write:airports' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ expires_in: 3600, scope: 'read:airports' });
    const claims = jwt.decode(res.body.access_token) as jwt.JwtPayload;
    expect(claims).toMatchObject({ aud: 'https://airport.test', sub: `${api.client_id}@clients`, scope: 'read:airports' });
    expect(claims.exp! - claims.iat!).toBe(3600);
  });

  it('refuses client_credentials to a client whose grant_types leave it out', async () => {
    const created = await request(identity.app)
      .post('/api/v2/clients')
      .set('authorization', `Bearer ${admin}`)
      .send({ name: 'Web', app_type: 'regular_web', grant_types: ['refresh_token'] })
      .expect(201);
    const res = await token({ grant_type: 'client_credentials', client_id: created.body.client_id, client_secret: created.body.client_secret, audience: MANAGEMENT_AUDIENCE });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('unauthorized_client');
  });

  it.each([
    ['client_id', { client_secret: 's', audience: MANAGEMENT_AUDIENCE }],
    ['client_secret', { client_id: ADMIN_CLIENT_ID, audience: MANAGEMENT_AUDIENCE }],
    ['audience', { client_id: ADMIN_CLIENT_ID, client_secret: ADMIN_CLIENT_SECRET }],
  ])('answers 400 invalid_request when %s is missing', async (field, body) => {
    const res = await token({ grant_type: 'client_credentials', ...body });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
    expect(res.body.error_description).toContain(field);
  });

  it('answers 400 invalid_request without a grant_type', async () => {
    const res = await token({ client_id: ADMIN_CLIENT_ID });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_request', error_description: 'Missing required parameter: grant_type' });
  });

  it('answers 400 unsupported_grant_type for an unknown grant', async () => {
    const res = await token({ grant_type: 'urn:made-up' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'unsupported_grant_type', error_description: 'Unsupported grant type: urn:made-up' });
  });

  it('answers 400 for a body that is not an object', async () => {
    const res = await request(identity.app).post('/oauth/token').set('content-type', 'application/json').send('[1]');
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
  });
});
