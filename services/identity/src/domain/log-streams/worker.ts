import type { Logger } from '@smsauth/service-kit';
import type { LogStreamDeliverer } from './delivery';

import { systemTimers, type Timers } from './timers';

export { systemTimers, type Timers };

export interface LogStreamWorkerOptions {
  /** Pause between passes when no stream had a full batch waiting. */
  pollMs: number;
  timers?: Timers;
  logger: Pick<Logger, 'warn' | 'info'>;
}

/**
 * Runs the deliverer in a loop: a pass over the due streams, then the next one at once while
 * some stream has a full batch waiting, otherwise after pollMs. One pass at a time; stop()
 * waits for the pass in progress, so a shutdown never cuts a delivery's write-back short.
 */
export class LogStreamWorker {
  private timer: unknown;
  private current: Promise<void> | undefined;
  private stopped = true;
  private failing = false;
  private readonly timers: Timers;

  constructor(
    private readonly deliverer: LogStreamDeliverer,
    private readonly options: LogStreamWorkerOptions,
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
  }

  /** One pass now (after the one in progress, if any); answers whether more is waiting. */
  async runOnce(): Promise<boolean> {
    while (this.current) await this.current;
    let more = false;
    this.current = this.deliverer.deliverDue().then((result) => {
      more = result.more;
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
      if (this.failing) this.options.logger.info('log stream delivery resumed');
      this.failing = false;
    } catch (err) {
      // Once per streak (a database outage would otherwise log every poll).
      if (!this.failing) this.options.logger.warn({ err }, 'log stream delivery pass failed; retrying');
      this.failing = true;
    }
    this.schedule(more ? 0 : this.options.pollMs);
  }
}
