import { z } from 'zod';
import { MESSAGE_SYNTAXES, WebOtpOptionsSchema } from './connection';
import { PhoneNumberSchema } from './phone';

/**
 * `POST /api/v2/connections/{id}/sms-template/test`: renders the connection's message (or the
 * draft `syntax`/`template`/`webotp` given here, merged over the stored options as a PATCH
 * would be, without saving) with sample variables, and reports its SMS segments.
 */
export const SmsTemplateTestRequestSchema = z.strictObject({
  syntax: z.enum(MESSAGE_SYNTAXES).optional(),
  template: z.string().min(1).optional(),
  /** `null` tests the message without the domain-bound lines. */
  webotp: WebOtpOptionsSchema.nullable().optional(),
  /** Sample values; each has a default (see docs/identity.md, "Message templates"). The code is always sample digits of the connection's length. */
  variables: z
    .strictObject({
      phone_number: PhoneNumberSchema.optional(),
      application_name: z.string().min(1).max(255).optional(),
      request_language: z.string().min(1).max(255).nullable().optional(),
    })
    .optional(),
});
export type SmsTemplateTestRequest = z.infer<typeof SmsTemplateTestRequestSchema>;

export const SmsTemplateTestResponseSchema = z.object({
  /** The message exactly as a start would send it. */
  body: z.string(),
  /** GSM-7 when every character is in the GSM 03.38 alphabet, else UCS-2. */
  encoding: z.enum(['GSM-7', 'UCS-2']),
  /** Septets (GSM-7, extension characters count 2) or UTF-16 code units (UCS-2). */
  characters: z.int().nonnegative(),
  /** Parts billed: 1 up to 160 / 70, then 153 / 67 per part. */
  segments: z.int().positive(),
  fits_one_segment: z.boolean(),
});
export type SmsTemplateTestResponse = z.infer<typeof SmsTemplateTestResponseSchema>;
