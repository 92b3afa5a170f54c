/** Where the current time comes from: injected wherever time matters, so tests can move it. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** The clock's time as a JWT NumericDate (whole seconds since the epoch). */
export function epochSeconds(clock: Clock): number {
  return Math.floor(clock.now().getTime() / 1000);
}

/** The clock's time in milliseconds since the epoch. */
export function epochMillis(clock: Clock): number {
  return clock.now().getTime();
}
