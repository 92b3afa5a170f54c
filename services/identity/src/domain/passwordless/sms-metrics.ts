import { Counter, type Registry } from 'prom-client';
import type { CanonicalPhoneNumber } from '../phone/canonical-number';

/**
 * SMS counted per destination country: codes sent (delivery accepted) and codes exchanged
 * successfully. verified / sent per country is the conversion that shows SMS pumping.
 */
export interface SmsMetrics {
  sent: Counter<'country' | 'channel'>;
  verified: Counter<'country' | 'channel'>;
}

/** On the app's registry (served at /metrics). */
export function createSmsMetrics(registry: Registry): SmsMetrics {
  return {
    sent: new Counter({
      name: 'sms_sent_total',
      help: 'One-time codes whose delivery the gateway accepted, by destination country (ISO 3166-1 alpha-2 or unknown) and channel (sms, whatsapp, voice)',
      labelNames: ['country', 'channel'] as const,
      registers: [registry],
    }),
    verified: new Counter({
      name: 'sms_verified_total',
      help: 'One-time codes exchanged successfully, by the country of the number (ISO 3166-1 alpha-2 or unknown) and the channel that carried the code',
      labelNames: ['country', 'channel'] as const,
      registers: [registry],
    }),
  };
}

/** The `country` label: the number's ISO code, `unknown` for non-geographic or unparsable numbers. */
export function countryLabel(number: Pick<CanonicalPhoneNumber, 'country'> | undefined): string {
  return number?.country ?? 'unknown';
}
