import { htmlPage } from '@smsauth/service-kit';
import { Router, type Request, type Response } from 'express';
import { logoutOutcome, oidcLogoutOutcome, type LogoutDependencies, type LogoutOutcome } from '../domain/oauth/logout';
import { clearSessionCookie, sessionCookie } from './authorize/http';
import { errorPage } from './authorize/views';

/**
 * `GET /v2/logout?client_id=…&returnTo=…` (Auth0's) and `GET /oidc/logout` (OpenID Connect
 * RP-initiated logout, the discovery's end_session_endpoint): both end the browser's login
 * session and clear its cookie, then go back to an allowed URL or show "signed out".
 */
export function logoutRouter(deps: LogoutDependencies & { secureCookies: boolean }): Router {
  const router = Router();
  const answer = (res: Response, outcome: LogoutOutcome) => {
    res.set('Cache-Control', 'no-store');
    if (outcome.kind === 'refused') return res.status(400).type('html').send(errorPage('invalid_request', outcome.description));
    clearSessionCookie(res, deps.secureCookies);
    if (outcome.kind === 'redirect') return res.redirect(302, outcome.location);
    res.status(200).type('html').send(htmlPage({ title: 'Signed out', body: '<h1>Signed out</h1>\n<p>You are signed out.</p>' }));
  };
  const caller = (req: Request) => ({ sessionSecret: sessionCookie(req), ip: req.ip ?? '', userAgent: req.headers['user-agent'] });
  router.get('/v2/logout', async (req, res) => {
    answer(res, await logoutOutcome(deps, req.query, caller(req)));
  });
  router.get('/oidc/logout', async (req, res) => {
    answer(res, await oidcLogoutOutcome(deps, req.query, caller(req)));
  });
  return router;
}
