import type { Clock } from '../../src';

/** A clock the test moves by hand. */
export class TestClock implements Clock {
  constructor(private ms = Date.UTC(2031, 0, 15, 12, 0, 0)) {}
  now(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
  /** Current time in seconds, for exp/nbf/iat. */
  get seconds(): number {
    return Math.floor(this.ms / 1000);
  }
}
