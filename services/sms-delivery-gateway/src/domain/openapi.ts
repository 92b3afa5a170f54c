import {
  DeliveryRequestSchema,
  MESSAGE_ID_HEADER,
  MessageStatusSchema,
  WebhookReceiptSchema,
  OAuthErrorBodySchema,
  OutboxMessageListSchema,
  OutboxMessageSchema,
  WebhookDeliverySchema,
  toJsonSchema,
} from '@smsauth/contracts';
import { withInputGuardRefusals } from '@smsauth/service-kit';
import type { z } from 'zod';

export interface OpenApiOptions {
  version: string;
  authEnabled: boolean;
  outboxRoutes: boolean;
  outboxTokenRequired: boolean;
  /** GATEWAY_PUBLIC_URL is set: providers send receipts to POST /receipts/{provider}/{id}. */
  receiptRoutes: boolean;
}

/** A component schema: the contracts JSON Schema without its `$schema` marker. */
function component(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = toJsonSchema(schema) as Record<string, unknown>;
  return rest;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: ref('ErrorBody') } },
});

/** The gateway's OpenAPI 3.1 document (`GET /openapi.json`), schemas from @smsauth/contracts. */
export function buildOpenApiDocument(options: OpenApiOptions): Record<string, unknown> {
  const paths: Record<string, unknown> = {
    '/sms': {
      post: {
        operationId: 'deliverSms',
        tags: ['Delivery'],
        summary: 'Deliver one SMS (the identity service calls this for every one-time code)',
        ...(options.authEnabled ? { security: [{ deliveryToken: [] }] } : {}),
        parameters: [
          {
            name: 'Idempotency-Key',
            in: 'header',
            required: false,
            description: 'Repeating a delivery with the same key within 10 minutes returns the first outcome without sending again.',
            schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$' },
          },
        ],
        requestBody: { required: true, content: { 'application/json': { schema: ref('DeliveryRequest') } } },
        responses: {
          '200': {
            description: 'A provider of the recipient’s route accepted the message. Empty body.',
            headers: { [MESSAGE_ID_HEADER]: { description: 'The message id, for GET /messages/{id}.', schema: { type: 'string' } } },
          },
          '400': errorResponse('Invalid body or Idempotency-Key; `details` names each field.'),
          '401': errorResponse('Missing or invalid bearer token (with WWW-Authenticate: Bearer).'),
          '403': errorResponse('Caller address not in ALLOWED_IPS.'),
          '413': errorResponse('Body over 100 kB.'),
          '422': errorResponse('Idempotency-Key already used for a different message.'),
          '409': errorResponse('With REDIS_URL: a delivery with this Idempotency-Key is still in progress on another replica after 25 s; retry with the same key.'),
          '500': errorResponse('`provider_error`: a provider refused the message (4xx), or every provider of the route failed or was skipped; the description gives the reason. Carries SMS-Message-Id too.'),
          '503': errorResponse('`service_unavailable`, with REDIS_URL: Redis cannot be reached, so a keyed delivery is not attempted (Retry-After: 2); retry with the same key.'),
        },
      },
    },
    '/messages/{id}': {
      get: {
        operationId: 'getMessageStatus',
        tags: ['Delivery'],
        summary: 'Where a message stands: accepted, sent, delivered, undelivered or failed (kept 24 hours)',
        ...(options.authEnabled ? { security: [{ deliveryToken: [] }] } : {}),
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '200': { description: 'The status', content: { 'application/json': { schema: ref('MessageStatus') } } },
          '400': errorResponse('The id is not valid percent-encoded text.'),
          '401': errorResponse('Missing or invalid bearer token.'),
          '403': errorResponse('Caller address not in ALLOWED_IPS.'),
          '404': errorResponse('No message with this id.'),
          '503': errorResponse('`service_unavailable`, with REDIS_URL: Redis cannot be reached (Retry-After: 2).'),
        },
      },
    },
  };
  if (options.receiptRoutes) {
    paths['/receipts/{provider}/{id}'] = {
      post: {
        operationId: 'receiveDeliveryReceipt',
        tags: ['Delivery receipts'],
        summary: 'A provider’s signed delivery receipt for one message (the URL each message was sent with)',
        description:
          'twilio: Twilio’s form-encoded status callback, verified with X-Twilio-Signature. webhook: a WebhookReceipt JSON body with `Webhook-Signature: sha256=<hex HMAC-SHA256 of the body keyed with WEBHOOK_CALLBACK_SECRET>`.',
        parameters: [
          { name: 'provider', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
          {
            name: 'X-Twilio-Signature',
            in: 'header',
            required: false,
            description: 'provider twilio: Twilio’s signature of the receipt URL and form fields (HMAC-SHA1 keyed with TWILIO_AUTH_TOKEN, base64). Required for twilio receipts.',
            schema: { type: 'string' },
          },
          {
            name: 'Webhook-Signature',
            in: 'header',
            required: false,
            description: 'provider webhook: `sha256=<hex HMAC-SHA256 of the raw body keyed with WEBHOOK_CALLBACK_SECRET>`. Required for webhook receipts.',
            schema: { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' },
          },
        ],
        requestBody: {
          required: true,
          content: {
            'application/x-www-form-urlencoded': { schema: { type: 'object', additionalProperties: { type: 'string' } } },
            'application/json': { schema: ref('WebhookReceipt') },
          },
        },
        responses: {
          '204': { description: 'Recorded (a status never moves back: an older receipt changes nothing).' },
          '400': errorResponse('Signed, but not a receipt the gateway understands; or a path that is not valid percent-encoded text.'),
          '403': errorResponse('Unsigned, or the signature does not verify.'),
          '404': errorResponse('The provider sends no receipts, or no message with this id was accepted by it.'),
        },
      },
    };
  }
  if (options.outboxRoutes) {
    const security = options.outboxTokenRequired ? { security: [{ outboxToken: [] }] } : {};
    paths['/outbox/messages'] = {
      get: {
        operationId: 'listOutboxMessages',
        tags: ['Outbox (development)'],
        summary: 'Messages kept by the outbox provider, newest first',
        ...security,
        parameters: [{ name: 'recipient', in: 'query', required: false, schema: { type: 'string', pattern: '^\\+[0-9]{1,15}$' } }],
        responses: {
          '200': { description: 'Messages', content: { 'application/json': { schema: ref('OutboxMessageList') } } },
          '400': errorResponse('recipient is not an E.164 number.'),
          '401': errorResponse('Missing or wrong OUTBOX_TOKEN.'),
        },
      },
      delete: {
        operationId: 'clearOutbox',
        tags: ['Outbox (development)'],
        summary: 'Empty the outbox',
        ...security,
        responses: { '204': { description: 'Emptied.' }, '401': errorResponse('Missing or wrong OUTBOX_TOKEN.') },
      },
    };
  }

  return {
    // No jsonSchemaDialect: OpenAPI 3.1's default dialect is JSON Schema 2020-12 with OpenAPI's
    // vocabulary, what the schemas are; naming plain 2020-12 made Swagger UI warn on every page.
    openapi: '3.1.0',
    info: {
      title: 'smsauth SMS delivery gateway',
      version: options.version,
      description: 'Receives the identity service delivery POST and hands the SMS to a provider.',
    },
    tags: [
      { name: 'Delivery', description: 'What the identity service calls: one SMS per one-time code, and its status.' },
      ...(options.receiptRoutes ? [{ name: 'Delivery receipts', description: 'What SMS providers call (GATEWAY_PUBLIC_URL is set).' }] : []),
      ...(options.outboxRoutes ? [{ name: 'Outbox (development)', description: 'The outbox provider’s kept messages (SMS_PROVIDER=outbox).' }] : []),
    ],
    // The kit's input guard answers every route before it runs: its 400 is every operation's.
    paths: withInputGuardRefusals(paths, ref('ErrorBody')),
    components: {
      schemas: {
        DeliveryRequest: component(DeliveryRequestSchema),
        ErrorBody: component(OAuthErrorBodySchema),
        OutboxMessage: component(OutboxMessageSchema),
        OutboxMessageList: component(OutboxMessageListSchema),
        WebhookDelivery: component(WebhookDeliverySchema),
        MessageStatus: component(MessageStatusSchema),
        WebhookReceipt: component(WebhookReceiptSchema),
      },
      securitySchemes: {
        deliveryToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'HS256 JWT signed with GATEWAY_AUTH_SECRET; iat required (at most 10 minutes old); aud/sub checked when configured.',
        },
        outboxToken: { type: 'http', scheme: 'bearer', description: 'The OUTBOX_TOKEN value.' },
      },
    },
  };
}
