import type { DeliveryChannel } from '@smsauth/contracts';
import { Counter, type Registry } from 'prom-client';

/** Why a start was refused, as `sms_start_refusals_total{reason}` labels it. */
export type SmsStartRefusalReason = 'country' | 'number_type' | 'velocity' | 'fraud_guard' | 'rate_limit' | 'test_numbers_disabled';

/** What the SMS policy reports; the app registers it with its /metrics registry. */
export interface SmsPolicyMetrics {
  /** `channel`: the one the start would have sent by first. */
  refused(reason: SmsStartRefusalReason, channel?: DeliveryChannel): void;
  /** The fraud guard found a prefix that looks pumped: blocked in `block` mode, only reported in `monitor`. */
  pumpingDetected(mode: 'monitor' | 'block'): void;
  testNumberUsed(step: 'start' | 'login'): void;
}

/**
 * Conversion per country is not a gauge here: a replica only sees its own share, so it is
 * computed by Prometheus from the counters every replica exports,
 * `sum by (country) (rate(sms_verified_total[1h])) / sum by (country) (rate(sms_sent_total[1h]))`.
 */
export function createSmsPolicyMetrics(registry: Registry): SmsPolicyMetrics {
  const refusals = new Counter({
    name: 'sms_start_refusals_total',
    help: 'Passwordless starts refused before any code was sent, by reason and by the channel it would have gone by first',
    labelNames: ['reason', 'channel'] as const,
    registers: [registry],
  });
  const detections = new Counter({
    name: 'sms_fraud_guard_detections_total',
    help: 'Prefixes the SMS fraud guard found pumped (blocked in block mode, reported in monitor mode)',
    labelNames: ['mode'] as const,
    registers: [registry],
  });
  const testNumbers = new Counter({
    name: 'sms_test_number_uses_total',
    help: 'Starts and logins with a connection test number (fixed code, no SMS sent)',
    labelNames: ['step'] as const,
    registers: [registry],
  });
  return {
    refused: (reason, channel = 'sms') => refusals.inc({ reason, channel }),
    pumpingDetected: (mode) => detections.inc({ mode }),
    testNumberUsed: (step) => testNumbers.inc({ step }),
  };
}
