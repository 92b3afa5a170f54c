import { DeliveryRequestSchema, IdempotencyKeySchema, MESSAGE_ID_HEADER, PROVIDER_HEADER } from '@smsauth/contracts';
import { defineOperation, type Operation } from '@smsauth/service-kit';
import { z } from 'zod';
import type { DeliveryService } from '../domain/deliver';
import { providerErrorBody } from '../domain/errors';
import { refusal } from './refusals';

export const DELIVERY_TAG = 'Delivery';
/** The bearer delivery token (GATEWAY_AUTH_SECRET), when authentication is on. */
export const DELIVERY_TOKEN_SCHEME = 'deliveryToken';

const DeliveryHeadersSchema = z.object({ 'Idempotency-Key': IdempotencyKeySchema.optional() });

/** `POST /sms` (spec 4.4): 200 with an empty body once a provider accepted the message; the message id in SMS-Message-Id. */
export function deliveryOperation(delivery: DeliveryService, authEnabled: boolean): Operation {
  return defineOperation({
    method: 'post',
    path: '/sms',
    operationId: 'deliverSms',
    tags: [DELIVERY_TAG],
    summary: 'Deliver one SMS (the identity service calls this for every one-time code)',
    ...(authEnabled ? { security: [{ [DELIVERY_TOKEN_SCHEME]: [] }] } : {}),
    headers: DeliveryHeadersSchema,
    headerDescriptions: {
      'Idempotency-Key':
        'Repeating a delivery with the same key within 10 minutes returns the first outcome without sending again (`Idempotent-Replayed: true`). With REDIS_URL, on any replica; while Redis is unreachable (degraded mode), on the replica that sent it only.',
    },
    body: { schema: DeliveryRequestSchema, component: 'DeliveryRequest' },
    responses: {
      '200': {
        description: 'A provider of the recipient’s route accepted the message. Empty body.',
        headers: {
          [MESSAGE_ID_HEADER]: { description: 'The message id, for GET /messages/{id}.', schema: { type: 'string' } },
          [PROVIDER_HEADER]: { description: 'The provider instance that accepted the message (SMS_PROVIDER or an SMS_PROVIDER_INSTANCES name), for per-provider figures.', schema: { type: 'string' } },
        },
      },
      '400': refusal('Invalid body or Idempotency-Key; `details` names each field.'),
      '401': refusal('Missing or invalid bearer token (with WWW-Authenticate: Bearer).'),
      '403': refusal('Caller address not in ALLOWED_IPS.'),
      '413': refusal('Body over 100 kB.'),
      '422': refusal('Idempotency-Key already used for a different message.'),
      '409': refusal('With REDIS_URL: a delivery with this Idempotency-Key is still in progress on another replica after 25 s; retry with the same key.'),
      '500': refusal(
        '`provider_error`: a provider refused the message (4xx), or every provider of the route failed or was skipped; the description gives the reason. Carries SMS-Message-Id too.',
      ),
    },
    handle: async ({ body, headers, res }) => {
      const { outcome, replayed } = await delivery.deliver(body, headers['Idempotency-Key']);
      if (replayed) res.setHeader('Idempotent-Replayed', 'true');
      res.setHeader(MESSAGE_ID_HEADER, outcome.id);
      if (outcome.delivered) {
        res.setHeader(PROVIDER_HEADER, outcome.provider);
        return;
      }
      // Rendered here rather than thrown: the error handler would log the provider's text unmasked.
      res.status(500).json(providerErrorBody(outcome.description));
    },
  });
}
