import { createServer, type IncomingMessage, type OutgoingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import { DEMO_APP_SCRIPT, DEMO_APP_STYLES, demoAppCsp, demoAppPage, type DemoAppPageSettings } from './demo-app-page';

/** auth0-spa-js's browser build (a UMD defining window.auth0), served from the demo app's origin. */
export const AUTH0_SPA_JS_PATH = require.resolve('@auth0/auth0-spa-js/dist/auth0-spa-js.production.js');

export interface DemoAppOptions extends Omit<DemoAppPageSettings, 'appUrl'> {
  port: number;
  /** The demo app's public origin, e.g. http://localhost:4300. */
  appUrl: string;
  /** The airport API's base URL, e.g. http://localhost:4200. */
  apiUrl: string;
}

export interface RunningDemoApp {
  url: string;
  close(): Promise<void>;
}

const SECURITY_HEADERS: OutgoingHttpHeaders = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

function send(res: ServerResponse, status: number, contentType: string, body: string | Buffer, headers: OutgoingHttpHeaders = {}): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': contentType, ...headers });
  res.end(body);
}

/**
 * Relays one answer of another service to the page, status and body unchanged. The page cannot
 * ask the airport API itself: it answers no CORS requests.
 */
async function relay(res: ServerResponse, url: string, headers: Record<string, string>): Promise<void> {
  let upstream: Response;
  try {
    upstream = await fetch(url, { headers, signal: AbortSignal.timeout(10_000) });
  } catch (err) {
    send(res, 502, 'application/json', JSON.stringify({ error: 'bad_gateway', error_description: `${new URL(url).origin} did not answer: ${(err as Error).message}` }));
    return;
  }
  send(res, upstream.status, upstream.headers.get('content-type') ?? 'text/plain', await upstream.text());
}

/**
 * The demo web app's server: the page at `/` and at its callback `/callback`, the page's script,
 * auth0-spa-js's browser build and the stylesheet, and `/api/airportName` forwarding the page's
 * `Authorization` header to the airport API. No token is kept or logged here.
 */
export function demoAppHandler(options: DemoAppOptions): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const page = demoAppPage(options);
  const csp = { 'content-security-policy': demoAppCsp(options.authUrl) };
  const spaJs = readFileSync(AUTH0_SPA_JS_PATH);
  const callbackPath = new URL(options.callbackUrl).pathname;
  return async (req, res) => {
    const url = new URL(req.url ?? '/', options.appUrl);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(res, 405, 'text/plain', 'Method not allowed', { allow: 'GET, HEAD' });
      return;
    }
    if (url.pathname === '/' || url.pathname === callbackPath) {
      send(res, 200, 'text/html; charset=utf-8', page, csp);
    } else if (url.pathname === '/demo-app.js') {
      send(res, 200, 'application/javascript; charset=utf-8', DEMO_APP_SCRIPT);
    } else if (url.pathname === '/auth0-spa-js.production.js') {
      send(res, 200, 'application/javascript; charset=utf-8', spaJs);
    } else if (url.pathname === '/demo-app.css') {
      send(res, 200, 'text/css; charset=utf-8', DEMO_APP_STYLES);
    } else if (url.pathname === '/api/airportName') {
      const query = new URLSearchParams({ iataCode: url.searchParams.get('iataCode') ?? '' });
      const authorization = req.headers.authorization;
      await relay(res, `${options.apiUrl}/airportName?${query.toString()}`, authorization ? { authorization } : {});
    } else if (url.pathname === '/favicon.ico') {
      send(res, 204, 'text/plain', '');
    } else {
      send(res, 404, 'text/plain', 'Not found');
    }
  };
}

/** Serves the demo web app on 127.0.0.1:port. */
export async function startDemoApp(options: DemoAppOptions): Promise<RunningDemoApp> {
  const handle = demoAppHandler(options);
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) send(res, 500, 'text/plain', `demo app error: ${(err as Error).message}`);
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  return {
    url: options.appUrl,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
