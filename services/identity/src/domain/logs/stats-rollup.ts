import type { Logger } from '@smsauth/service-kit';
import type { IdentityStore } from '../../store';

const BATCH = 20_000;

/**
 * Brings the figures' hourly counts up to the tenant log, batch by batch, each in a transaction
 * under one lock (replicas take turns; each batch continues where the last one stopped). The
 * figures are exact without it (the records it has not reached are counted from the log): it
 * keeps them fast. Returns how many records it counted.
 */
export async function rollUpLoginStats(store: IdentityStore, batch = BATCH): Promise<number> {
  let total = 0;
  for (;;) {
    const read = await store.transaction(async (tx) => {
      await tx.lockForTransaction('login-stats-rollup');
      return tx.loginStats.rollUp(batch);
    });
    total += read;
    if (read < batch) return total;
    // Let requests waiting on this process run between two batches.
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Runs rollUpLoginStats periodically; stop() ends it and waits for the run under way. */
export class LoginStatsRollup {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = false;

  constructor(
    private readonly store: IdentityStore,
    private readonly logger: Pick<Logger, 'warn'>,
    private readonly intervalMs = 60_000,
  ) {}

  start(): void {
    const tick = () => {
      this.running = rollUpLoginStats(this.store)
        .catch((err: unknown) => this.logger.warn({ err }, 'login stats rollup failed; the figures stay exact, only slower'))
        .finally(() => {
          if (!this.stopped) this.timer = setTimeout(tick, this.intervalMs).unref();
        });
    };
    this.timer = setTimeout(tick, this.intervalMs).unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }
}
