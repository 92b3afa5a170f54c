import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import express, { Router, type Response } from 'express';
import { HttpError } from '@smsauth/service-kit';
import { consoleClientOf, type ConsoleSettings } from '../domain/console/client';
import type { IdentityStore } from '../store';

/** Where the console is served. */
export const CONSOLE_PATH = '/console';

/**
 * The console's policy: its script, styles and token worker from this origin only; it calls this
 * origin only (the management API, /oauth/token) and frames only this origin (the hosted login's
 * silent prompt=none answer) and the Branding screen's srcdoc preview; nothing inline, no eval,
 * framed by nobody. A srcdoc frame inherits this policy, so the preview of a draft brand can
 * show its logo and font only if they may load here: images and fonts from https origins (a
 * brand's URLs are https only). They carry no script; scripts and styles stay this origin's.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: https:",
  "font-src https:",
  "connect-src 'self'",
  "worker-src 'self'",
  "frame-src 'self'",
  "base-uri 'self'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export interface ConsoleRouterOptions {
  store: IdentityStore;
  authUrl: string;
  managementAudience: string;
  /** packages/console's dist directory (index.html and assets/). */
  distDir: string;
}

function securityHeaders(res: Response): Response {
  return res.set({
    'Content-Security-Policy': CONSOLE_CSP,
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
  });
}

/**
 * `/console`: the built single-page app (hashed assets cached for a year, index.html never),
 * `/console/config.json` telling it where to sign in (which it would read from a file of its
 * own when hosted elsewhere), and index.html for any other path below (the callback path).
 */
export function consoleRouter(options: ConsoleRouterOptions): Router {
  // Strict: `/console` (redirected) and `/console/` (the page) are different paths.
  const router = Router({ strict: true });
  const consoleUrl = `${options.authUrl}${CONSOLE_PATH}/`;
  const indexPath = join(options.distDir, 'index.html');
  let indexHtml: string | undefined;
  const page = (_req: unknown, res: Response) => {
    if (!existsSync(indexPath)) {
      throw new HttpError(503, 'temporarily_unavailable', 'The console is not built: run `pnpm build` (packages/console)');
    }
    indexHtml ??= readFileSync(indexPath, 'utf8');
    securityHeaders(res).set('Cache-Control', 'no-store').type('html').send(indexHtml);
  };

  router.get(CONSOLE_PATH, (_req, res) => res.redirect(301, `${CONSOLE_PATH}/`));
  router.get(`${CONSOLE_PATH}/config.json`, async (_req, res) => {
    const client = await consoleClientOf(options.store, consoleUrl);
    securityHeaders(res).set('Cache-Control', 'no-store');
    if (!client) {
      throw new HttpError(
        503,
        'console_client_missing',
        `No SPA client has a callback under ${consoleUrl}: restart identity (every start creates the console's client again) or create a spa client with that callback and web origin ${options.authUrl}`,
      );
    }
    res.json({ domain: options.authUrl, client_id: client.clientId, audience: options.managementAudience, redirect_uri: client.redirectUri } satisfies ConsoleSettings);
  });
  router.use(
    `${CONSOLE_PATH}/assets`,
    express.static(join(options.distDir, 'assets'), {
      immutable: true,
      maxAge: '365d',
      index: false,
      setHeaders: (res) => securityHeaders(res as Response),
    }),
  );
  router.use(`${CONSOLE_PATH}/assets`, () => {
    throw new HttpError(404, 'not_found', 'No such console asset');
  });
  router.get(`${CONSOLE_PATH}/`, page);
  router.get(`${CONSOLE_PATH}/*rest`, page);
  return router;
}
