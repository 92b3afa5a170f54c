/**
 * For the e2e suite's control servers (test-e2e's global setup, and the containers' in
 * scripts/containers/control-server.cjs): the stack is shared by the suites, which jest runs
 * side by side in its workers. A suite that restarts a service must not pull it from under
 * another suite's requests: every suite is "inside" while it runs, and a restart waits until
 * its own suite is the only one inside; suites that start meanwhile wait until it is over.
 */
export class StackUseGate {
  private inside = 0;
  /** Set while a restart waits for others to leave or runs: no suite enters. */
  private exclusive = false;
  private waiting: Array<() => void> = [];

  async enter(): Promise<void> {
    while (this.exclusive) await this.changed();
    this.inside += 1;
  }

  leave(): void {
    this.inside = Math.max(0, this.inside - 1);
    this.wake();
  }

  /** Runs `fn` once no suite but the caller's (if it entered) is inside; one at a time. */
  async alone<T>(fn: () => Promise<T>): Promise<T> {
    while (this.exclusive) await this.changed();
    this.exclusive = true;
    try {
      while (this.inside > 1) await this.changed();
      return await fn();
    } finally {
      this.exclusive = false;
      this.wake();
    }
  }

  private changed(): Promise<void> {
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private wake(): void {
    for (const resolve of this.waiting.splice(0)) resolve();
  }
}
