import { Counter, Histogram, type Registry } from 'prom-client';

export type DeliveryOutcomeLabel = 'delivered' | 'failed';
export type RejectionReason = 'unauthorized' | 'forbidden' | 'invalid_request';

export interface DeliveryMetrics {
  deliveries: Counter<'provider' | 'outcome'>;
  providerLatency: Histogram<'provider' | 'outcome'>;
  replays: Counter<'provider'>;
  rejections: Counter<'reason'>;
}

/** The gateway's own metrics, on the app's registry (served at /metrics). */
export function createDeliveryMetrics(registry: Registry, provider: string): DeliveryMetrics {
  const metrics: DeliveryMetrics = {
    deliveries: new Counter({
      name: 'sms_deliveries_total',
      help: 'Messages handed to the SMS provider, by provider and outcome (delivered or failed)',
      labelNames: ['provider', 'outcome'] as const,
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
  };
  // Zero series up front, so dashboards and alerts see the labels before the first message.
  for (const outcome of ['delivered', 'failed'] as const) metrics.deliveries.inc({ provider, outcome }, 0);
  metrics.replays.inc({ provider }, 0);
  return metrics;
}
