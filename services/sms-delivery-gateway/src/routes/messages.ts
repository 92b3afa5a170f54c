import { MessageStatusSchema, WebhookReceiptSchema } from '@smsauth/contracts';
import { defineOperation, rawBodyOf, type Operation } from '@smsauth/service-kit';
import type { Request } from 'express';
import { z } from 'zod';
import { messageNotFound, receiptRefused } from '../domain/errors';
import type { MessageStatusService } from '../domain/message-statuses';
import { DELIVERY_TAG, DELIVERY_TOKEN_SCHEME } from './delivery';
import { refusal } from './refusals';

export const RECEIPTS_TAG = 'Delivery receipts';

/** `GET /messages/{id}`: a message's status, behind the same guards as `POST /sms`. */
export function messageStatusOperation(messageStatuses: MessageStatusService, authEnabled: boolean): Operation {
  return defineOperation({
    method: 'get',
    path: '/messages/:id',
    operationId: 'getMessageStatus',
    tags: [DELIVERY_TAG],
    summary: 'Where a message stands: accepted, sent, delivered, undelivered or failed (kept 24 hours)',
    ...(authEnabled ? { security: [{ [DELIVERY_TOKEN_SCHEME]: [] }] } : {}),
    params: z.object({ id: z.string() }),
    responses: {
      '200': { description: 'The status', schema: MessageStatusSchema, component: 'MessageStatus' },
      '400': refusal('The id is not valid percent-encoded text.'),
      '401': refusal('Missing or invalid bearer token.'),
      '403': refusal('Caller address not in ALLOWED_IPS.'),
      '404': refusal('No message with this id.'),
    },
    handle: async ({ params, res }) => {
      const record = await messageStatuses.get(params.id);
      if (!record) throw messageNotFound();
      res.setHeader('cache-control', 'no-store');
      return record;
    },
  });
}

/**
 * The signature headers, read by each provider's receipt reader from the raw request: declared
 * so that the document names them, with no rule of their own here (an unsigned or badly signed
 * receipt is a 403 the provider's check answers, after the provider is known).
 */
const ReceiptSignatureHeadersSchema = z.object({
  'X-Twilio-Signature': z.string().optional(),
  'Webhook-Signature': z.string().optional(),
  'Telnyx-Signature-Ed25519': z.string().optional(),
  'Telnyx-Timestamp': z.string().optional(),
  'X-Plivo-Signature-V3': z.string().optional(),
  'X-Plivo-Signature-Ma-V3': z.string().optional(),
  'X-Plivo-Signature-V3-Nonce': z.string().optional(),
  'X-Sinch-Webhook-Signature': z.string().optional(),
  'X-Sinch-Webhook-Signature-Nonce': z.string().optional(),
  'X-Sinch-Webhook-Signature-Timestamp': z.string().optional(),
  'X-Sinch-Webhook-Signature-Algorithm': z.string().optional(),
});

/**
 * `POST /receipts/{provider}/{id}`: a provider's signed delivery receipt, read from its bytes
 * (the signature covers them). Served only with GATEWAY_PUBLIC_URL: receipts are received only
 * when providers were told where to send them, and `publicUrl` is what they signed.
 */
export function receiptOperation(messageStatuses: MessageStatusService, publicUrl: string): Operation {
  return defineOperation({
    method: 'post',
    path: '/receipts/:provider/:id',
    operationId: 'receiveDeliveryReceipt',
    tags: [RECEIPTS_TAG],
    summary: 'A provider’s signed delivery receipt for one message (the URL each message was sent with)',
    description:
      'twilio: Twilio’s form-encoded status callback, verified with X-Twilio-Signature. webhook: a WebhookReceipt JSON body with `Webhook-Signature: sha256=<hex HMAC-SHA256 of the body keyed with WEBHOOK_CALLBACK_SECRET>`. vonage: the SMS API delivery receipt, form-encoded or JSON, with its `sig` parameter (VONAGE_SIGNATURE_SECRET, VONAGE_SIGNATURE_METHOD) and a `timestamp` within 5 minutes. telnyx: Telnyx’s JSON message webhook, verified with Telnyx-Signature-Ed25519 and Telnyx-Timestamp (within 5 minutes). plivo: Plivo’s form-encoded status callback, verified with X-Plivo-Signature-V3 or X-Plivo-Signature-Ma-V3 and the nonce. sinch: a JSON recipient delivery report, with the URL’s `receipt_token` and, with SINCH_CALLBACK_SECRET, X-Sinch-Webhook-Signature. infobip: a JSON delivery report (`results`), with the URL’s `receipt_token` (Infobip signs none).',
    params: z.object({ provider: z.string(), id: z.string() }),
    query: z.object({ receipt_token: z.string().optional() }),
    queryDescriptions: {
      receipt_token:
        'providers sinch and infobip: the token the gateway put in the receipt URL it gave the provider (HMAC of the message keyed with its API credential). Required for their receipts.',
    },
    headers: ReceiptSignatureHeadersSchema,
    headerDescriptions: {
      'X-Twilio-Signature':
        'provider twilio: Twilio’s signature of the receipt URL and form fields (HMAC-SHA1 keyed with TWILIO_AUTH_TOKEN, base64). Required for twilio receipts.',
      'Webhook-Signature': 'provider webhook: `sha256=<hex HMAC-SHA256 of the raw body keyed with WEBHOOK_CALLBACK_SECRET>`. Required for webhook receipts.',
      'Telnyx-Signature-Ed25519':
        'provider telnyx: base64 Ed25519 signature of `{Telnyx-Timestamp}|{raw body}`, verified with TELNYX_PUBLIC_KEY. Required for telnyx receipts.',
      'Telnyx-Timestamp': 'provider telnyx: Unix seconds when Telnyx signed the webhook; more than 5 minutes away from now is refused. Required for telnyx receipts.',
      'X-Plivo-Signature-V3':
        'provider plivo: base64 HMAC-SHA256 keyed with PLIVO_AUTH_TOKEN over the receipt URL, the sorted form fields and the nonce (several may be given, comma-separated). Required for plivo receipts.',
      'X-Plivo-Signature-Ma-V3':
        'provider plivo: the same signature made with the main account’s Auth Token (what Plivo’s messaging callbacks carry); one of it or X-Plivo-Signature-V3 must verify with PLIVO_AUTH_TOKEN.',
      'X-Plivo-Signature-V3-Nonce': 'provider plivo: the nonce the signatures cover. Required for plivo receipts.',
      'X-Sinch-Webhook-Signature':
        'provider sinch, with SINCH_CALLBACK_SECRET: base64 HMAC over `{raw body}.{nonce}.{timestamp}` keyed with the secret. Required then.',
      'X-Sinch-Webhook-Signature-Nonce': 'provider sinch, with SINCH_CALLBACK_SECRET: the nonce the signature covers.',
      'X-Sinch-Webhook-Signature-Timestamp': 'provider sinch, with SINCH_CALLBACK_SECRET: Unix seconds; more than 5 minutes away from now is refused.',
      'X-Sinch-Webhook-Signature-Algorithm': 'provider sinch: `HmacSHA256` (when absent) or `HmacSHA512`.',
    },
    rawBody: {
      content: {
        'application/x-www-form-urlencoded': { schema: z.record(z.string(), z.string()) },
        'application/json': { schema: WebhookReceiptSchema, component: 'WebhookReceipt' },
      },
    },
    responses: {
      '204': { description: 'Recorded (a status never moves back: an older receipt changes nothing).' },
      '400': refusal('Signed, but not a receipt the gateway understands; or a path that is not valid percent-encoded text.'),
      '403': refusal('Unsigned, or the signature does not verify.'),
      '404': refusal('The provider sends no receipts, or no message with this id was accepted by it.'),
    },
    handle: async ({ params, req }) => {
      const result = await messageStatuses.recordReceipt(params.provider, params.id, {
        // What the provider signed: the URL it was given, not what a proxy made of the Host header.
        url: `${publicUrl}${req.originalUrl}`,
        headers: req.headers,
        rawBody: bodyBytes(req),
      });
      if (result.kind !== 'recorded') throw receiptRefused(result);
    },
  });
}

/** The body's bytes: read by the receipt guard for forms and text, kept by the shared JSON parser for JSON. */
function bodyBytes(req: Request): Buffer {
  if (Buffer.isBuffer(req.body)) return req.body;
  return rawBodyOf(req) ?? Buffer.alloc(0);
}
