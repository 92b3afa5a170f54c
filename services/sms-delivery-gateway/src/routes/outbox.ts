import { OutboxQuerySchema } from '@smsauth/contracts';
import { parseOrThrow } from '@smsauth/service-kit';
import type { Express, RequestHandler } from 'express';
import type { OutboxStore } from '../store/outbox-store';

/**
 * `GET /outbox/messages?recipient=` (newest first) and `DELETE /outbox/messages`.
 * Messages hold one-time codes: never cached.
 */
export function mountOutboxRoutes(app: Express, { outbox, guards }: { outbox: OutboxStore; guards: RequestHandler[] }): void {
  app.get('/outbox/messages', ...guards, (req, res) => {
    const query = parseOrThrow(OutboxQuerySchema, { recipient: restorePlus(req.query.recipient) });
    res.setHeader('Cache-Control', 'no-store');
    res.json(outbox.list(query.recipient));
  });

  app.delete('/outbox/messages', ...guards, (_req, res) => {
    outbox.clear();
    res.status(204).end();
  });
}

/** An unencoded `+` in a query string decodes to a space; `?recipient=+1415...` still means the number. */
function restorePlus(value: unknown): unknown {
  return typeof value === 'string' && /^ \d/.test(value) ? `+${value.slice(1)}` : value;
}
