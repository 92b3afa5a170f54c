import type { Clock } from '@smsauth/service-kit';

/** A clock the test moves by hand. */
export class TestClock implements Clock {
  constructor(private ms = Date.UTC(2031, 0, 15, 12, 0, 0)) {}
  now(): Date {
    return new Date(this.ms);
  }
  advance(ms: number): void {
    this.ms += ms;
  }
  /** Current time in seconds, for exp/nbf/iat. */
  get seconds(): number {
    return Math.floor(this.ms / 1000);
  }
}
