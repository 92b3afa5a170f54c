import type { Logger } from '@smsauth/service-kit';
import { systemTimers, type Timers } from './log-streams/timers';

export interface PollingWorkerOptions {
  /** Pause between passes when the last one found nothing more waiting. */
  pollMs: number;
  timers?: Timers;
  logger: Pick<Logger, 'warn' | 'info'>;
}

/**
 * A background loop over the database (log-stream delivery, bulk user jobs): a pass, then the
 * next at once while the pass says more is waiting, otherwise after pollMs. One pass at a time;
 * stop() waits for the pass in progress, then `afterStop`. A failing pass is logged once per
 * streak (a database outage would otherwise log every poll) and retried after pollMs.
 */
export class PollingWorker {
  private timer: unknown;
  private current: Promise<void> | undefined;
  private stopped = true;
  private failing = false;
  private readonly timers: Timers;

  constructor(
    private readonly pass: () => Promise<boolean>,
    private readonly options: PollingWorkerOptions & {
      /** Log lines: a pass failed (once per streak) and passes work again. */
      messages: { failed: string; resumed: string };
      afterStop?: () => Promise<void>;
    },
  ) {
    this.timers = options.timers ?? systemTimers;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
    await this.current;
    await this.options.afterStop?.();
  }

  /** One pass now (after the one in progress, if any); answers whether more is waiting. */
  async runOnce(): Promise<boolean> {
    while (this.current) await this.current;
    let more = false;
    this.current = this.pass().then((result) => {
      more = result;
    });
    try {
      await this.current;
    } finally {
      this.current = undefined;
    }
    return more;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = this.timers.setTimeout(() => void this.tick(), ms);
  }

  private async tick(): Promise<void> {
    this.timer = undefined;
    let more = false;
    try {
      more = await this.runOnce();
      if (this.failing) this.options.logger.info(this.options.messages.resumed);
      this.failing = false;
    } catch (err) {
      if (!this.failing) this.options.logger.warn({ err }, this.options.messages.failed);
      this.failing = true;
    }
    this.schedule(more ? 0 : this.options.pollMs);
  }
}
