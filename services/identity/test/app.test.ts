import request from 'supertest';
import { adminToken, AUTH_URL, startTestIdentity, type TestIdentity } from './helpers';

describe('identity app', () => {
  let identity: TestIdentity;
  beforeAll(async () => {
    identity = await startTestIdentity();
  });
  afterAll(() => identity.close());

  it('listens on port 4000 by default', () => {
    expect(identity.config.PORT).toBe(4000);
  });

  it('answers /healthz and /readyz, checking the database', async () => {
    expect((await request(identity.app).get('/healthz')).status).toBe(200);
    const ready = await request(identity.app).get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.checks).toEqual({ database: 'ok' });
  });

  it('exposes Prometheus metrics', async () => {
    const res = await request(identity.app).get('/metrics');
    expect(res.status).toBe(200);
    expect(res.text).toContain('service="identity"');
  });

  it('publishes OpenID discovery with the issuer ending in a slash', async () => {
    const res = await request(identity.app).get('/.well-known/openid-configuration');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      issuer: `${AUTH_URL}/`,
      jwks_uri: `${AUTH_URL}/.well-known/jwks.json`,
      authorization_endpoint: `${AUTH_URL}/authorize`,
      token_endpoint: `${AUTH_URL}/oauth/token`,
      userinfo_endpoint: `${AUTH_URL}/userinfo`,
      id_token_signing_alg_values_supported: ['RS256'],
    });
    expect(res.body.grant_types_supported).toContain('client_credentials');
    expect(res.body.response_types_supported).toEqual(expect.any(Array));
    expect(res.body.scopes_supported).toContain('openid');
    expect(res.body.claims_supported).toEqual(expect.arrayContaining(['sub', 'iss', 'aud', 'name', 'nickname', 'updated_at', 'phone_number', 'phone_number_verified']));
  });

  it('lets the bootstrap admin reach the management API', async () => {
    const token = await adminToken(identity.app);
    const res = await request(identity.app).get('/api/v2/clients').set('authorization', `Bearer ${token}`);
    expect(res.status).toBe(200);
    expect(res.body.map((c: { client_id: string }) => c.client_id)).toContain('test-admin');
  });
});
