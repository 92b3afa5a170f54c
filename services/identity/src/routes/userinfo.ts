import type { Clock } from '@smsauth/service-kit';
import { Router } from 'express';
import { userInfo } from '../domain/oauth/userinfo';
import type { TokenVerifier } from '../domain/tokens/verifier';
import type { IdentityStore } from '../store';

/** `GET /userinfo` with a bearer access token issued here (header, or `access_token` in the query). */
export function userinfoRouter(deps: { store: IdentityStore; verifier: TokenVerifier; clock: Clock }): Router {
  const router = Router();
  router.get('/userinfo', async (req, res) => {
    res.set('Cache-Control', 'no-store');
    // The token may also come as ?access_token= (RFC 6750 §2.3), as Auth0 accepts and passport-auth0 sends it.
    const queryToken = typeof req.query.access_token === 'string' && !req.headers.authorization ? `Bearer ${req.query.access_token}` : undefined;
    res.json(await userInfo(deps, req.headers.authorization ?? queryToken));
  });
  return router;
}
