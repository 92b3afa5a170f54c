import { ErrorCodes } from '@smsauth/contracts';
import { HttpError, rawBodyOf } from '@smsauth/service-kit';
import express, { type Express, type Request, type RequestHandler } from 'express';
import type { MessageStatusService } from '../domain/message-statuses';

export interface MessageRoutesOptions {
  messageStatuses: MessageStatusService;
  /** The same guards as `POST /sms`. */
  guards: RequestHandler[];
  /** GATEWAY_PUBLIC_URL: receipts are received only when providers were told where to send them. */
  publicUrl?: string;
}

// Receipts are small: Twilio's status callback is well under 4 kB.
const readRawBody = express.raw({ type: () => true, limit: '64kb' });

/** `GET /messages/{id}` (a message's status) and `POST /receipts/{provider}/{id}` (signed delivery receipts). */
export function mountMessageRoutes(app: Express, { messageStatuses, guards, publicUrl }: MessageRoutesOptions): void {
  app.get('/messages/:id', ...guards, async (req, res) => {
    const record = await messageStatuses.get(String(req.params.id));
    if (!record) throw new HttpError(404, ErrorCodes.NOT_FOUND, 'No message with this id (statuses are kept 24 hours)');
    res.setHeader('cache-control', 'no-store');
    res.json(record);
  });

  if (publicUrl === undefined) return;
  app.post('/receipts/:provider/:id', readRawBody, async (req, res) => {
    const result = await messageStatuses.recordReceipt(String(req.params.provider), String(req.params.id), {
      // What the provider signed: the URL it was given, not what a proxy made of the Host header.
      url: `${publicUrl}${req.originalUrl}`,
      headers: req.headers,
      rawBody: bodyBytes(req),
    });
    switch (result.kind) {
      case 'unknown_provider':
        throw new HttpError(404, ErrorCodes.NOT_FOUND, 'This provider sends no delivery receipts');
      case 'unsigned':
        throw new HttpError(403, ErrorCodes.FORBIDDEN, 'The delivery receipt is not signed');
      case 'bad_signature':
        throw new HttpError(403, ErrorCodes.FORBIDDEN, 'The delivery receipt signature does not verify');
      case 'invalid':
        throw new HttpError(400, ErrorCodes.INVALID_REQUEST, result.description);
      case 'unknown_message':
        throw new HttpError(404, ErrorCodes.NOT_FOUND, 'No message with this id was accepted by this provider');
      case 'recorded':
        res.status(204).end();
    }
  });
}

/** The body's bytes: read here for forms and text, kept by the shared JSON parser for JSON. */
function bodyBytes(req: Request): Buffer {
  if (Buffer.isBuffer(req.body)) return req.body;
  return rawBodyOf(req) ?? Buffer.alloc(0);
}
