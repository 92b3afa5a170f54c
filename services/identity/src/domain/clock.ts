/** Injected wherever time matters (token iat/exp, code expiry), so tests control it. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export function epochSeconds(clock: Clock): number {
  return Math.floor(clock.now().getTime() / 1000);
}
