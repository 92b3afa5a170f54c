import { parseCookies } from '@smsauth/service-kit';
import type { Express, Request, Response } from 'express';
import { secretsMatch } from '../domain/constant-time';
import { presentedOutboxToken } from '../domain/outbox-token';
import type { OutboxStore } from '../store/outbox-store';
import { OUTBOX_PAGE_CSP, outboxPage, tokenPage } from './outbox-page-view';

/** Holds OUTBOX_TOKEN for the page's own reloads; sent back only to /outbox. */
export const OUTBOX_TOKEN_COOKIE = 'outbox_token';


function sendHtml(res: Response, status: number, html: string): void {
  res
    .status(status)
    .set({
      'Content-Security-Policy': OUTBOX_PAGE_CSP,
      'X-Frame-Options': 'DENY',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      // The page shows one-time codes.
      'Cache-Control': 'no-store',
    })
    .type('html')
    .send(html);
}

/**
 * `GET /outbox`: the outbox as an HTML page a developer keeps open beside the login page.
 * A browser cannot send a bearer header, so with OUTBOX_TOKEN set the page (and only it)
 * also takes the token as `?token=` (kept out of the access log by the kit, which redacts
 * `token` query values) or as its cookie. A valid `?token=` is moved into an HttpOnly,
 * SameSite=Strict cookie and the browser redirected to the bare URL, so the token leaves
 * the address bar and history, and the page's reloads carry the cookie.
 */
export function mountOutboxPage(app: Express, { outbox, token }: { outbox: OutboxStore; token?: string }): void {
  app.get('/outbox', (req: Request, res: Response) => {
    if (token !== undefined) {
      const fromQuery = typeof req.query.token === 'string' ? req.query.token : undefined;
      if (fromQuery !== undefined) {
        if (!secretsMatch(fromQuery, token)) {
          req.log.warn({ tokenPresented: true }, 'outbox page refused');
          return sendHtml(res, 401, tokenPage(true));
        }
        res.append(
          'Set-Cookie',
          `${OUTBOX_TOKEN_COOKIE}=${encodeURIComponent(fromQuery)}; Path=/outbox; HttpOnly; SameSite=Strict${req.secure ? '; Secure' : ''}`,
        );
        return res.status(303).set('Cache-Control', 'no-store').location('/outbox').end();
      }
      const presented = presentedOutboxToken(req.headers.authorization) ?? parseCookies(req.headers.cookie)[OUTBOX_TOKEN_COOKIE];
      if (presented === undefined || !secretsMatch(presented, token)) {
        req.log.warn({ tokenPresented: presented !== undefined }, 'outbox page refused');
        return sendHtml(res, 401, tokenPage(presented !== undefined));
      }
    }
    sendHtml(res, 200, outboxPage(outbox.list(), req.query.watch === '1'));
  });
}
