import { z } from 'zod';
import { DELIVERY_CHANNELS } from './channels';

// What codes cost (issue 47): a price per country and channel, which the console multiplies by the
// codes sent (spend) and by the passkey logins (the SMS not sent), and how long people take to type
// a code they received.

/** The country of a price: ISO 3166-1 alpha-2, or `*` for every country without its own price. */
export const PRICE_ANY_COUNTRY = '*';

/** USD per message (a voice call: per call): 0 to 10, kept to the millionth (rounded). */
const PriceSchema = z
  .number()
  .min(0, { message: 'must be 0 or more (USD per message)' })
  .max(10, { message: 'must be at most 10 (USD per message)' })
  .describe('USD per message (a voice call: per call), 0 to 10, kept to 6 decimals (rounded); null: back to the built-in price.');

const PriceCountrySchema = z
  .string()
  .regex(/^([A-Z]{2}|\*)$/, { message: 'must be an ISO 3166-1 alpha-2 country code in upper case, like GB, or * for every other country' })
  .meta({ pattern: '^([A-Z]{2}|\\*)$' })
  .describe('ISO 3166-1 alpha-2 code of a country with phone numbers (one libphonenumber knows; others are refused), or * for every country without its own price.');

/** One price in force: the tenant's own or the default table's. */
export const SmsPriceSchema = z.object({
  country: z.string(),
  channel: z.enum(DELIVERY_CHANNELS),
  price: z.number(),
  /** `tenant`: set through PATCH; `default`: the built-in list price. */
  source: z.enum(['tenant', 'default']),
});
export type SmsPrice = z.infer<typeof SmsPriceSchema>;

/** `GET /api/v2/stats/sms-prices`: every price in force, `*` (every other country) first, then by country and channel. */
export const SmsPricesSchema = z.object({
  currency: z.literal('USD'),
  prices: z.array(SmsPriceSchema),
});
export type SmsPrices = z.infer<typeof SmsPricesSchema>;

/**
 * `PATCH /api/v2/stats/sms-prices`: prices to set; `price: null` drops the tenant's price, so the
 * default applies again. Prices not named stay as they are.
 */
export const SmsPricesUpdateSchema = z
  .object({
    prices: z
      .array(
        z
          .object({ country: PriceCountrySchema, channel: z.enum(DELIVERY_CHANNELS), price: PriceSchema.nullable() })
          .strict(),
      )
      .min(1, { message: 'must name at least one price' })
      .max(1000, { message: 'must name at most 1000 prices' })
      .describe('The prices to set; each country and channel at most once (a price named twice is refused).'),
  })
  .strict();
export type SmsPricesUpdate = z.infer<typeof SmsPricesUpdateSchema>;

/**
 * `GET /api/v2/stats/time-to-verify`: seconds from a code sent to its number's login with a code,
 * over the logins of the period (a login counts its number's latest code sent within the hour
 * before). Percentiles are null when no login counted.
 */
export const TimeToVerifySchema = z.object({
  from: z.string(),
  to: z.string(),
  verified: z.int().nonnegative(),
  p50: z.number().nullable(),
  p90: z.number().nullable(),
  p99: z.number().nullable(),
});
export type TimeToVerify = z.infer<typeof TimeToVerifySchema>;
