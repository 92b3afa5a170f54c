import { Router } from 'express';
import { revokeRefreshToken, type RevokeDependencies } from '../domain/oauth/revoke';

/** `POST /oauth/revoke` (JSON or form): 200 with an empty body whenever the client authenticated. */
export function oauthRevokeRouter(deps: RevokeDependencies): Router {
  const router = Router();
  router.post('/oauth/revoke', async (req, res) => {
    res.set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' });
    await revokeRefreshToken(deps, { body: req.body ?? {}, headers: req.headers });
    res.status(200).end();
  });
  return router;
}
