import { z } from 'zod';

/**
 * Where one message delivered by the gateway stands: `accepted` once a provider took it,
 * then what the provider's delivery receipts say. `failed` is also the state of a message
 * no provider accepted.
 */
export const MessageStatusValueSchema = z.enum(['accepted', 'sent', 'delivered', 'undelivered', 'failed']);
export type MessageStatusValue = z.infer<typeof MessageStatusValueSchema>;

/** One provider tried for a message, in order. */
export const DeliveryAttemptSchema = z.object({
  provider: z.string(),
  /**
   * `accepted`: the provider took the message; `refused`: it answered 4xx, or an error code
   * its table reads as the message's own fault (not retried elsewhere); `failed`: transport
   * error, timeout, 5xx, or an error code its table reads as this provider's trouble
   * (throttling, outage, account) (the next provider is tried);
   * `skipped`: its circuit breaker was open.
   */
  outcome: z.enum(['accepted', 'refused', 'failed', 'skipped']),
  /** The provider's HTTP status, when it answered. */
  http_status: z.number().int().optional(),
});
export type DeliveryAttempt = z.infer<typeof DeliveryAttemptSchema>;

/** `GET /messages/{id}` on the delivery gateway. Never the message body (it holds the code). */
export const MessageStatusSchema = z.object({
  id: z.string(),
  status: MessageStatusValueSchema,
  /** The provider that accepted the message (or the last one tried when none did). */
  provider: z.string().nullable(),
  /** The provider's own id (Twilio's `SM...` sid) when it reported one. */
  provider_message_id: z.string().nullable(),
  /** The provider's error code for `failed` / `undelivered` (Twilio's `ErrorCode`), else null. */
  error_code: z.string().nullable(),
  attempts: z.array(DeliveryAttemptSchema),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type MessageStatus = z.infer<typeof MessageStatusSchema>;

/**
 * The signed delivery receipt a `webhook` provider's receiver POSTs to the gateway's
 * `status_callback` URL, with `Webhook-Signature: sha256=<hex HMAC-SHA256 of the raw body>`
 * keyed with `WEBHOOK_CALLBACK_SECRET`.
 */
export const WebhookReceiptSchema = z.object({
  status: MessageStatusValueSchema.exclude(['accepted']),
  error_code: z.union([z.string().max(64), z.number().int()]).optional(),
  provider_message_id: z.string().max(128).optional(),
});
export type WebhookReceipt = z.infer<typeof WebhookReceiptSchema>;

/**
 * The fields of Twilio's message status callback (form-encoded) the gateway reads; Twilio
 * sends more (AccountSid, From, To, ApiVersion, SmsSid, SmsStatus...).
 */
export const TwilioStatusCallbackSchema = z.looseObject({
  MessageSid: z.string().min(1),
  MessageStatus: z.string().min(1),
  ErrorCode: z.string().optional(),
});
export type TwilioStatusCallback = z.infer<typeof TwilioStatusCallbackSchema>;

/** The `POST /sms` response header carrying the gateway's message id (for `GET /messages/{id}`). */
export const MESSAGE_ID_HEADER = 'SMS-Message-Id';

/**
 * The `POST /sms` 200 response header naming the provider instance that accepted the message
 * (`twilio`, `vonage-eu`…), for identity's figures per provider. Gateways before it send none:
 * identity then counts the code under `unknown`.
 */
export const PROVIDER_HEADER = 'SMS-Provider';

/** What identity records when the gateway named no provider (an older gateway). */
export const UNKNOWN_PROVIDER = 'unknown';
