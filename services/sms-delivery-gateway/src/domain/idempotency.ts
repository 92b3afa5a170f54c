import { createHash } from 'node:crypto';
import { epochMillis, HttpError, type Clock } from '@smsauth/service-kit';
import { LRUCache } from 'lru-cache';

export const IDEMPOTENCY_TTL_MS = 10 * 60 * 1000;
export const IDEMPOTENCY_MAX_KEYS = 10_000;

interface Entry<T> {
  fingerprint: string;
  /** Shared by concurrent duplicates, so a key in flight is sent once. */
  outcome: Promise<T>;
}

/**
 * Remembers the outcome of each `Idempotency-Key` for 10 minutes, in memory and bounded
 * (least recently used keys go first). Per process: replicas need sticky routing by key
 * or a shared store.
 */
export class IdempotencyStore<T> {
  private readonly entries: LRUCache<string, Entry<T>>;

  constructor(options: { clock: Clock; ttlMs?: number; maxKeys?: number }) {
    this.entries = new LRUCache<string, Entry<T>>({
      max: options.maxKeys ?? IDEMPOTENCY_MAX_KEYS,
      ttl: options.ttlMs ?? IDEMPOTENCY_TTL_MS,
      ttlResolution: 0,
      perf: { now: () => epochMillis(options.clock) },
    });
  }

  /**
   * Runs `task` once per key; later calls with the key get the same outcome
   * (`replayed: true`). A key reused for a different message is a client bug: 422.
   * If `task` throws (a bug, not a provider refusal) the key is forgotten so a retry can run.
   */
  async run(key: string, fingerprint: string, task: () => Promise<T>): Promise<{ outcome: T; replayed: boolean }> {
    const existing = this.entries.get(key);
    if (existing) {
      if (existing.fingerprint !== fingerprint) {
        throw new HttpError(
          422,
          'invalid_request',
          'This Idempotency-Key was already used for a different message; use a new key per message',
        );
      }
      return { outcome: await existing.outcome, replayed: true };
    }
    const entry: Entry<T> = { fingerprint, outcome: task() };
    this.entries.set(key, entry);
    try {
      return { outcome: await entry.outcome, replayed: false };
    } catch (err) {
      if (this.entries.peek(key) === entry) this.entries.delete(key);
      throw err;
    }
  }
}

/** What makes two deliveries "the same message" for an idempotency key. */
export function messageFingerprint(message: { recipient: string; body: string; sender?: string | undefined }): string {
  return createHash('sha256')
    .update(JSON.stringify([message.recipient, message.body, message.sender ?? null]))
    .digest('base64url');
}
