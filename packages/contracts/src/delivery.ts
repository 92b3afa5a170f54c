import { z } from 'zod';
import { DeliveryChannelSchema } from './channels';
import { PhoneNumberSchema } from './phone';

/** Caller details added when `options.forward_req_info` is on. */
export const DeliveryRequestInfoSchema = z.object({
  ip: z.string(),
  'user-agent': z.string().optional(),
});
export type DeliveryRequestInfo = z.infer<typeof DeliveryRequestInfoSchema>;

/** 1600 = 10 concatenated SMS segments, the usual carrier ceiling. */
export const DELIVERY_BODY_MAX_LENGTH = 1600;

/**
 * 2.2: identity service -> delivery gateway. Not strict: a gateway should keep working
 * if the identity service starts sending more fields.
 */
export const DeliveryRequestSchema = z.object({
  recipient: PhoneNumberSchema,
  body: z.string().min(1).max(DELIVERY_BODY_MAX_LENGTH),
  /** `options.from`; absent when the connection has none. */
  sender: z.string().optional(),
  req: DeliveryRequestInfoSchema.optional(),
  /** How to deliver: `sms` when absent (a request in the spec's three fields is an SMS). */
  channel: DeliveryChannelSchema.optional(),
  /**
   * The code's digits, for providers that cannot take free text: a WhatsApp authentication
   * template fills its variable with them. Never parsed out of `body`.
   */
  code: z.string().regex(/^[0-9]{4,10}$/, { message: 'must be 4 to 10 digits' }).optional(),
  /** BCP 47 language of `body` (`pt-BR`): what a voice call speaks it in. */
  language: z.string().regex(/^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$/, { message: 'must be a BCP 47 language tag like pt-BR' }).optional(),
});
export type DeliveryRequest = z.infer<typeof DeliveryRequestSchema>;
