import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { DELIVERY_CHANNELS } from '@smsauth/contracts';
import type { BreakerState } from './circuit-breaker';

export type DeliveryOutcomeLabel = 'delivered' | 'failed';
export type RejectionReason = 'unauthorized' | 'forbidden' | 'invalid_request';

export interface DeliveryMetrics {
  deliveries: Counter<'provider' | 'outcome' | 'channel'>;
  providerLatency: Histogram<'provider' | 'outcome'>;
  replays: Counter<'provider'>;
  rejections: Counter<'reason'>;
  failovers: Counter<'from' | 'to'>;
  deliveryStatuses: Counter<'provider' | 'status'>;
}

/** The breaker gauge's values: 0 closed, 1 open, 2 half-open. */
export const BREAKER_STATE_VALUES: Record<BreakerState, number> = { closed: 0, open: 1, half_open: 2 };

/** The gateway's own metrics, on the app's registry (served at /metrics). */
export function createDeliveryMetrics(
  registry: Registry,
  providers: readonly string[],
  breakerState: (provider: string) => BreakerState,
): DeliveryMetrics {
  const metrics: DeliveryMetrics = {
    deliveries: new Counter({
      name: 'sms_deliveries_total',
      help: 'Messages handed to a provider, by provider, outcome (delivered or failed) and channel (sms, whatsapp, voice)',
      labelNames: ['provider', 'outcome', 'channel'] as const,
      registers: [registry],
    }),
    providerLatency: new Histogram({
      name: 'sms_provider_request_duration_seconds',
      help: 'Time the SMS provider took to accept or refuse a message, in seconds',
      labelNames: ['provider', 'outcome'] as const,
      buckets: [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    replays: new Counter({
      name: 'sms_idempotent_replays_total',
      help: 'Deliveries answered from the idempotency store without sending again',
      labelNames: ['provider'] as const,
      registers: [registry],
    }),
    rejections: new Counter({
      name: 'sms_delivery_rejections_total',
      help: 'Delivery requests refused before reaching the provider, by reason',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    failovers: new Counter({
      name: 'sms_failovers_total',
      help: 'Messages moved on from a provider that failed (transport error, timeout, 5xx) or was skipped (breaker open) to the next one of the route',
      labelNames: ['from', 'to'] as const,
      registers: [registry],
    }),
    deliveryStatuses: new Counter({
      name: 'sms_delivery_status_total',
      help: 'Message statuses recorded (accepted or failed at send time, then from delivery receipts), by provider and status',
      labelNames: ['provider', 'status'] as const,
      registers: [registry],
    }),
  };
  new Gauge({
    name: 'sms_provider_breaker_state',
    help: 'Circuit breaker of each provider: 0 closed, 1 open (skipped), 2 half-open (next message probes it)',
    labelNames: ['provider'] as const,
    registers: [registry],
    // Read at scrape time: an open breaker turns half-open by the clock alone.
    collect() {
      for (const provider of providers) this.set({ provider }, BREAKER_STATE_VALUES[breakerState(provider)]);
    },
  });
  // Zero series up front, so dashboards and alerts see the labels before the first message.
  for (const provider of providers) {
    for (const outcome of ['delivered', 'failed'] as const) {
      for (const channel of DELIVERY_CHANNELS) metrics.deliveries.inc({ provider, outcome, channel }, 0);
    }
    metrics.replays.inc({ provider }, 0);
  }
  return metrics;
}
