import type { MessageStatus } from '@smsauth/contracts';
import type { Redis } from 'ioredis';
import { SharedStoreUnavailableError, type IdempotencyEntry, type IdempotencyRecords } from './idempotency-records';
import { MESSAGE_STATUS_TTL_MS, type SharedMessageStatusStore } from './message-status-store';

// Compare-and-set and compare-and-delete: the only multi-step operations, done atomically in Redis.
const SET_IF_UNCHANGED = `if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL') return 1 end return 0`;
const DELETE_IF_EQUAL = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;
const EXTEND_IF_EQUAL = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`;

/** The shared store's unavailability, as Redis reports it (refused, reset, timed out, a command given up). */
export class RedisUnavailableError extends SharedStoreUnavailableError {
  constructor(cause: unknown) {
    super(cause);
    this.name = 'RedisUnavailableError';
  }
}

/** Runs one Redis operation; whatever it throws is Redis being unavailable (our commands and scripts are fixed). */
async function redisCall<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (err) {
    throw err instanceof RedisUnavailableError ? err : new RedisUnavailableError(err);
  }
}

interface StoredEntry {
  fingerprint: string;
  state: 'in_flight' | 'done';
  owner?: string;
  outcome?: unknown;
}

/** Idempotency keys and in-flight markers in Redis, under `{prefix}idempotency:`. */
export class RedisIdempotencyRecords<T> implements IdempotencyRecords<T> {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private keyOf(key: string): string {
    return `${this.prefix}idempotency:${key}`;
  }

  claim(key: string, fingerprint: string, owner: string, inFlightTtlMs: number): Promise<IdempotencyEntry<T> | undefined> {
    return redisCall(() => this.claimOnce(key, fingerprint, owner, inFlightTtlMs));
  }

  private async claimOnce(key: string, fingerprint: string, owner: string, inFlightTtlMs: number): Promise<IdempotencyEntry<T> | undefined> {
    const marker = JSON.stringify({ fingerprint, state: 'in_flight', owner } satisfies StoredEntry);
    // Two tries: the entry found by a failed SET NX may expire before the GET.
    for (let attempt = 0; attempt < 2; attempt++) {
      const set = await this.redis.set(this.keyOf(key), marker, 'PX', inFlightTtlMs, 'NX');
      if (set === 'OK') return undefined;
      const raw = await this.redis.get(this.keyOf(key));
      if (raw === null) continue;
      const entry = JSON.parse(raw) as StoredEntry;
      return entry.state === 'done'
        ? { fingerprint: entry.fingerprint, state: 'done', outcome: entry.outcome as T }
        : { fingerprint: entry.fingerprint, state: 'in_flight' };
    }
    return { fingerprint, state: 'in_flight' };
  }

  async complete(key: string, fingerprint: string, outcome: T, ttlMs: number): Promise<void> {
    await redisCall(() => this.redis.set(this.keyOf(key), JSON.stringify({ fingerprint, state: 'done', outcome } satisfies StoredEntry), 'PX', ttlMs));
  }

  async completeIfAbsent(key: string, fingerprint: string, outcome: T, ttlMs: number): Promise<boolean> {
    const entry = JSON.stringify({ fingerprint, state: 'done', outcome } satisfies StoredEntry);
    return (await redisCall(() => this.redis.set(this.keyOf(key), entry, 'PX', ttlMs, 'NX'))) === 'OK';
  }

  async release(key: string, owner: string): Promise<void> {
    await redisCall(async () => {
      const raw = await this.redis.get(this.keyOf(key));
      if (raw === null) return;
      const entry = JSON.parse(raw) as StoredEntry;
      if (entry.state === 'in_flight' && entry.owner === owner) await this.redis.eval(DELETE_IF_EQUAL, 1, this.keyOf(key), raw);
    });
  }

  async extend(key: string, owner: string, inFlightTtlMs: number): Promise<void> {
    await redisCall(async () => {
      const raw = await this.redis.get(this.keyOf(key));
      if (raw === null) return;
      const entry = JSON.parse(raw) as StoredEntry;
      if (entry.state === 'in_flight' && entry.owner === owner) await this.redis.eval(EXTEND_IF_EQUAL, 1, this.keyOf(key), raw, inFlightTtlMs);
    });
  }
}

/** Message statuses in Redis, under `{prefix}message:`, kept 24 hours. */
export class RedisMessageStatusStore implements SharedMessageStatusStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly ttlMs = MESSAGE_STATUS_TTL_MS,
  ) {}

  private keyOf(id: string): string {
    return `${this.prefix}message:${id}`;
  }

  async get(id: string): Promise<MessageStatus | undefined> {
    const raw = await redisCall(() => this.redis.get(this.keyOf(id)));
    return raw === null ? undefined : (JSON.parse(raw) as MessageStatus);
  }

  async put(record: MessageStatus): Promise<void> {
    await redisCall(() => this.redis.set(this.keyOf(record.id), JSON.stringify(record), 'PX', this.ttlMs));
  }

  /** Writes `record` unless its id has one (kept for `ttlMs`): true when written. */
  async putIfAbsent(record: MessageStatus, ttlMs = this.ttlMs): Promise<boolean> {
    return (await redisCall(() => this.redis.set(this.keyOf(record.id), JSON.stringify(record), 'PX', Math.max(1, Math.round(ttlMs)), 'NX'))) === 'OK';
  }

  update(id: string, change: (current: MessageStatus) => MessageStatus | undefined): Promise<MessageStatus | undefined> {
    return redisCall(() => this.updateOptimistically(id, change));
  }

  private async updateOptimistically(id: string, change: (current: MessageStatus) => MessageStatus | undefined): Promise<MessageStatus | undefined> {
    // Optimistic: retry when another replica changed the record between read and write.
    for (;;) {
      const raw = await this.redis.get(this.keyOf(id));
      if (raw === null) return undefined;
      const current = JSON.parse(raw) as MessageStatus;
      const next = change(current);
      if (next === undefined) return current;
      const written = await this.redis.eval(SET_IF_UNCHANGED, 1, this.keyOf(id), raw, JSON.stringify(next));
      if (written === 1) return next;
    }
  }
}
