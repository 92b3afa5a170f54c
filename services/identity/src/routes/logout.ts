import { htmlPage } from '@smsauth/service-kit';
import { Router } from 'express';
import { logoutOutcome } from '../domain/oauth/logout';
import type { IdentityStore } from '../store';
import { errorPage } from './authorize/views';

/**
 * `GET /v2/logout?client_id=…&returnTo=…`. The hosted login keeps no session (only a cookie
 * per unfinished login, bound to that login), so there is no session cookie to clear.
 */
export function logoutRouter(deps: { store: IdentityStore }): Router {
  const router = Router();
  router.get('/v2/logout', async (req, res) => {
    res.set('Cache-Control', 'no-store');
    const outcome = await logoutOutcome(deps.store, req.query);
    if (outcome.kind === 'redirect') return res.redirect(302, outcome.location);
    if (outcome.kind === 'refused') return res.status(400).type('html').send(errorPage('invalid_request', outcome.description));
    res.status(200).type('html').send(htmlPage({ title: 'Signed out', body: '<h1>Signed out</h1>\n<p>You are signed out.</p>' }));
  });
  return router;
}
