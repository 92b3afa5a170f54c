import { NEW_CONNECTION_SMS_POLICY, type ConnectionOptions } from '@smsauth/contracts';
import { canonicalPhoneNumber, isKnownCountry } from '../phone/canonical-number';

/** Fills the SMS policy defaults a connection created now gets (only fields the body left out). */
export function withNewConnectionSmsPolicy(options: ConnectionOptions): ConnectionOptions {
  return {
    ...options,
    allowed_number_types: options.allowed_number_types ?? [...NEW_CONNECTION_SMS_POLICY.allowed_number_types],
    sms_prefix_digits: options.sms_prefix_digits ?? NEW_CONNECTION_SMS_POLICY.sms_prefix_digits,
    sms_fraud_guard: options.sms_fraud_guard ?? { ...NEW_CONNECTION_SMS_POLICY.sms_fraud_guard },
  };
}

/**
 * What the schema cannot check: country codes libphonenumber knows, safe-list and test numbers
 * that are valid (start compares them with the canonical number, so an invalid one could never
 * match), and test numbers only where they are allowed. Returns the first problem as [path under options, message].
 */
export function smsPolicyOptionsProblem(options: ConnectionOptions, testNumbersAllowed: boolean): [string, string] | null {
  for (const field of ['allowed_countries', 'denied_countries'] as const) {
    const list = options[field] ?? [];
    const index = list.findIndex((code) => !isKnownCountry(code));
    if (index >= 0) return [`${field}.${index}`, `${list[index]} is not a known ISO 3166-1 alpha-2 country code`];
  }
  // options.channels: per-country lists, so the same known-country rule.
  const unknownChannelCountry = Object.keys(options.channels ?? {}).find((key) => key !== 'default' && !isKnownCountry(key));
  if (unknownChannelCountry) return [`channels.${unknownChannelCountry}`, `${unknownChannelCountry} is not a known ISO 3166-1 alpha-2 country code`];
  const listed: [string, readonly string[]][] = [
    ['sms_safe_list', options.sms_safe_list ?? []],
    ['sms_test_numbers', (options.sms_test_numbers ?? []).map((t) => t.phone_number)],
  ];
  for (const [field, numbers] of listed) {
    for (const [index, number] of numbers.entries()) {
      const canonical = canonicalPhoneNumber(number);
      if (!canonical.ok) return [`${field}.${index}`, canonical.description.replace(/^phone_number/, number)];
    }
  }
  if (options.sms_test_numbers?.length && !testNumbersAllowed) {
    return ['sms_test_numbers', 'test numbers are refused when NODE_ENV=production unless ALLOW_TEST_NUMBERS=true'];
  }
  const testNumbers = new Set((options.sms_test_numbers ?? []).map((t) => t.phone_number));
  if (testNumbers.size !== (options.sms_test_numbers?.length ?? 0)) return ['sms_test_numbers', 'lists a phone number twice'];
  return null;
}
