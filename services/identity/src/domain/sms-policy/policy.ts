import {
  NEW_CONNECTION_SMS_POLICY,
  SmsFraudGuardSchema,
  type ConnectionOptions,
  type SmsFraudGuard,
  type SmsNumberType,
  type SmsTestNumber,
} from '@smsauth/contracts';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { canonicalPhoneNumber, type CanonicalPhoneNumber } from '../phone/canonical-number';

/*
 * A connection's SMS policy as start applies it. An option the stored connection does not
 * carry means what the connection did before the policy existed, so connections created
 * before it keep working unchanged: every country, every number type, no velocity limit,
 * and the fraud guard in `monitor` (it counts and reports, never refuses). Connections
 * created through /api/v2 get NEW_CONNECTION_SMS_POLICY written into their options instead.
 */

export interface SmsPolicy {
  allowedCountries: ReadonlySet<string> | null;
  deniedCountries: ReadonlySet<string>;
  /** null: every type. */
  allowedNumberTypes: ReadonlySet<SmsNumberType> | null;
  prefixDigits: number;
  perCountryPerHour: number | null;
  perPrefixPerHour: number | null;
  fraudGuard: SmsFraudGuard;
  safeList: ReadonlySet<string>;
  testNumbers: ReadonlyMap<string, string>;
}

/** What an existing connection without the field does: watch, never refuse. */
const LEGACY_FRAUD_GUARD: SmsFraudGuard = { ...SmsFraudGuardSchema.parse({}), mode: 'monitor' };

export function smsPolicyOf(options: ConnectionOptions): SmsPolicy {
  return {
    allowedCountries: options.allowed_countries ? new Set(options.allowed_countries) : null,
    deniedCountries: new Set(options.denied_countries ?? []),
    allowedNumberTypes: options.allowed_number_types ? new Set(options.allowed_number_types) : null,
    prefixDigits: options.sms_prefix_digits ?? NEW_CONNECTION_SMS_POLICY.sms_prefix_digits,
    perCountryPerHour: options.sms_velocity_limits?.per_country_per_hour ?? null,
    perPrefixPerHour: options.sms_velocity_limits?.per_prefix_per_hour ?? null,
    fraudGuard: options.sms_fraud_guard ?? LEGACY_FRAUD_GUARD,
    safeList: new Set(options.sms_safe_list ?? []),
    testNumbers: new Map((options.sms_test_numbers ?? []).map((t: SmsTestNumber) => [t.phone_number, t.code])),
  };
}

/** What the policy needs to know about a number. */
export interface SmsNumberFacts {
  /** ISO 3166-1 alpha-2, or `+<calling code>` for non-geographic numbers; undefined when the number does not parse. */
  country: string | undefined;
  /** undefined when the number is not valid: refusing invalid numbers is canonical numbers' rule, not the policy's. */
  type: SmsNumberType | undefined;
  /** `+`, the calling code and the next `prefixDigits` digits: the unit of velocity limits and fraud blocks. */
  prefix: string;
}

/**
 * A number's country, type and prefix: from start's own parse when given one (no second
 * libphonenumber parse per start), else read from the stored E.164 string.
 */
export function smsNumberFacts(numberOrE164: CanonicalPhoneNumber | string, prefixDigits: number): SmsNumberFacts {
  const canonical = typeof numberOrE164 === 'string' ? canonicalPhoneNumber(numberOrE164) : { ok: true as const, number: numberOrE164 };
  const e164 = typeof numberOrE164 === 'string' ? numberOrE164 : numberOrE164.e164;
  if (canonical.ok) {
    const { number } = canonical;
    const national = number.e164.slice(1 + number.callingCode.length);
    return {
      country: number.country ?? `+${number.callingCode}`,
      type: number.type ?? 'UNKNOWN',
      prefix: `+${number.callingCode}${national.slice(0, prefixDigits)}`,
    };
  }
  // Not valid (start refuses these before the policy; a stored number from before migration 7
  // may be one): still counted per prefix, with the calling code when one can be read.
  const callingCode = parsePhoneNumberFromString(e164)?.countryCallingCode;
  const digits = e164.replace(/^\+/, '');
  const prefixLength = (callingCode?.length ?? 0) + prefixDigits;
  return { country: undefined, type: undefined, prefix: `+${digits.slice(0, prefixLength)}` };
}

export type SmsPolicyRefusal = 'country' | 'number_type';

/** The country and number-type rules: the first one that refuses, or null. */
export function staticRefusal(
  policy: SmsPolicy,
  facts: SmsNumberFacts,
  /** How the description names the channel refused ("SMS", "Voice calls"). */
  channelNoun = 'SMS',
): { reason: SmsPolicyRefusal; description: string } | null {
  if (facts.country !== undefined || policy.allowedCountries) {
    const country = facts.country ?? '';
    if (policy.deniedCountries.has(country) || (policy.allowedCountries && !policy.allowedCountries.has(country))) {
      return { reason: 'country', description: `${channelNoun} to this country ${channelNoun === 'SMS' ? 'is' : 'are'} not enabled for this connection` };
    }
  }
  if (facts.type && policy.allowedNumberTypes && !policy.allowedNumberTypes.has(facts.type)) {
    return {
      reason: 'number_type',
      description: `${channelNoun} to ${facts.type} numbers ${channelNoun === 'SMS' ? 'is' : 'are'} not enabled for this connection (allowed_number_types)`,
    };
  }
  return null;
}

/**
 * The fraud guard's verdict on a prefix after counting this send: with at least `min_sends`
 * earlier sends in the window and fewer than `min_conversion` of them verified, the prefix
 * has the shape of SMS pumping. The send being decided is not part of the ratio.
 */
export function looksPumped(guard: SmsFraudGuard, counts: { sends: number; verified: number }): boolean {
  const earlier = counts.sends - 1;
  return earlier >= guard.min_sends && counts.verified / earlier < guard.min_conversion;
}
