import { z } from 'zod';
import { CountryCodeSchema, PhoneNumberSchema } from './phone';

/*
 * Per-connection SMS policy (connection `options`): which countries and number types may
 * receive codes, velocity limits, the fraud guard (automatic prefix blocking), the safe list
 * and test numbers. Every field is optional in the stored options: an absent field keeps
 * the behaviour connections had before the policy existed (see identity's sms-policy module);
 * a connection created through /api/v2 gets NEW_CONNECTION_SMS_POLICY written in.
 */

/**
 * libphonenumber's number types, plus UNKNOWN for a valid number whose type its metadata
 * cannot tell (refused unless listed: a number nobody can classify could be anything).
 */
export const SMS_NUMBER_TYPES = [
  'MOBILE',
  'FIXED_LINE_OR_MOBILE',
  'FIXED_LINE',
  'PREMIUM_RATE',
  'TOLL_FREE',
  'SHARED_COST',
  'VOIP',
  'PERSONAL_NUMBER',
  'PAGER',
  'UAN',
  'VOICEMAIL',
  'UNKNOWN',
] as const;
export type SmsNumberType = (typeof SMS_NUMBER_TYPES)[number];

/** ISO 3166-1 alpha-2 in shape; identity checks the code names a country it has metadata for. */

const CountryListSchema = z.array(CountryCodeSchema).max(300);

export const SMS_FRAUD_GUARD_MODES = ['off', 'monitor', 'block'] as const;
export type SmsFraudGuardMode = (typeof SMS_FRAUD_GUARD_MODES)[number];

/** Digits after the country calling code that make a prefix (velocity limits and the fraud guard). */
const PrefixDigitsSchema = z.int().min(1).max(10);

const velocityLimitFields = {
  /** Starts per hour to one country (all its numbers); null: no limit. */
  per_country_per_hour: z.int().min(1).nullable(),
  /** Starts per hour to one prefix; null: no limit. */
  per_prefix_per_hour: z.int().min(1).nullable(),
};

export const SmsVelocityLimitsSchema = z.strictObject({
  per_country_per_hour: velocityLimitFields.per_country_per_hour.default(null),
  per_prefix_per_hour: velocityLimitFields.per_prefix_per_hour.default(null),
});
export type SmsVelocityLimits = z.output<typeof SmsVelocityLimitsSchema>;

const fraudGuardFields = {
  mode: z.enum(SMS_FRAUD_GUARD_MODES),
  /** Sends to a prefix in the window before its conversion is judged. */
  min_sends: z.int().min(1).max(1_000_000),
  /** Fraction of sends later verified (0..1) below which the prefix is blocked. */
  min_conversion: z.number().min(0).max(1),
  window_minutes: z.int().min(1).max(10_080),
  block_minutes: z.int().min(1).max(43_200),
};

export const SmsFraudGuardSchema = z.strictObject({
  mode: fraudGuardFields.mode.default('block'),
  min_sends: fraudGuardFields.min_sends.default(50),
  min_conversion: fraudGuardFields.min_conversion.default(0.1),
  window_minutes: fraudGuardFields.window_minutes.default(60),
  block_minutes: fraudGuardFields.block_minutes.default(1440),
});
export type SmsFraudGuard = z.output<typeof SmsFraudGuardSchema>;

export const SmsTestNumberSchema = z.strictObject({
  phone_number: PhoneNumberSchema,
  /** The fixed code this number logs in with; no SMS is ever sent to it. */
  code: z.string().regex(/^[0-9]{4,10}$/, { message: 'must be 4 to 10 digits' }),
});
export type SmsTestNumber = z.infer<typeof SmsTestNumberSchema>;

/** The policy fields of a connection's options. */
export const smsPolicyOptionFields = {
  allowed_countries: CountryListSchema.optional(),
  denied_countries: CountryListSchema.optional(),
  allowed_number_types: z.array(z.enum(SMS_NUMBER_TYPES)).min(1).optional(),
  sms_prefix_digits: PrefixDigitsSchema.optional(),
  sms_velocity_limits: SmsVelocityLimitsSchema.optional(),
  sms_fraud_guard: SmsFraudGuardSchema.optional(),
  sms_safe_list: z.array(PhoneNumberSchema).max(1000).optional(),
  sms_test_numbers: z.array(SmsTestNumberSchema).max(100).optional(),
};

/** PATCH: each field replaces the stored one (objects are merged), `null` removes it. */
export const smsPolicyOptionPatchFields = {
  allowed_countries: CountryListSchema.nullable().optional(),
  denied_countries: CountryListSchema.nullable().optional(),
  allowed_number_types: z.array(z.enum(SMS_NUMBER_TYPES)).min(1).nullable().optional(),
  sms_prefix_digits: PrefixDigitsSchema.nullable().optional(),
  // Without defaults: a partial PATCH never resets a field the caller did not send.
  sms_velocity_limits: z.strictObject(velocityLimitFields).partial().nullable().optional(),
  sms_fraud_guard: z.strictObject(fraudGuardFields).partial().nullable().optional(),
  sms_safe_list: z.array(PhoneNumberSchema).max(1000).nullable().optional(),
  sms_test_numbers: z.array(SmsTestNumberSchema).max(100).nullable().optional(),
};

/**
 * What a connection created through /api/v2 gets when its body leaves a field out: numbers
 * that can receive an SMS (premium, shared cost, toll free, VoIP, pager, UAN, personal numbers
 * refused), prefixes of 4 digits after the country code, and the fraud guard blocking.
 * No country list and no velocity limit: those depend on where the application's users are.
 */
export const NEW_CONNECTION_SMS_POLICY = {
  allowed_number_types: ['MOBILE', 'FIXED_LINE_OR_MOBILE'] as SmsNumberType[],
  sms_prefix_digits: 4,
  sms_fraud_guard: SmsFraudGuardSchema.parse({}),
};

/** A prefix the fraud guard blocked (GET /api/v2/connections/{id}/sms-fraud-blocks). */
export const SmsFraudBlockSchema = z.object({
  /** `+`, the country calling code and the connection's sms_prefix_digits next digits. */
  prefix: z.string(),
  /** ISO 8601; the block lifts itself then. */
  blocked_until: z.string(),
  created_at: z.string(),
  /** Sends and verifications counted in the window that triggered the block. */
  sends: z.int(),
  verified: z.int(),
});
export type SmsFraudBlock = z.infer<typeof SmsFraudBlockSchema>;

export const SmsFraudBlockListSchema = z.object({ blocks: z.array(SmsFraudBlockSchema) });
export type SmsFraudBlockList = z.infer<typeof SmsFraudBlockListSchema>;
