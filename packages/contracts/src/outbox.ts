import { z } from 'zod';
import { DeliveryChannelSchema } from './channels';
import { DeliveryRequestInfoSchema } from './delivery';
import { PhoneNumberSchema } from './phone';

/**
 * One message kept by the delivery gateway's development outbox
 * (`GET /outbox/messages`). `sender` is null when the delivery request had none.
 */
export const OutboxMessageSchema = z.object({
  id: z.string(),
  recipient: PhoneNumberSchema,
  sender: z.string().nullable(),
  body: z.string(),
  /** How it would have gone out: `sms` for a request without `channel`. */
  channel: DeliveryChannelSchema,
  /** The language a voice call would have spoken it in, when the request gave one. */
  language: z.string().nullable(),
  /** ISO 8601 time the gateway accepted the message. */
  received_at: z.iso.datetime(),
});
export type OutboxMessage = z.infer<typeof OutboxMessageSchema>;

/** `GET /outbox/messages` answer: newest first. */
export const OutboxMessageListSchema = z.array(OutboxMessageSchema);
export type OutboxMessageList = z.infer<typeof OutboxMessageListSchema>;

/** `GET /outbox/messages` query: optionally only the messages for one recipient. */
export const OutboxQuerySchema = z.object({
  recipient: PhoneNumberSchema.optional(),
});
export type OutboxQuery = z.infer<typeof OutboxQuerySchema>;

/**
 * What the gateway's `webhook` provider POSTs to the operator's `WEBHOOK_URL`: the
 * delivery request as received, plus the gateway's message id (also sent as the
 * `Idempotency-Key` header when the delivery carried one).
 */
export const WebhookDeliverySchema = z.object({
  id: z.string(),
  recipient: PhoneNumberSchema,
  body: z.string(),
  sender: z.string().nullable(),
  req: DeliveryRequestInfoSchema.optional(),
  /** The request's channel (`sms` when it had none): the receiver sends it that way. */
  channel: DeliveryChannelSchema,
  /** The request's code digits and language, when it had them (a voice call or WhatsApp template needs them). */
  code: z.string().optional(),
  language: z.string().optional(),
  /**
   * Where to POST signed delivery receipts for this message (WebhookReceiptSchema); present
   * when the gateway has a public URL (GATEWAY_PUBLIC_URL) and WEBHOOK_CALLBACK_SECRET.
   */
  status_callback: z.url().optional(),
});
export type WebhookDelivery = z.infer<typeof WebhookDeliverySchema>;

/** The `Idempotency-Key` header value accepted by the delivery gateway. */
export const IdempotencyKeySchema = z
  .string()
  .regex(/^[\x21-\x7e]{1,255}$/, { message: 'must be 1-255 visible ASCII characters' });
