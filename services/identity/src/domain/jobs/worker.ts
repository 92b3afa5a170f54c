import { PollingWorker, type PollingWorkerOptions } from '../polling-worker';
import type { UserJobRunner } from './runner';

export type UserJobWorkerOptions = PollingWorkerOptions;

/**
 * Runs the job runner in a loop, as the log stream worker runs delivery: the next step at once
 * while work is waiting, otherwise after pollMs. stop() waits for the step in progress and
 * gives the held job's lease up, so a restart (or another replica) resumes it at once.
 */
export class UserJobWorker extends PollingWorker {
  constructor(runner: UserJobRunner, options: UserJobWorkerOptions) {
    super(async () => (await runner.step()).more, {
      ...options,
      messages: { failed: 'user job step failed; retrying', resumed: 'user jobs resumed' },
      afterStop: () => runner.release(),
    });
  }

  /** Steps until no job is waiting (tests; `max` bounds a runaway). */
  async drain(max = 100_000): Promise<void> {
    for (let i = 0; i < max; i += 1) if (!(await this.runOnce())) return;
  }
}
