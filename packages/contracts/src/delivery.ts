import { z } from 'zod';
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
});
export type DeliveryRequest = z.infer<typeof DeliveryRequestSchema>;
