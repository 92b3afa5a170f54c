import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { demoAppCsp } from '../src/demo-app-page';
import { AUTH0_SPA_JS_PATH, startDemoApp, type RunningDemoApp } from '../src/demo-app';
import { freePort } from '../src/ports';

/**
 * Stands in for identity and the airport API (@smsauth/test-support depends on this package,
 * so it cannot be used here): records each request, answers like the real services.
 */
async function upstream(): Promise<{ url: string; server: Server; requests: Array<{ url: string; headers: IncomingHttpHeaders }> }> {
  const requests: Array<{ url: string; headers: IncomingHttpHeaders }> = [];
  const server = createServer((req, res) => {
    requests.push({ url: req.url ?? '', headers: req.headers });
    if (req.headers.authorization === 'Bearer good-token') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('San Francisco International Airport');
    } else {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"code":16,"message":"JWT validation failed: Missing or invalid credentials"}');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, requests };
}

describe('the demo web app server', () => {
  let services: Awaited<ReturnType<typeof upstream>>;
  let app: RunningDemoApp;

  beforeAll(async () => {
    services = await upstream();
    const port = await freePort();
    const appUrl = `http://127.0.0.1:${port}`;
    app = await startDemoApp({
      port,
      appUrl,
      callbackUrl: `${appUrl}/callback`,
      authUrl: services.url,
      apiUrl: services.url,
      clientId: 'demo-client-"<id>',
      audience: 'https://airport-api.example.com',
      connection: 'sms',
    });
  });

  afterAll(async () => {
    await app?.close();
    services?.server.closeAllConnections();
    await new Promise((resolve) => services?.server.close(resolve));
  });

  it('serves the same page at / and at the callback, under a strict CSP that lets it reach and frame identity only, with its settings escaped', async () => {
    const csp = demoAppCsp(services.url);
    for (const path of ['/', '/callback']) {
      const res = await fetch(`${app.url}${path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-security-policy')).toBe(csp);
      const html = await res.text();
      expect(html).toContain('data-client-id="demo-client-&quot;&lt;id&gt;"');
      expect(html).toContain('<script src="/auth0-spa-js.production.js"></script>\n<script src="/demo-app.js"></script>');
      expect(html).not.toMatch(/<script>|<style>| on[a-z]+=/);
    }
    expect(csp).not.toContain('unsafe');
    expect(csp).toContain(`connect-src 'self' ${services.url};`);
    expect(csp).toContain(`frame-src ${services.url};`);
  });

  it("serves auth0-spa-js's browser build from its own origin (no CDN)", async () => {
    const res = await fetch(`${app.url}/auth0-spa-js.production.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
    expect(await res.text()).toBe(readFileSync(AUTH0_SPA_JS_PATH, 'utf8'));
  });

  it("forwards the page's bearer token to the airport API and relays its answer unchanged", async () => {
    const res = await fetch(`${app.url}/api/airportName?iataCode=SFO&extra=dropped`, { headers: { authorization: 'Bearer good-token' } });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('San Francisco International Airport');
    const forwarded = services.requests.at(-1)!;
    expect(forwarded.url).toBe('/airportName?iataCode=SFO');
    expect(forwarded.headers.authorization).toBe('Bearer good-token');
  });

  it("relays the airport API's refusal of a call without a token, status and body", async () => {
    const res = await fetch(`${app.url}/api/airportName?iataCode=SFO`);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ code: 16, message: 'JWT validation failed: Missing or invalid credentials' });
    expect(services.requests.at(-1)!.headers.authorization).toBeUndefined();
  });

  it('answers 404 for other paths and 405 for other methods', async () => {
    expect((await fetch(`${app.url}/admin`)).status).toBe(404);
    const post = await fetch(`${app.url}/api/airportName`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('answers 502 naming the service when the airport API does not answer', async () => {
    const port = await freePort();
    const appUrl = `http://127.0.0.1:${port}`;
    const deadApi = `http://127.0.0.1:${await freePort()}`;
    const orphan = await startDemoApp({ port, appUrl, callbackUrl: `${appUrl}/callback`, authUrl: deadApi, apiUrl: deadApi, clientId: 'c', audience: 'a', connection: 'sms' });
    try {
      const res = await fetch(`${appUrl}/api/airportName?iataCode=SFO`, { headers: { authorization: 'Bearer good-token' } });
      expect(res.status).toBe(502);
      expect(await res.json()).toMatchObject({ error: 'bad_gateway', error_description: expect.stringContaining(`${deadApi} did not answer`) });
    } finally {
      await orphan.close();
    }
  });
});
