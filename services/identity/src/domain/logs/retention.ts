import type { Clock, Logger } from '@smsauth/service-kit';
import type { IdentityStore } from '../../store';

export interface LogRetentionOptions {
  /** LOG_RETENTION_DAYS: records older than this are deleted. */
  retentionDays: number;
  /** Rows per DELETE: short statements, so logins writing records never wait long on one. */
  batchSize?: number;
  /** Between two prunes. */
  intervalMs?: number;
}

const DAY_MS = 86_400_000;

/**
 * Deletes tenant log records older than the retention period, in small batches (one short
 * statement each, nothing held between them), periodically, on every replica (the batches of
 * two replicas delete different rows or nothing). stop() ends it and waits for the batch under way.
 */
export class LogRetention {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private stopped = false;
  private readonly batchSize: number;
  private readonly intervalMs: number;

  constructor(
    private readonly store: IdentityStore,
    private readonly clock: Clock,
    private readonly options: LogRetentionOptions,
    private readonly logger: Pick<Logger, 'info' | 'warn'>,
  ) {
    this.batchSize = options.batchSize ?? 1000;
    this.intervalMs = options.intervalMs ?? 10 * 60_000;
  }

  /** Records dated before this are past retention. */
  cutoff(): Date {
    return new Date(this.clock.now().getTime() - this.options.retentionDays * DAY_MS);
  }

  /** Prunes every record past retention, batch by batch; returns how many it deleted. */
  async pruneNow(): Promise<number> {
    const cutoff = this.cutoff();
    let total = 0;
    while (!this.stopped) {
      const deleted = await this.store.tenantLogs.pruneBefore(cutoff, this.batchSize);
      total += deleted;
      if (deleted < this.batchSize) break;
      // Let requests waiting on this process run between two batches.
      await new Promise((resolve) => setImmediate(resolve));
    }
    return total;
  }

  start(): void {
    const tick = () => {
      this.running = this.pruneNow()
        .then((deleted) => {
          if (deleted > 0) this.logger.info({ deleted, retention_days: this.options.retentionDays }, 'tenant logs pruned');
          return deleted;
        })
        .catch((err: unknown) => {
          this.logger.warn({ err }, 'tenant log pruning failed; retrying at the next interval');
          return 0;
        })
        .finally(() => {
          this.running = undefined;
          if (!this.stopped) this.timer = setTimeout(tick, this.intervalMs).unref();
        });
    };
    this.timer = setTimeout(tick, this.intervalMs).unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }
}
