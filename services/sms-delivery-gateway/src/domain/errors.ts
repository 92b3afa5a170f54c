import { ErrorCodes, type OAuthErrorBody } from '@smsauth/contracts';
import { HttpError } from '@smsauth/service-kit';
import type { ReceiptResult } from './message-statuses';

// Every refusal the gateway answers, built here: its status, its code and its words. Routes and
// the domain throw these; the kit's error handler renders them. (The store's 503 while Redis is
// unreachable is the store's own, SharedStoreUnavailableError: the store may not import the
// domain; degraded mode catches it before it reaches a caller.)

/** A delivery token refused (401); `tokenPresented` picks the WWW-Authenticate form (RFC 6750 §3). */
export class DeliveryAuthError extends HttpError {
  constructor(
    public readonly reason: string,
    description: string,
    tokenPresented: boolean,
  ) {
    super(401, ErrorCodes.INVALID_TOKEN, description, {
      headers: { 'WWW-Authenticate': tokenPresented ? 'Bearer error="invalid_token"' : 'Bearer' },
    });
    this.name = 'DeliveryAuthError';
  }
}

/** 403: the caller's address is not in ALLOWED_IPS. */
export const callerNotAllowed = (): HttpError => new HttpError(403, ErrorCodes.FORBIDDEN, 'The caller address is not allowed to use this gateway');

/** 401: the outbox API without OUTBOX_TOKEN, or with another token. */
export const outboxTokenRefused = (tokenPresented: boolean): HttpError =>
  new HttpError(401, ErrorCodes.INVALID_TOKEN, tokenPresented ? 'The outbox token is wrong' : 'Authorization: Bearer <OUTBOX_TOKEN> is required', {
    headers: { 'WWW-Authenticate': tokenPresented ? 'Bearer error="invalid_token"' : 'Bearer' },
  });

/** 400: `POST /sms` without a JSON object (express.json leaves other types unparsed and accepts arrays). */
export const deliveryBodyNotJsonObject = (): HttpError =>
  new HttpError(400, ErrorCodes.INVALID_REQUEST, 'The request body must be a JSON object (Content-Type: application/json)');

/** 422: the Idempotency-Key was used for a different message. */
export const idempotencyKeyReused = (): HttpError =>
  new HttpError(422, ErrorCodes.INVALID_REQUEST, 'This Idempotency-Key was already used for a different message; use a new key per message');

/** 409: another replica still runs the delivery with this Idempotency-Key. */
export const idempotencyKeyInProgress = (): HttpError =>
  new HttpError(409, ErrorCodes.INVALID_REQUEST, 'A delivery with this Idempotency-Key is still in progress; retry later with the same key');

/** 404: no status for this message id (statuses are kept 24 hours). */
export const messageNotFound = (): HttpError => new HttpError(404, ErrorCodes.NOT_FOUND, 'No message with this id (statuses are kept 24 hours)');

/** A delivery receipt that was not recorded, by why. */
export function receiptRefused(result: Exclude<ReceiptResult, { kind: 'recorded' | 'acknowledged' }>): HttpError {
  switch (result.kind) {
    case 'unknown_provider':
      return new HttpError(404, ErrorCodes.NOT_FOUND, 'This provider sends no delivery receipts');
    case 'unsigned':
      return new HttpError(403, ErrorCodes.FORBIDDEN, 'The delivery receipt is not signed');
    case 'bad_signature':
      return new HttpError(403, ErrorCodes.FORBIDDEN, 'The delivery receipt signature does not verify');
    case 'invalid':
      return new HttpError(400, ErrorCodes.INVALID_REQUEST, result.description);
    case 'unknown_message':
      return new HttpError(404, ErrorCodes.NOT_FOUND, 'No message with this id was accepted by this provider');
  }
}

/**
 * The 500 `provider_error` body of a delivery no provider accepted. Rendered by the route, not
 * thrown: the kit's error handler would log the provider's text, which may echo the message.
 */
export const providerErrorBody = (description: string): OAuthErrorBody => ({ error: ErrorCodes.PROVIDER_ERROR, error_description: description });
