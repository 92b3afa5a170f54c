import { Router } from 'express';
import { startPasswordless, type StartDependencies } from '../domain/passwordless/start';
import { requestLanguage } from './request-language';

function firstHeader(value: string | string[] | undefined): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  const trimmed = first?.trim();
  return trimmed ? trimmed : undefined;
}

/** `POST /passwordless/start` (spec 4.2). */
export function passwordlessRouter(deps: StartDependencies): Router {
  const router = Router();
  router.post('/passwordless/start', async (req, res) => {
    const response = await startPasswordless(deps, {
      body: req.body,
      ip: req.ip ?? '',
      userAgent: firstHeader(req.headers['user-agent']),
      requestLanguage: requestLanguage(req),
      setHeaders: (headers) => res.set({ ...headers }),
      clientAuthentication: { headers: req.headers },
      idempotencyKey: req.get('idempotency-key'),
      replayed: () => res.set('Idempotent-Replayed', 'true'),
    });
    res.json(response);
  });
  return router;
}
