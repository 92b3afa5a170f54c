import request from 'supertest';
import { ConfigError, createLogger, loadConfig } from '@smsauth/service-kit';
import { buildApp } from '../src/app';
import { configSchema } from '../src/config';
import { FakeIdentity } from './support/identity';

describe('airport-api app', () => {
  let identity: FakeIdentity;

  beforeAll(async () => {
    identity = await FakeIdentity.start();
  });
  afterAll(async () => {
    await identity.close();
  });

  it('requires AUTH_URL', () => {
    expect(() => loadConfig(configSchema, {})).toThrow(ConfigError);
    expect(() => loadConfig(configSchema, {})).toThrow(/AUTH_URL/);
  });

  it('refuses an AUTH_URL that is not an http(s) URL', () => {
    expect(() => loadConfig(configSchema, { AUTH_URL: 'ftp://id.example.com' })).toThrow(/AUTH_URL/);
  });

  it('listens on port 4200 by default, with the default audience', () => {
    const config = loadConfig(configSchema, { AUTH_URL: 'https://id.example.com' });
    expect(config.PORT).toBe(4200);
    expect(config.API_AUDIENCE).toBe('https://airport-api.example.com');
  });

  it('drops trailing slashes from AUTH_URL, so the issuer gets exactly one', () => {
    expect(loadConfig(configSchema, { AUTH_URL: 'https://id.example.com/' }).AUTH_URL).toBe('https://id.example.com');
  });

  it('answers /healthz and /readyz once the JWKS is reachable', async () => {
    const config = loadConfig(configSchema, { AUTH_URL: identity.authUrl });
    const { app } = buildApp({ config, logger: createLogger({ name: 'test', level: 'silent' }) });
    expect((await request(app).get('/healthz')).status).toBe(200);
    const ready = await request(app).get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.checks).toEqual({ jwks: 'ok' });
  });

  it('starts while the identity service is unreachable and reports it in /readyz', async () => {
    const config = loadConfig(configSchema, { AUTH_URL: 'http://127.0.0.1:9' });
    const { app } = buildApp({ config, logger: createLogger({ name: 'test', level: 'silent' }) });
    const ready = await request(app).get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.checks.jwks).toMatch(/^JWKS http:\/\/127\.0\.0\.1:9\/\.well-known\/jwks\.json: unreachable/);
    const call = await request(app).get('/airportName?iataCode=SFO').set('Authorization', 'Bearer a.b.c');
    expect(call.status).toBe(401);
    expect((await request(app).get('/healthz')).status).toBe(200);
  });

  it('exposes Prometheus metrics, the gateway counters among them', async () => {
    const config = loadConfig(configSchema, { AUTH_URL: identity.authUrl });
    const { app } = buildApp({ config, logger: createLogger({ name: 'test', level: 'silent' }) });
    await request(app).get('/airportName?iataCode=SFO');
    const res = await request(app).get('/metrics');
    expect(res.status).toBe(200);
    expect(res.text).toContain('service="airport-api"');
    expect(res.text).toMatch(/gateway_auth_total\{outcome="missing_credentials",service="airport-api"\} 1/);
    expect(res.text).toContain('gateway_jwks_fetch_total');
  });

  it('serves its reference page at GET /docs without a token, rendered from /openapi.yaml; off in production', async () => {
    const logger = createLogger({ name: 'test', level: 'silent' });
    const dev = buildApp({ config: loadConfig(configSchema, { AUTH_URL: identity.authUrl }), logger }).app;
    const page = await request(dev).get('/docs').expect(200);
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.text).toContain('data-document-url="/openapi.yaml"');
    const production = buildApp({ config: loadConfig(configSchema, { AUTH_URL: identity.authUrl, NODE_ENV: 'production' }), logger }).app;
    expect((await request(production).get('/docs')).status).toBe(404);
    const enabled = loadConfig(configSchema, { AUTH_URL: identity.authUrl, NODE_ENV: 'production', API_DOCS: 'true' });
    await request(buildApp({ config: enabled, logger }).app).get('/docs').expect(200);
  });
});
