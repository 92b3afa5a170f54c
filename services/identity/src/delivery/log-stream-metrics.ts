import { Counter, Gauge, type Registry } from 'prom-client';
import type { LogStreamDeliveryMetrics } from '../domain/log-streams/delivery';

/**
 * log_stream_deliveries_total{stream,outcome} (outcome: delivered, failed, refused) and
 * log_stream_lag_seconds{stream}, the age of each stream's next undelivered record, read from
 * the database at every scrape (so a suspended stream's lag keeps growing on the dashboard).
 * `stream` is the stream id: stable under renames, and a tenant has a handful.
 */
export function logStreamMetrics(
  registry: Registry,
  lags: () => Promise<Array<{ streamId: string; seconds: number }>>,
): LogStreamDeliveryMetrics {
  const deliveries = new Counter({
    name: 'log_stream_deliveries_total',
    help: 'Log stream batch deliveries by stream and outcome (delivered, failed, refused)',
    labelNames: ['stream', 'outcome'] as const,
    registers: [registry],
  });
  new Gauge({
    name: 'log_stream_lag_seconds',
    help: 'Age in seconds of the oldest tenant log record a log stream has not delivered yet (0 when up to date)',
    labelNames: ['stream'] as const,
    registers: [registry],
    async collect() {
      try {
        const current = await lags();
        this.reset();
        for (const { streamId, seconds } of current) this.set({ stream: streamId }, seconds);
      } catch {
        // Database unreachable: keep the last values rather than failing the whole scrape.
      }
    },
  });
  const redelivered = new Counter({
    name: 'log_stream_redelivered_records_total',
    help: 'Log stream records sent again after taking over the lease of a replica that did not finish its batch (possible duplicates, same log_id)',
    labelNames: ['stream'] as const,
    registers: [registry],
  });
  return {
    delivery: (streamId, outcome) => deliveries.inc({ stream: streamId, outcome }),
    redelivered: (streamId, records) => redelivered.inc({ stream: streamId }, records),
  };
}
