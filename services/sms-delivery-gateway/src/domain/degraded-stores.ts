import type { MessageStatus } from '@smsauth/contracts';
import { epochMillis, type Clock } from '@smsauth/service-kit';
import { SharedStoreUnavailableError, type IdempotencyRecords } from '../store/idempotency-records';
import type { MessageStatusStore, SharedMessageStatusStore } from '../store/message-status-store';
import { IDEMPOTENCY_TTL_MS, IdempotencyStore, type Idempotency } from './idempotency';
import type { SharedStoreState } from './shared-store-state';

// What the gateway does with its two kinds of Redis records while Redis is away (the decision,
// made for each: docs/operations.md, "Losing Redis"). Both carry on in this replica's memory and
// are written back when Redis returns, never over a record Redis already has.

function isUnavailable(err: unknown): err is SharedStoreUnavailableError {
  return err instanceof SharedStoreUnavailableError;
}

/**
 * Idempotency keys: shared through Redis; while it is away, kept by this replica. A retry of a
 * key on the replica that sent it is answered from memory, during the outage and after it; a
 * retry that lands on another replica during the outage is sent again (the price of delivering
 * at all). A key Redis cannot be asked about is treated as new, for the same reason.
 */
export class DegradableIdempotency<T> implements Idempotency<T> {
  private readonly local: IdempotencyStore<T>;
  /** Outcomes reached while degraded, until written back: key → fingerprint, outcome, when. */
  private readonly unrecorded = new Map<string, { fingerprint: string; outcome: T; at: number }>();
  private readonly ttlMs: number;

  constructor(
    private readonly shared: Idempotency<T>,
    private readonly records: IdempotencyRecords<T>,
    private readonly state: SharedStoreState,
    private readonly clock: Clock,
    options: { ttlMs?: number } = {},
  ) {
    this.ttlMs = options.ttlMs ?? IDEMPOTENCY_TTL_MS;
    this.local = new IdempotencyStore<T>({ clock, ttlMs: this.ttlMs });
    state.onReturn('idempotency', () => this.writeBack());
  }

  async run(key: string, fingerprint: string, task: () => Promise<T>): Promise<{ outcome: T; replayed: boolean }> {
    if (!this.state.degraded && !this.local.has(key)) {
      try {
        return await this.shared.run(key, fingerprint, task);
      } catch (err) {
        // Only a failure to reach Redis before the send: SharedIdempotencyStore absorbs one after it.
        if (!isUnavailable(err)) throw err;
        this.state.enter(err);
      }
    }
    const result = await this.local.run(key, fingerprint, task);
    if (!result.replayed) {
      this.unrecorded.set(key, { fingerprint, outcome: result.outcome, at: epochMillis(this.clock) });
      this.state.deliveredDegraded();
    }
    return result;
  }

  /** Writes the outcomes of the outage to Redis for the rest of their 10 minutes; the count written. */
  private async writeBack(): Promise<number> {
    let written = 0;
    for (const [key, { fingerprint, outcome, at }] of this.unrecorded) {
      const leftMs = this.ttlMs - (epochMillis(this.clock) - at);
      if (leftMs > 0 && (await this.records.completeIfAbsent(key, fingerprint, outcome, leftMs))) written += 1;
      this.unrecorded.delete(key);
    }
    return written;
  }
}

/**
 * Message statuses: in Redis; while it is away, a new message's status and a receipt's update
 * are kept by this replica, and found there by its reads until written back. A receipt for a
 * message that another replica sent during the outage finds no record here (answered as
 * unknown, as a receipt older than the statuses' 24 hours is).
 */
export class DegradableMessageStatusStore implements MessageStatusStore {
  private readonly unrecorded = new Set<string>();

  constructor(
    private readonly shared: SharedMessageStatusStore,
    private readonly local: MessageStatusStore,
    private readonly state: SharedStoreState,
  ) {
    state.onReturn('message_status', () => this.writeBack());
  }

  async get(id: string): Promise<MessageStatus | undefined> {
    const fromRedis = await this.viaRedis(() => this.shared.get(id));
    return fromRedis ?? this.local.get(id);
  }

  async put(record: MessageStatus): Promise<void> {
    const stored = await this.viaRedis(async () => {
      await this.shared.put(record);
      return true;
    });
    if (stored) return;
    await this.local.put(record);
    this.unrecorded.add(record.id);
  }

  async update(id: string, change: (current: MessageStatus) => MessageStatus | undefined): Promise<MessageStatus | undefined> {
    const inRedis = await this.viaRedis(() => this.shared.update(id, change));
    if (inRedis !== undefined) return inRedis;
    const updated = await this.local.update(id, change);
    if (updated !== undefined) this.unrecorded.add(id);
    return updated;
  }

  /** `operation` on Redis unless degraded; undefined when Redis is (or turns out to be) away. */
  private async viaRedis<R>(operation: () => Promise<R>): Promise<R | undefined> {
    if (this.state.degraded) return undefined;
    try {
      return await operation();
    } catch (err) {
      if (!isUnavailable(err)) throw err;
      this.state.enter(err);
      return undefined;
    }
  }

  private async writeBack(): Promise<number> {
    let written = 0;
    for (const id of this.unrecorded) {
      const record = await this.local.get(id);
      if (record !== undefined && (await this.shared.putIfAbsent(record))) written += 1;
      this.unrecorded.delete(id);
    }
    return written;
  }
}
