import type { Logger } from '@smsauth/service-kit';
import { Counter, Gauge, type Registry } from 'prom-client';
import { SharedStoreUnavailableError } from '../store/idempotency-records';

/** How often a degraded gateway asks Redis whether it is back. */
export const SHARED_STORE_PROBE_MS = 1_000;

export interface SharedStoreMetrics {
  degraded: Gauge;
  degradedDeliveries: Counter;
  writtenBack: Counter<'record'>;
}

export function createSharedStoreMetrics(registry: Registry): SharedStoreMetrics {
  return {
    degraded: new Gauge({
      name: 'sms_redis_degraded',
      help: '1 while Redis cannot be reached and deliveries run on this replica\'s memory (degraded mode), else 0',
      registers: [registry],
    }),
    degradedDeliveries: new Counter({
      name: 'sms_degraded_deliveries_total',
      help: 'Deliveries sent in degraded mode: their Idempotency-Key known to this replica only',
      registers: [registry],
    }),
    writtenBack: new Counter({
      name: 'sms_redis_written_back_total',
      help: 'Records made in degraded mode and written to Redis once it was back, by record (idempotency, message_status)',
      labelNames: ['record'] as const,
      registers: [registry],
    }),
  };
}

/** The kinds of record the gateway keeps in Redis. */
export type SharedRecord = 'idempotency' | 'message_status';

/** What is written back when Redis returns: the count written. */
export type WriteBack = () => Promise<number>;

/**
 * Whether the shared store (Redis) is reachable, as the gateway's own operations find it. The
 * first operation that cannot reach it puts the gateway in degraded mode: deliveries go on with
 * what this replica holds in memory (degraded-stores.ts), the gauge says so, /readyz stays ready
 * with the detail, and a probe asks Redis every second. When the probe answers, what was made
 * meanwhile is written back (never over a record Redis already has) and Redis is used again.
 */
export class SharedStoreState {
  private since: Date | undefined;
  private timer: NodeJS.Timeout | undefined;
  private probing = false;
  private closed = false;
  private readonly writeBacks: Array<{ record: SharedRecord; writeBack: WriteBack }> = [];
  private readonly now: () => Date;

  constructor(
    private readonly deps: {
      /** Resolves when Redis answers (a PING). */
      probe: () => Promise<unknown>;
      logger: Logger;
      metrics: SharedStoreMetrics;
      now?: () => Date;
      probeIntervalMs?: number;
    },
  ) {
    this.now = deps.now ?? (() => new Date());
    deps.metrics.degraded.set(0);
  }

  get degraded(): boolean {
    return this.since !== undefined;
  }

  /** Registers what to write back to Redis on its return. */
  onReturn(record: SharedRecord, writeBack: WriteBack): void {
    this.writeBacks.push({ record, writeBack });
  }

  /** An operation could not reach Redis: degraded mode from now until the probe finds it back. */
  enter(err: SharedStoreUnavailableError): void {
    if (this.since !== undefined || this.closed) return;
    this.since = this.now();
    this.deps.metrics.degraded.set(1);
    this.deps.logger.warn(
      { err: { message: err.message } },
      'redis unreachable: degraded mode, deliveries continue with idempotency kept by this replica alone until redis is back',
    );
    this.schedule();
  }

  /** Counts a delivery whose key only this replica knows. */
  deliveredDegraded(): void {
    this.deps.metrics.degradedDeliveries.inc();
  }

  /**
   * The readiness check: asks Redis (so an outage shows without traffic too) and answers the
   * detail. Ready either way, since deliveries continue: a balancer keeps sending to this replica.
   */
  async readiness(): Promise<string> {
    if (this.since === undefined) {
      try {
        await this.deps.probe();
      } catch (err) {
        this.enter(err instanceof SharedStoreUnavailableError ? err : new SharedStoreUnavailableError(err));
      }
    }
    // The driver's reason (a host and port) stays in the log: /readyz answers anyone who can reach it.
    return this.since === undefined ? 'ok' : `degraded: unreachable since ${this.since.toISOString()}; deliveries continue with idempotency per replica`;
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }

  private schedule(): void {
    if (this.closed) return;
    this.timer = setTimeout(() => void this.probeOnce(), this.deps.probeIntervalMs ?? SHARED_STORE_PROBE_MS);
    this.timer.unref();
  }

  private async probeOnce(): Promise<void> {
    if (this.probing || this.since === undefined) return;
    this.probing = true;
    try {
      await this.deps.probe();
      let written = 0;
      for (const { record, writeBack } of this.writeBacks) {
        const count = await writeBack();
        this.deps.metrics.writtenBack.inc({ record }, count);
        written += count;
      }
      const degradedForMs = this.now().getTime() - this.since.getTime();
      this.since = undefined;
      this.deps.metrics.degraded.set(0);
      this.deps.logger.info({ degradedForMs, writtenBack: written }, 'redis is back: degraded mode ends, records made meanwhile written back');
    } catch {
      // Still away (or gone again while writing back): keep what is left for the next probe.
      this.schedule();
    } finally {
      this.probing = false;
    }
  }
}
