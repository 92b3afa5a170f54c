import { defineOperation, parseCookies, type Operation } from '@smsauth/service-kit';
import type { Response } from 'express';
import { z } from 'zod';
import { secretsMatch } from '../domain/constant-time';
import { presentedOutboxToken } from '../domain/outbox-token';
import type { OutboxStore } from '../store/outbox-store';
import { OUTBOX_TAG, OUTBOX_TOKEN_SCHEME } from './outbox';
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

const html = (description: string) => ({ description, contentType: 'text/html', jsonSchema: { type: 'string' } });

/**
 * `GET /outbox`: the outbox as an HTML page a developer keeps open beside the login page.
 * A browser cannot send a bearer header, so with OUTBOX_TOKEN set the page (and only it)
 * also takes the token as `?token=` (kept out of the access log by the kit, which redacts
 * `token` query values) or as its cookie. A valid `?token=` is moved into an HttpOnly,
 * SameSite=Strict cookie and the browser redirected to the bare URL, so the token leaves
 * the address bar and history, and the page's reloads carry the cookie.
 */
export function outboxPageOperation(outbox: OutboxStore, token: string | undefined): Operation {
  return defineOperation({
    method: 'get',
    path: '/outbox',
    operationId: 'outboxPage',
    tags: [OUTBOX_TAG],
    summary: 'The outbox as a page for a browser, newest first',
    ...(token !== undefined ? { security: [{ [OUTBOX_TOKEN_SCHEME]: [] }] } : {}),
    query: z.object({ watch: z.string().optional(), token: z.string().optional() }),
    queryDescriptions: {
      watch: '`1`: the page reloads itself every few seconds.',
      token: 'With OUTBOX_TOKEN set: the token, moved into a cookie by a 303 to the bare URL (a browser cannot send the bearer header).',
    },
    responses: {
      '200': html('The page.'),
      '303': {
        description: 'The token was right: it is now the `outbox_token` cookie (Path=/outbox, HttpOnly, SameSite=Strict); the page is at the bare URL.',
        headers: { Location: { schema: { type: 'string' } }, 'Set-Cookie': { schema: { type: 'string' } } },
      },
      '401': html('With OUTBOX_TOKEN set: no token (bearer, cookie or `?token=`), or a wrong one; the page asks for it.'),
    },
    handle: ({ query, req, res }) => {
      if (token !== undefined) {
        if (query.token !== undefined) {
          if (!secretsMatch(query.token, token)) {
            req.log.warn({ tokenPresented: true }, 'outbox page refused');
            return sendHtml(res, 401, tokenPage(true));
          }
          res.append(
            'Set-Cookie',
            `${OUTBOX_TOKEN_COOKIE}=${encodeURIComponent(query.token)}; Path=/outbox; HttpOnly; SameSite=Strict${req.secure ? '; Secure' : ''}`,
          );
          return void res.status(303).set('Cache-Control', 'no-store').location('/outbox').end();
        }
        const presented = presentedOutboxToken(req.headers.authorization) ?? parseCookies(req.headers.cookie)[OUTBOX_TOKEN_COOKIE];
        if (presented === undefined || !secretsMatch(presented, token)) {
          req.log.warn({ tokenPresented: presented !== undefined }, 'outbox page refused');
          return sendHtml(res, 401, tokenPage(presented !== undefined));
        }
      }
      sendHtml(res, 200, outboxPage(outbox.list(), query.watch === '1'));
    },
  });
}
