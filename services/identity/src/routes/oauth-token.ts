import { ErrorCodes } from '@smsauth/contracts';
import { HttpError } from '@smsauth/service-kit';
import { Router } from 'express';
import type { TokenGrantRegistry } from '../domain/oauth/token-grants';

/** `POST /oauth/token` (JSON or form): dispatches on grant_type to the registered grant. */
export function oauthTokenRouter(grants: TokenGrantRegistry): Router {
  const router = Router();
  router.post('/oauth/token', async (req, res) => {
    // RFC 6749 5.1: token responses (and errors) must not be cached.
    res.set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' });
    const body: unknown = req.body ?? {};
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new HttpError(400, ErrorCodes.INVALID_REQUEST, 'The request body must be a JSON object or a form');
    }
    const grantType = (body as Record<string, unknown>).grant_type;
    if (typeof grantType !== 'string' || grantType === '') {
      throw new HttpError(400, ErrorCodes.INVALID_REQUEST, 'Missing required parameter: grant_type');
    }
    const handler = grants.handlerFor(grantType);
    if (!handler) throw new HttpError(400, ErrorCodes.UNSUPPORTED_GRANT_TYPE, `Unsupported grant type: ${grantType}`);
    res.json(await handler({ body: body as Record<string, unknown>, headers: req.headers, ip: req.ip ?? '' }));
  });
  return router;
}
