import type { Clock } from '@smsauth/service-kit';
import { Router } from 'express';
import { userInfo } from '../domain/oauth/userinfo';
import type { TokenVerifier } from '../domain/tokens/verifier';
import type { IdentityStore } from '../store';

/** `GET /userinfo` with a bearer access token issued here. */
export function userinfoRouter(deps: { store: IdentityStore; verifier: TokenVerifier; clock: Clock }): Router {
  const router = Router();
  router.get('/userinfo', async (req, res) => {
    res.set('Cache-Control', 'no-store');
    res.json(await userInfo(deps, req.headers.authorization));
  });
  return router;
}
