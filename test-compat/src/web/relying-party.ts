import { createServer, type Server } from 'node:https';
import { join } from 'node:path';
import express, { type Express, type Response } from 'express';
import { freePort } from '@smsauth/stack';
import { createLocalCertificate } from '../tls';

/** The browser builds of the libraries, as an app would bundle or copy them (never from a CDN). */
export const BROWSER_BUILDS = {
  'auth0-spa-js.js': inNodeModules('@auth0/auth0-spa-js/dist/auth0-spa-js.production.js'),
  'oidc-client-ts.js': inNodeModules('oidc-client-ts/dist/browser/oidc-client-ts.min.js'),
  'auth0.js': inNodeModules('auth0-js/dist/auth0.min.js'),
};

// By path: the packages' "exports" do not list their browser builds.
function inNodeModules(path: string): string {
  return join(__dirname, '..', '..', 'node_modules', path);
}

/**
 * A relying party: an app on https://localhost:<port> of its own, with the routes `mount` gives
 * it. Browser apps get the libraries' builds under /lib/ and a page helper; server apps use the
 * libraries in this process. https because the libraries and the login session cookie expect it
 * (spa-js needs a secure context; express-openid-connect's form_post needs SameSite=None cookies).
 */
export class RelyingParty {
  private constructor(
    private readonly server: Server,
    readonly origin: string,
  ) {}

  /** Serves `mount`'s routes at `origin` (from relyingPartyOrigin()). */
  static async start(origin: string, mount: (app: Express) => void | Promise<void>): Promise<RelyingParty> {
    const port = Number(new URL(origin).port);
    const app = express();
    app.set('trust proxy', false);
    app.get('/lib/:file', (req, res) => {
      const file = BROWSER_BUILDS[req.params.file as keyof typeof BROWSER_BUILDS];
      if (!file) return void res.status(404).end();
      res.type('application/javascript').sendFile(file);
    });
    app.get('/favicon.ico', (_req, res) => void res.status(204).end());
    await mount(app);
    const certificate = await createLocalCertificate();
    const server = createServer({ cert: certificate.cert, key: certificate.key }, app);
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    return new RelyingParty(server, origin);
  }

  url(path: string): string {
    return `${this.origin}${path}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** A free https://localhost:<port> origin, known before the app starts (its client needs its URLs). */
export async function relyingPartyOrigin(): Promise<string> {
  return `https://localhost:${await freePort()}`;
}

/**
 * A page that loads one library build and the test's script for it. The script reads its
 * settings from `window.settings` (JSON in a data attribute, never inline script).
 */
export function sendAppPage(res: Response, library: keyof typeof BROWSER_BUILDS, script: string, settings: object): void {
  const json = JSON.stringify(settings).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  res.type('html').set('cache-control', 'no-store').send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>App</title></head>
<body data-settings="${json}"><h1>Relying party</h1><pre id="out"></pre>
<script src="/lib/${library}"></script>
<script src="${script}"></script></body></html>`);
}

/** The first lines of each app script: its settings and a place to show results. */
export const PAGE_PRELUDE = `window.settings = JSON.parse(document.body.dataset.settings);
window.show = function (value) { document.getElementById('out').textContent = JSON.stringify(value, null, 2); return value; };
`;

declare global {
  /** What PAGE_PRELUDE defines in the page, for the tests' page.evaluate callbacks. */
  interface Window {
    settings: { origin: string };
    show<T>(value: T): T;
  }
}
