import { describeOnEachDatabase, FlowHarness } from './passwordless/flow-harness';

const ALLOWED = 'https://spa.example.com';
const FROM_ALLOWED_ORIGINS = 'https://legacy.example.com';

describeOnEachDatabase('CORS for the web origins of clients', (database) => {
  let h: FlowHarness;

  beforeAll(async () => {
    h = await FlowHarness.start({}, { database });
    await h.createClient({ name: 'SPA', app_type: 'spa', web_origins: [ALLOWED] });
    await h.createClient({ name: 'Legacy', app_type: 'spa', allowed_origins: [`${FROM_ALLOWED_ORIGINS}/app`] });
  });
  afterAll(() => h.close());

  const preflight = (path: string, origin: string) =>
    h
      .http()
      .options(path)
      .set('Origin', origin)
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'auth0-client, content-type');

  it.each(['/oauth/token', '/oauth/revoke', '/userinfo', '/.well-known/openid-configuration', '/.well-known/jwks.json'])(
    'answers the preflight of %s for a registered web origin, with the headers the SDKs send',
    async (path) => {
      const res = await preflight(path, ALLOWED);
      expect(res.status).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe(ALLOWED);
      expect(res.headers['access-control-allow-headers']!.toLowerCase()).toContain('auth0-client');
      expect(res.headers['access-control-allow-headers']!.toLowerCase()).toContain('content-type');
      expect(res.headers['access-control-allow-methods']).toContain('POST');
    },
  );

  it('echoes the origin on the answer itself (and varies by Origin)', async () => {
    const res = await h.http().get('/.well-known/jwks.json').set('Origin', ALLOWED);
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(res.headers.vary).toContain('Origin');
  });

  it("counts the origin of a client's allowed_origins URL", async () => {
    const res = await preflight('/oauth/token', FROM_ALLOWED_ORIGINS);
    expect(res.headers['access-control-allow-origin']).toBe(FROM_ALLOWED_ORIGINS);
  });

  it('lets a registered web origin call the management API from script (a console hosted elsewhere), every method, with the bearer token', async () => {
    const res = await h
      .http()
      .options('/api/v2/users/some-id')
      .set('Origin', ALLOWED)
      .set('Access-Control-Request-Method', 'PATCH')
      .set('Access-Control-Request-Headers', 'authorization, content-type');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(res.headers['access-control-allow-methods']).toBe('GET,POST,PUT,PATCH,DELETE');
    expect(res.headers['access-control-allow-headers']!.toLowerCase()).toContain('authorization');
    const list = await h.management('get', '/clients?per_page=1').set('Origin', ALLOWED);
    expect(list.status).toBe(200);
    expect(list.headers['access-control-allow-origin']).toBe(ALLOWED);
    // The origin opens nothing by itself: without the token the API still answers 401.
    const anonymous = await h.http().get('/api/v2/clients').set('Origin', ALLOWED);
    expect(anonymous.status).toBe(401);
    expect((await h.http().options('/api/v2/clients').set('Origin', 'https://evil.example.com').set('Access-Control-Request-Method', 'DELETE')).headers['access-control-allow-origin']).toBeUndefined();
  });

  it('gives an unlisted origin no CORS header', async () => {
    const res = await preflight('/oauth/token', 'https://evil.example.com');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const get = await h.http().get('/.well-known/openid-configuration').set('Origin', 'https://evil.example.com');
    expect(get.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('opens to an origin as soon as a client lists it, and closes when it is removed', async () => {
    const origin = 'https://late.example.com';
    expect((await preflight('/oauth/token', origin)).headers['access-control-allow-origin']).toBeUndefined();
    const client = await h.createClient({ name: 'Late', app_type: 'spa', web_origins: [origin] });
    expect((await preflight('/oauth/token', origin)).headers['access-control-allow-origin']).toBe(origin);
    await h.management('patch', `/clients/${client.client_id}`, { web_origins: [] }).expect(200);
    expect((await preflight('/oauth/token', origin)).headers['access-control-allow-origin']).toBeUndefined();
  });

  it('opens no CORS on the navigation endpoints (/authorize, logout)', async () => {
    const res = await h.http().get('/v2/logout').set('Origin', ALLOWED);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});
