import { dirname } from 'node:path';
import { Router, type Response } from 'express';
import { escapeHtml, htmlPage } from './html';

/**
 * The reference page (`GET /docs`): Swagger UI (swagger-ui-dist, which renders Swagger 2.0 and
 * OpenAPI 3.0/3.1) served from the installed package, never from a CDN. The page, its init
 * script and the renderer's files all come from this origin, so the policy allows nothing else:
 * no inline script or style, no eval, no third-party host. connect-src 'self' lets the page fetch
 * the service's own document (and "Try it out" call the service itself).
 */
export const API_DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The only renderer files the page loads; nothing else in the package is served. */
const RENDERER_ASSETS: Record<string, string> = {
  'swagger-ui-bundle.js': 'application/javascript',
  'swagger-ui.css': 'text/css',
  'favicon-32x32.png': 'image/png',
};

/** Reads the document URL from the page (no inline script) and starts Swagger UI on it. */
const INIT_SCRIPT = `'use strict';
(function () {
  var root = document.getElementById('swagger-ui');
  window.ui = SwaggerUIBundle({
    url: root.getAttribute('data-document-url'),
    dom_id: '#swagger-ui',
    deepLinking: false,
    validatorUrl: null,
    tryItOutEnabled: false
  });
})();
`;

export interface ApiDocsOptions {
  /** The page title, e.g. `sms-delivery-gateway API`. */
  title: string;
  /** Where the service serves its own document (same origin), e.g. `/openapi.json`. */
  documentUrl: string;
}

let rendererDirectory: string | undefined;
function rendererDir(): string {
  rendererDirectory ??= dirname(require.resolve('swagger-ui-dist/package.json'));
  return rendererDirectory;
}

function securityHeaders(res: Response): Response {
  return res.set({
    'Content-Security-Policy': API_DOCS_CSP,
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
  });
}

/** The HTML of `GET /docs`: every URL in it is a path on this origin. */
function apiDocsPage({ title, documentUrl }: ApiDocsOptions): string {
  return htmlPage({
    title,
    head: `<link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">`,
    body: `<div id="swagger-ui" data-document-url="${escapeHtml(documentUrl)}"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>`,
  });
}

/**
 * `GET /docs` (the page), `GET /docs/init.js` (its start-up script) and `GET /docs/assets/:file`
 * (Swagger UI's bundle, stylesheet and icon from node_modules), each under API_DOCS_CSP.
 * Mount it only when apiDocsEnabled(config) says so.
 */
export function apiDocsRouter(options: ApiDocsOptions): Router {
  const page = apiDocsPage(options);
  const router = Router();

  router.get('/docs', (_req, res) => {
    securityHeaders(res).set('Cache-Control', 'no-cache').type('html').send(page);
  });

  router.get('/docs/init.js', (_req, res) => {
    securityHeaders(res).set('Cache-Control', 'no-cache').type('application/javascript').send(INIT_SCRIPT);
  });

  router.get('/docs/assets/:file', (req, res, next) => {
    const file = req.params.file;
    const type = Object.hasOwn(RENDERER_ASSETS, file) ? RENDERER_ASSETS[file] : undefined;
    if (type === undefined) {
      next();
      return;
    }
    securityHeaders(res);
    // `root`: the package lives under node_modules/.pnpm, a dot directory send() would refuse.
    const headers = { 'Content-Type': type, 'Cache-Control': 'public, max-age=3600' };
    res.sendFile(file, { root: rendererDir(), headers }, (err) => {
      if (err) next(err);
    });
  });

  return router;
}

/** API_DOCS wins when set; unset, the reference page is on everywhere but in production. */
export function apiDocsEnabled(config: { API_DOCS?: boolean | undefined; NODE_ENV?: string | undefined }): boolean {
  return config.API_DOCS ?? config.NODE_ENV !== 'production';
}
