import { epochMillis, epochSeconds, systemClock, type Clock } from '../src';

describe('clock', () => {
  it('reads whole seconds and milliseconds from the clock it is given', () => {
    const clock: Clock = { now: () => new Date(1_700_000_000_999) };
    expect(epochSeconds(clock)).toBe(1_700_000_000);
    expect(epochMillis(clock)).toBe(1_700_000_000_999);
  });

  it('reads the system time from the system clock', () => {
    const before = Date.now();
    const now = epochMillis(systemClock);
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });
});
