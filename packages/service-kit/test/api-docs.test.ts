import request from 'supertest';
import { z } from 'zod';
import { API_DOCS_CSP, apiDocsEnabled, apiDocsRouter, createServiceApp, env, loadConfig } from '../src';
import { capturingLogger } from './helpers';

const configSchema = z.object({ NODE_ENV: env.nodeEnv(), API_DOCS: env.apiDocs() });

/** A service app that mounts the page the way a service's app.ts does. */
function buildApp(vars: Record<string, string> = {}) {
  const config = loadConfig(configSchema, vars);
  return createServiceApp({
    name: 'test',
    logger: capturingLogger().logger,
    routes: (app) => {
      app.get('/openapi.json', (_req, res) => {
        res.json({ openapi: '3.1.0', info: { title: 't', version: '1' }, paths: {} });
      });
      if (apiDocsEnabled(config)) app.use(apiDocsRouter({ title: 'test <API>', documentUrl: '/openapi.json' }));
    },
  }).app;
}

describe('apiDocsRouter', () => {
  it('serves GET /docs as HTML under a strict Content-Security-Policy', async () => {
    const res = await request(buildApp()).get('/docs').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['content-security-policy']).toBe(API_DOCS_CSP);
    const csp = res.headers['content-security-policy'] as string;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.text).toContain('<title>test &lt;API&gt;</title>');
    expect(res.text).toContain('data-document-url="/openapi.json"');
  });

  it('references only local assets, and no inline script or style', async () => {
    const res = await request(buildApp()).get('/docs').expect(200);
    const urls = [...res.text.matchAll(/\b(?:src|href)="([^"]*)"/g)].map((m) => m[1]!);
    expect(urls).toEqual(
      expect.arrayContaining(['/docs/assets/swagger-ui.css', '/docs/assets/swagger-ui-bundle.js', '/docs/init.js']),
    );
    for (const url of urls) expect(url).toMatch(/^\/docs\//);
    expect(res.text).not.toMatch(/\/\/|<style|\sstyle=|<script>/);
  });

  it('serves the renderer from the installed package and its init script, under the same policy', async () => {
    const app = buildApp();
    const bundle = await request(app).get('/docs/assets/swagger-ui-bundle.js').expect(200);
    expect(bundle.headers['content-type']).toMatch(/^application\/javascript/);
    expect(bundle.headers['content-security-policy']).toBe(API_DOCS_CSP);
    expect(bundle.text).toContain('SwaggerUIBundle');
    const css = await request(app).get('/docs/assets/swagger-ui.css').expect(200);
    expect(css.headers['content-type']).toMatch(/^text\/css/);
    const init = await request(app).get('/docs/init.js').expect(200);
    expect(init.headers['content-type']).toMatch(/^application\/javascript/);
    expect(init.text).toContain('SwaggerUIBundle(');
    // The bundle is 1.4 MB, buffered whole by supertest: on a saturated 2-core machine that alone
    // outlasted jest's default 5 s in a CI run (load average 16).
  }, 30_000);

  it('serves no other file of the package, nor anything outside it', async () => {
    const app = buildApp();
    await request(app).get('/docs/assets/index.html').expect(404);
    await request(app).get('/docs/assets/package.json').expect(404);
    await request(app).get('/docs/assets/..%2Fpackage.json').expect(404);
    await request(app).get('/docs/assets/%2E%2E%2F%2E%2E%2Fpackage.json').expect(404);
  });

  it('is off in production by default: /docs and its assets are 404', async () => {
    const app = buildApp({ NODE_ENV: 'production' });
    await request(app).get('/docs').expect(404);
    await request(app).get('/docs/assets/swagger-ui-bundle.js').expect(404);
  });

  it('is on in production with API_DOCS=true, and off in development with API_DOCS=false', async () => {
    await request(buildApp({ NODE_ENV: 'production', API_DOCS: 'true' })).get('/docs').expect(200);
    await request(buildApp({ NODE_ENV: 'development', API_DOCS: 'false' })).get('/docs').expect(404);
  });
});
