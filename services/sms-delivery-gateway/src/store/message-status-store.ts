import type { MessageStatus } from '@smsauth/contracts';
import { LRUCache } from 'lru-cache';

/** How long a message's status is kept (delivery receipts arrive within hours at most). */
export const MESSAGE_STATUS_TTL_MS = 24 * 60 * 60 * 1000;
export const MESSAGE_STATUS_MAX_IN_MEMORY = 100_000;

/** Where per-message statuses live: in memory (one process) or Redis (shared by replicas). */
export interface MessageStatusStore {
  get(id: string): Promise<MessageStatus | undefined>;
  put(record: MessageStatus): Promise<void>;
  /**
   * Applies `change` to the current record atomically (no concurrent update is lost);
   * `change` returns undefined to leave it as it is. Undefined when the id is unknown.
   */
  update(id: string, change: (current: MessageStatus) => MessageStatus | undefined): Promise<MessageStatus | undefined>;
}

/** The store replicas share (Redis), which can also take a record made while it was away. */
export interface SharedMessageStatusStore extends MessageStatusStore {
  /** Writes `record` unless its id has one by now: true when written. */
  putIfAbsent(record: MessageStatus): Promise<boolean>;
}

/** The in-memory store: bounded, least recently used first out, 24 hours at most. */
export class MemoryMessageStatusStore implements MessageStatusStore {
  private readonly records: LRUCache<string, MessageStatus>;

  constructor(options: { now: () => number; ttlMs?: number; max?: number }) {
    this.records = new LRUCache<string, MessageStatus>({
      max: options.max ?? MESSAGE_STATUS_MAX_IN_MEMORY,
      ttl: options.ttlMs ?? MESSAGE_STATUS_TTL_MS,
      ttlResolution: 0,
      perf: { now: options.now },
    });
  }

  async get(id: string): Promise<MessageStatus | undefined> {
    return this.records.get(id);
  }

  async put(record: MessageStatus): Promise<void> {
    this.records.set(record.id, record);
  }

  async update(id: string, change: (current: MessageStatus) => MessageStatus | undefined): Promise<MessageStatus | undefined> {
    // Single-threaded and synchronous between get and set: nothing can interleave.
    const current = this.records.get(id);
    if (current === undefined) return undefined;
    const next = change(current);
    if (next === undefined) return current;
    this.records.set(id, next, { noUpdateTTL: true });
    return next;
  }
}
