import jwt from 'jsonwebtoken';
import { detachedKeyPair } from '@smsauth/test-support';
import request from 'supertest';
import { adminToken, AUTH_URL, clientCredentialsToken, MANAGEMENT_AUDIENCE, startTestIdentity, TestClock, type TestIdentity } from './helpers';

/** Every /api/v2 route and the scope it needs. */
const ROUTES: Array<[method: 'get' | 'post' | 'patch' | 'put' | 'delete', path: string, scope: string]> = [
  ['get', '/api/v2/connections', 'read:connections'],
  ['post', '/api/v2/connections', 'create:connections'],
  ['get', '/api/v2/connections/con_x', 'read:connections'],
  ['patch', '/api/v2/connections/con_x', 'update:connections'],
  ['delete', '/api/v2/connections/con_x', 'delete:connections'],
  ['get', '/api/v2/clients', 'read:clients'],
  ['post', '/api/v2/clients', 'create:clients'],
  ['get', '/api/v2/clients/x', 'read:clients'],
  ['patch', '/api/v2/clients/x', 'update:clients'],
  ['post', '/api/v2/clients/x/rotate-secret', 'update:clients'],
  ['delete', '/api/v2/clients/x', 'delete:clients'],
  ['get', '/api/v2/resource-servers', 'read:resource_servers'],
  ['post', '/api/v2/resource-servers', 'create:resource_servers'],
  ['get', '/api/v2/resource-servers/x', 'read:resource_servers'],
  ['patch', '/api/v2/resource-servers/x', 'update:resource_servers'],
  ['delete', '/api/v2/resource-servers/x', 'delete:resource_servers'],
  ['get', '/api/v2/client-grants', 'read:client_grants'],
  ['post', '/api/v2/client-grants', 'create:client_grants'],
  ['get', '/api/v2/client-grants/x', 'read:client_grants'],
  ['patch', '/api/v2/client-grants/x', 'update:client_grants'],
  ['delete', '/api/v2/client-grants/x', 'delete:client_grants'],
  ['get', '/api/v2/users', 'read:users'],
  ['get', '/api/v2/users/x', 'read:users'],
  ['delete', '/api/v2/users/x', 'delete:users'],
  ['get', '/api/v2/user-blocks?identifier=%2B1555', 'read:user_blocks'],
  ['delete', '/api/v2/user-blocks?identifier=%2B1555', 'delete:user_blocks'],
  ['get', '/api/v2/user-blocks/x', 'read:user_blocks'],
  ['delete', '/api/v2/user-blocks/x', 'delete:user_blocks'],
  ['get', '/api/v2/keys/signing', 'read:signing_keys'],
  ['get', '/api/v2/keys/signing/x', 'read:signing_keys'],
  ['post', '/api/v2/keys/signing/rotate', 'create:signing_keys'],
  ['put', '/api/v2/keys/signing/x/revoke', 'update:signing_keys'],
  ['get', '/api/v2/logs', 'read:logs'],
  ['get', '/api/v2/logs/x', 'read:logs'],
  ['get', '/api/v2/users/x/logs', 'read:logs'],
];

describe('management API authentication and scopes', () => {
  const clock = new TestClock();
  let identity: TestIdentity;
  let noScopeToken: string;

  beforeAll(async () => {
    identity = await startTestIdentity({}, { clock });
    const admin = await adminToken(identity.app);
    const created = await request(identity.app)
      .post('/api/v2/clients')
      .set('authorization', `Bearer ${admin}`)
      .send({ name: 'scopeless', app_type: 'non_interactive' })
      .expect(201);
    await request(identity.app)
      .post('/api/v2/client-grants')
      .set('authorization', `Bearer ${admin}`)
      .send({ client_id: created.body.client_id, audience: MANAGEMENT_AUDIENCE, scope: [] })
      .expect(201);
    noScopeToken = await clientCredentialsToken(identity.app, { clientId: created.body.client_id, clientSecret: created.body.client_secret });
  });
  afterAll(() => identity.close());

  it.each(ROUTES)('%s %s answers 401 without a token', async (method, path) => {
    const res = await request(identity.app)[method](path);
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_token');
    expect(res.headers['www-authenticate']).toBe('Bearer realm="api/v2"');
  });

  it.each(ROUTES)('%s %s answers 403 insufficient_scope without %s', async (method, path, scope) => {
    const res = await request(identity.app)[method](path).set('authorization', `Bearer ${noScopeToken}`);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'insufficient_scope', error_description: `Insufficient scope, expected: ${scope}` });
  });

  it('accepts a token narrowed to exactly the scope a route needs', async () => {
    const token = await adminToken(identity.app, 'read:clients');
    expect((await request(identity.app).get('/api/v2/clients').set('authorization', `Bearer ${token}`)).status).toBe(200);
    expect((await request(identity.app).get('/api/v2/connections').set('authorization', `Bearer ${token}`)).status).toBe(403);
  });

  it('rejects a malformed bearer token', async () => {
    const res = await request(identity.app).get('/api/v2/clients').set('authorization', 'Bearer not-a-jwt');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="api/v2", error="invalid_token"');
  });

  it('rejects a token for another audience', async () => {
    const [kid] = (await identity.keyRing.jwks()).keys.map((k) => k.kid);
    const token = jwt.sign({ scope: 'read:clients', iss: `${AUTH_URL}/`, aud: 'https://other.test' }, identity.keyRing.currentKey().privateKey, {
      algorithm: 'RS256',
      keyid: kid,
      expiresIn: 60,
      mutatePayload: false,
    });
    const res = await request(identity.app).get('/api/v2/clients').set('authorization', `Bearer ${token}`);
    expect(res.status).toBe(401);
  });

  it('rejects a token signed by a key this service does not publish', async () => {
    const { privateKey } = detachedKeyPair('rsa', { modulusLength: 2048 });
    const [kid] = (await identity.keyRing.jwks()).keys.map((k) => k.kid);
    const token = jwt.sign({ scope: 'read:clients', iss: `${AUTH_URL}/`, aud: MANAGEMENT_AUDIENCE }, privateKey, { algorithm: 'RS256', keyid: kid, expiresIn: 60 });
    expect((await request(identity.app).get('/api/v2/clients').set('authorization', `Bearer ${token}`)).status).toBe(401);
  });

  it('rejects an HS256 token (no algorithm confusion) and an unsigned one', async () => {
    const [kid] = (await identity.keyRing.jwks()).keys.map((k) => k.kid);
    const payload = { scope: 'read:clients', iss: `${AUTH_URL}/`, aud: MANAGEMENT_AUDIENCE };
    const hs = jwt.sign(payload, 'secret', { algorithm: 'HS256', keyid: kid, expiresIn: 60 });
    const none = jwt.sign(payload, '', { algorithm: 'none', keyid: kid, expiresIn: 60 } as jwt.SignOptions);
    for (const token of [hs, none]) {
      expect((await request(identity.app).get('/api/v2/clients').set('authorization', `Bearer ${token}`)).status).toBe(401);
    }
  });

  it('rejects a management token once it has expired by the injected clock', async () => {
    const token = await adminToken(identity.app);
    clock.advance(86_400 + 61);
    try {
      expect((await request(identity.app).get('/api/v2/clients').set('authorization', `Bearer ${token}`)).status).toBe(401);
    } finally {
      clock.advance(-(86_400 + 61));
    }
  });
});
