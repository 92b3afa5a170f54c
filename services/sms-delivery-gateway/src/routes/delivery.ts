import { DeliveryRequestSchema, ErrorCodes, IdempotencyKeySchema, MESSAGE_ID_HEADER } from '@smsauth/contracts';
import { HttpError, parseOrThrow } from '@smsauth/service-kit';
import type { Express, RequestHandler } from 'express';
import type { DeliveryService } from '../domain/deliver';

export interface DeliveryRouteOptions {
  delivery: DeliveryService;
  /** IP allow-list and token check, in that order; empty when neither is configured. */
  guards: RequestHandler[];
}

/** `POST /sms` (spec 4.4): 200 with an empty body once a provider accepted the message; the message id in SMS-Message-Id. */
export function mountDeliveryRoute(app: Express, { delivery, guards }: DeliveryRouteOptions): void {
  app.post('/sms', ...guards, async (req, res) => {
    if (!isJsonObject(req.body)) {
      throw new HttpError(400, ErrorCodes.INVALID_REQUEST, 'The request body must be a JSON object (Content-Type: application/json)');
    }
    const message = parseOrThrow(DeliveryRequestSchema, req.body);
    const idempotencyKey = readIdempotencyKey(req.get('idempotency-key'));

    const { outcome, replayed } = await delivery.deliver(message, idempotencyKey);
    if (replayed) res.setHeader('Idempotent-Replayed', 'true');
    res.setHeader(MESSAGE_ID_HEADER, outcome.id);
    if (outcome.delivered) {
      res.status(200).end();
      return;
    }
    // Rendered here rather than thrown: the error handler would log the provider's text unmasked.
    res.status(500).json({ error: ErrorCodes.PROVIDER_ERROR, error_description: outcome.description });
  });
}

function readIdempotencyKey(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const result = IdempotencyKeySchema.safeParse(header);
  if (!result.success) {
    throw new HttpError(400, ErrorCodes.INVALID_REQUEST, `Idempotency-Key header: ${result.error.issues[0]?.message ?? 'invalid'}`, {
      details: [{ path: 'Idempotency-Key', message: result.error.issues[0]?.message ?? 'invalid' }],
    });
  }
  return result.data;
}

/** express.json leaves the body undefined for other content types and accepts arrays. */
function isJsonObject(body: unknown): body is Record<string, unknown> {
  return typeof body === 'object' && body !== null && !Array.isArray(body);
}
