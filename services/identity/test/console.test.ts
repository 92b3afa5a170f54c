import request from 'supertest';
import { adminToken, AUTH_URL, identitiesClosedAfterAll, MANAGEMENT_AUDIENCE } from './helpers';

describe('GET /console (the operator console, packages/console built)', () => {
  const start = identitiesClosedAfterAll();

  it('serves the built single-page app under a CSP allowing nothing inline and no script, style or call to another origin', async () => {
    const { app } = await start();
    await request(app).get('/console').expect(301).expect('location', '/console/');
    const page = await request(app).get('/console/').expect(200).expect('content-type', /html/);
    const csp = page.headers['content-security-policy'];
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("connect-src 'self';");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    // The Branding screen's preview (a srcdoc frame, which inherits this policy) shows a draft
    // brand's https logo and font; styles and scripts stay this origin's.
    expect(csp).toContain("img-src 'self' data: https:;");
    expect(csp).toContain('font-src https:;');
    expect(csp).toContain("style-src 'self';");
    expect(csp).toContain("frame-src 'self';");
    expect(page.headers['cache-control']).toBe('no-store');
    // No inline script: the page names its module by a relative URL (the build also works elsewhere).
    expect(page.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const script = /<script type="module" crossorigin src="\.\/(assets\/index-[\w-]+\.js)"><\/script>/.exec(page.text)![1]!;
    const asset = await request(app).get(`/console/${script}`).expect(200).expect('content-type', /javascript/);
    expect(asset.headers['cache-control']).toContain('immutable');
    expect(asset.headers['content-security-policy']).toBe(csp);
    // The token worker auth0-spa-js starts is a file of the build (worker-src 'self', not blob:).
    await request(app).get('/console/assets/auth0-token-worker.js').expect(200).expect('content-type', /javascript/);
    await request(app).get('/console/assets/missing.js').expect(404);
    // The callback path (and any other below /console/) is the same page.
    const callback = await request(app).get('/console/callback?code=x&state=y').expect(200);
    expect(callback.text).toBe(page.text);
  });

  it('tells the console where to sign in: the client identity keeps for it, or an SPA client called back under /console/', async () => {
    const { app } = await start();
    const token = await adminToken(app);
    const own = await request(app).get('/console/config.json').expect(200);
    expect(own.body).toEqual({ domain: AUTH_URL, client_id: expect.any(String), audience: MANAGEMENT_AUDIENCE, redirect_uri: `${AUTH_URL}/console/callback` });

    // Deleted through the API (the next start creates it again): no client to sign in with.
    await request(app).delete(`/api/v2/clients/${own.body.client_id}`).set('authorization', `Bearer ${token}`).expect(204);
    const missing = await request(app).get('/console/config.json').expect(503);
    expect(missing.body.error).toBe('console_client_missing');
    expect(missing.body.error_description).toContain(`${AUTH_URL}/console/`);

    const other = await request(app).post('/api/v2/clients').set('authorization', `Bearer ${token}`).send({ name: 'Other SPA', app_type: 'spa', callbacks: ['https://app.example.com/cb'] }).expect(201);
    const consoleClient = await request(app)
      .post('/api/v2/clients')
      .set('authorization', `Bearer ${token}`)
      .send({ name: 'Console', app_type: 'spa', callbacks: [`${AUTH_URL}/console/callback`], web_origins: [AUTH_URL] })
      .expect(201);
    const config = await request(app).get('/console/config.json').expect(200);
    expect(config.body).toEqual({ domain: AUTH_URL, client_id: consoleClient.body.client_id, audience: MANAGEMENT_AUDIENCE, redirect_uri: `${AUTH_URL}/console/callback` });
    expect(config.body.client_id).not.toBe(other.body.client_id);
  });

  it('is not served with CONSOLE=false', async () => {
    const { app } = await start({ CONSOLE: 'false' });
    await request(app).get('/console/').expect(404);
    await request(app).get('/console/config.json').expect(404);
  });
});
