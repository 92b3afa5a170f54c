import { epochMillis, type Clock } from '@smsauth/service-kit';

export type BreakerState = 'closed' | 'open' | 'half_open';

export interface BreakerPolicy {
  /** Consecutive provider failures that open the breaker. */
  failureThreshold: number;
  /** How long an open breaker skips the provider before letting one probe through. */
  cooldownMs: number;
}

/**
 * One provider's circuit breaker, per process. Closed: every message is tried. After
 * `failureThreshold` consecutive failures it opens and the provider is skipped for
 * `cooldownMs`; then it is half-open: the next message is the one probe (others still skip
 * it) and the probe's result closes it or opens it again for another cool-down.
 */
export class CircuitBreaker {
  private failures = 0;
  private openedAt: number | undefined;
  private probeInFlight = false;

  constructor(
    private readonly policy: BreakerPolicy,
    private readonly clock: Clock,
  ) {}

  get state(): BreakerState {
    if (this.openedAt === undefined) return 'closed';
    return epochMillis(this.clock) - this.openedAt >= this.policy.cooldownMs ? 'half_open' : 'open';
  }

  /** Whether to try the provider now; in half-open, true once (the probe) until it reports. */
  tryAcquire(): boolean {
    const state = this.state;
    if (state === 'closed') return true;
    if (state === 'open' || this.probeInFlight) return false;
    this.probeInFlight = true;
    return true;
  }

  /** The provider answered (accepted, or refused this one message): it works. */
  recordSuccess(): void {
    this.failures = 0;
    this.openedAt = undefined;
    this.probeInFlight = false;
  }

  /** Transport error, timeout or 5xx. */
  recordFailure(): void {
    const probing = this.probeInFlight;
    this.probeInFlight = false;
    this.failures += 1;
    if (probing || this.failures >= this.policy.failureThreshold) this.openedAt = epochMillis(this.clock);
  }
}

/** The breakers of every provider instance, created on first use. */
export class CircuitBreakers {
  private readonly breakers = new Map<string, CircuitBreaker>();

  constructor(
    private readonly policy: BreakerPolicy,
    private readonly clock: Clock,
  ) {}

  of(provider: string): CircuitBreaker {
    let breaker = this.breakers.get(provider);
    if (!breaker) {
      breaker = new CircuitBreaker(this.policy, this.clock);
      this.breakers.set(provider, breaker);
    }
    return breaker;
  }
}
