/** What the shared idempotency store keeps per key. */
export type IdempotencyEntry<T> =
  | { fingerprint: string; state: 'in_flight' }
  | { fingerprint: string; state: 'done'; outcome: T };

/** Shared idempotency keys (Redis): claim a key, record its outcome, or give it back. */
export interface IdempotencyRecords<T> {
  /**
   * Marks `key` in flight for `inFlightTtlMs` unless it exists: undefined when this caller
   * now owns it (token `owner`), else the entry found.
   */
  claim(key: string, fingerprint: string, owner: string, inFlightTtlMs: number): Promise<IdempotencyEntry<T> | undefined>;
  complete(key: string, fingerprint: string, outcome: T, ttlMs: number): Promise<void>;
  /** Forgets the key if `owner` still holds it in flight. */
  release(key: string, owner: string): Promise<void>;
  /** Keeps `owner`'s in-flight marker for another `inFlightTtlMs` (the heartbeat of a send under way). */
  extend(key: string, owner: string, inFlightTtlMs: number): Promise<void>;
}
