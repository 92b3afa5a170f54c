import type { Logger } from '@smsauth/service-kit';
import { systemTimers, type Timers } from '../log-streams/timers';
import type { UserJobRunner } from './runner';

export interface UserJobWorkerOptions {
  /** Pause between passes when no job was waiting. */
  pollMs: number;
  timers?: Timers;
  logger: Pick<Logger, 'warn' | 'info'>;
}

/**
 * Runs the job runner in a loop, as the log stream worker runs delivery: the next step at once
 * while work is waiting, otherwise after pollMs. stop() waits for the step in progress and
 * gives the held job's lease up, so a restart (or another replica) resumes it at once.
 */
export class UserJobWorker {
  private timer: unknown;
  private current: Promise<void> | undefined;
  private stopped = true;
  private failing = false;
  private readonly timers: Timers;

  constructor(
    private readonly runner: UserJobRunner,
    private readonly options: UserJobWorkerOptions,
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
    await this.runner.release();
  }

  /** One step now (after the one in progress, if any); answers whether more may be waiting. */
  async runOnce(): Promise<boolean> {
    while (this.current) await this.current;
    let more = false;
    this.current = this.runner.step().then((result) => {
      more = result.more;
    });
    try {
      await this.current;
    } finally {
      this.current = undefined;
    }
    return more;
  }

  /** Steps until no job is waiting (tests; `max` bounds a runaway). */
  async drain(max = 100_000): Promise<void> {
    for (let i = 0; i < max; i += 1) if (!(await this.runOnce())) return;
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
      if (this.failing) this.options.logger.info('user jobs resumed');
      this.failing = false;
    } catch (err) {
      if (!this.failing) this.options.logger.warn({ err }, 'user job step failed; retrying');
      this.failing = true;
    }
    this.schedule(more ? 0 : this.options.pollMs);
  }
}
