import { Router } from 'express';
import { startPasswordless, type StartDependencies } from '../domain/passwordless/start';

function firstHeader(value: string | string[] | undefined): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  const trimmed = first?.trim();
  return trimmed ? trimmed : undefined;
}

/** A bare `*` (what fetch() sends by default) states no preference: the spec shows null then. */
function requestLanguage(headers: Record<string, string | string[] | undefined>): string | null {
  const value = firstHeader(headers['x-request-language']) ?? firstHeader(headers['accept-language']);
  return value === undefined || value === '*' ? null : value;
}

/** `POST /passwordless/start` (spec 4.2). */
export function passwordlessRouter(deps: StartDependencies): Router {
  const router = Router();
  router.post('/passwordless/start', async (req, res) => {
    const response = await startPasswordless(deps, {
      body: req.body,
      ip: req.ip ?? '',
      userAgent: firstHeader(req.headers['user-agent']),
      requestLanguage: requestLanguage(req.headers),
      setHeaders: (headers) => res.set({ ...headers }),
      clientAuthentication: { headers: req.headers },
    });
    res.json(response);
  });
  return router;
}
