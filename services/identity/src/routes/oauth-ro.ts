import { Router } from 'express';
import type { PasswordlessExchangeDependencies } from '../domain/oauth/passwordless-exchange';
import { resourceOwnerLogin } from '../domain/oauth/resource-owner';

/** `POST /oauth/ro` (spec 4.3), JSON or form. */
export function oauthRoRouter(deps: PasswordlessExchangeDependencies): Router {
  const router = Router();
  router.post('/oauth/ro', async (req, res) => {
    // Token responses (and errors) must not be cached (RFC 6749 §5.1).
    res.set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' });
    res.json(await resourceOwnerLogin(deps, { body: req.body ?? {}, headers: req.headers, ip: req.ip ?? '' }));
  });
  return router;
}
