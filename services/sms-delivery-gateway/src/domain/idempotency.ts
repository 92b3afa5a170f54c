import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { epochMillis, type Clock, type Logger } from '@smsauth/service-kit';
import { LRUCache } from 'lru-cache';
import type { IdempotencyRecords } from '../store/idempotency-records';
import { idempotencyKeyInProgress, idempotencyKeyReused } from './errors';

export const IDEMPOTENCY_TTL_MS = 10 * 60 * 1000;
export const IDEMPOTENCY_MAX_KEYS = 10_000;
/** How long a duplicate waits for a delivery in flight on another replica before answering 409 (under identity's 30 s timeout). */
export const IN_FLIGHT_MAX_WAIT_MS = 25_000;

interface Entry<T> {
  fingerprint: string;
  /** Shared by concurrent duplicates, so a key in flight is sent once. */
  outcome: Promise<T>;
}

/** One send per `Idempotency-Key`: in memory (IdempotencyStore) or shared by replicas (SharedIdempotencyStore). */
export interface Idempotency<T> {
  run(key: string, fingerprint: string, task: () => Promise<T>): Promise<{ outcome: T; replayed: boolean }>;
}


/**
 * Remembers the outcome of each `Idempotency-Key` for 10 minutes, in memory and bounded
 * (least recently used keys go first). Per process: replicas share keys through
 * SharedIdempotencyStore (REDIS_URL).
 */
export class IdempotencyStore<T> implements Idempotency<T> {
  private readonly entries: LRUCache<string, Entry<T>>;

  constructor(options: { clock: Clock; ttlMs?: number; maxKeys?: number }) {
    this.entries = new LRUCache<string, Entry<T>>({
      max: options.maxKeys ?? IDEMPOTENCY_MAX_KEYS,
      ttl: options.ttlMs ?? IDEMPOTENCY_TTL_MS,
      ttlResolution: 0,
      perf: { now: () => epochMillis(options.clock) },
    });
  }

  /** Whether `key` is held (sent or in flight, within its 10 minutes). */
  has(key: string): boolean {
    return this.entries.has(key);
  }

  /**
   * Runs `task` once per key; later calls with the key get the same outcome
   * (`replayed: true`). A key reused for a different message is a client bug: 422.
   * If `task` throws (a bug, not a provider refusal) the key is forgotten so a retry can run.
   */
  async run(key: string, fingerprint: string, task: () => Promise<T>): Promise<{ outcome: T; replayed: boolean }> {
    const existing = this.entries.get(key);
    if (existing) {
      if (existing.fingerprint !== fingerprint) throw idempotencyKeyReused();
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

/**
 * The idempotency keys shared by every replica (Redis): the first caller marks the key in
 * flight and sends; a duplicate arriving meanwhile, on any replica, waits for the outcome and
 * answers it. The in-flight marker lives `inFlightTtlMs` and its owner renews it while the send
 * runs, so a replica that died mid-send blocks the key for seconds, not for good. Redis
 * unreachable before the send: SharedStoreUnavailableError, nothing sent (DegradableIdempotency
 * then carries on in memory); after it: the outcome is answered and the failure logged.
 */
export class SharedIdempotencyStore<T> implements Idempotency<T> {
  private readonly ttlMs: number;
  private readonly inFlightTtlMs: number;
  private readonly maxWaitMs: number;

  constructor(
    private readonly records: IdempotencyRecords<T>,
    private readonly options: { ttlMs?: number; inFlightTtlMs: number; maxWaitMs?: number; logger: Logger },
  ) {
    this.ttlMs = options.ttlMs ?? IDEMPOTENCY_TTL_MS;
    this.inFlightTtlMs = options.inFlightTtlMs;
    this.maxWaitMs = options.maxWaitMs ?? IN_FLIGHT_MAX_WAIT_MS;
  }

  async run(key: string, fingerprint: string, task: () => Promise<T>): Promise<{ outcome: T; replayed: boolean }> {
    const owner = randomUUID();
    const giveUpAt = Date.now() + this.maxWaitMs;
    let pollMs = 10;
    for (;;) {
      const found = await this.records.claim(key, fingerprint, owner, this.inFlightTtlMs);
      if (found === undefined) return { outcome: await this.runOwned(key, fingerprint, owner, task), replayed: false };
      if (found.fingerprint !== fingerprint) throw idempotencyKeyReused();
      if (found.state === 'done') return { outcome: found.outcome, replayed: true };
      // In flight on some replica: wait for its outcome (or for the marker to go), but not past
      // the caller's own timeout: a 409 it can retry beats an answer it no longer waits for.
      if (Date.now() >= giveUpAt) {
        throw idempotencyKeyInProgress();
      }
      await sleep(pollMs);
      pollMs = Math.min(pollMs * 2, 200);
    }
  }

  private async runOwned(key: string, fingerprint: string, owner: string, task: () => Promise<T>): Promise<T> {
    // The marker is short-lived and renewed while the send runs: a replica killed mid-send
    // leaves its key blocked for at most inFlightTtlMs, not for the longest possible send.
    const heartbeat = setInterval(() => {
      this.records.extend(key, owner, this.inFlightTtlMs).catch(() => undefined);
    }, Math.max(Math.floor(this.inFlightTtlMs / 3), 1));
    heartbeat.unref();
    let outcome: T;
    try {
      outcome = await task();
    } catch (err) {
      clearInterval(heartbeat);
      await this.records.release(key, owner).catch(() => undefined);
      throw err;
    } finally {
      clearInterval(heartbeat);
    }
    try {
      await this.records.complete(key, fingerprint, outcome, this.ttlMs);
    } catch (err) {
      // The message went out: answer its outcome. Its marker is no longer renewed and expires
      // within inFlightTtlMs; a retry with this key after that is sent again.
      this.options.logger.error(
        { err: { message: (err as Error).message }, idempotencyKey: key, markerExpiresInMs: this.inFlightTtlMs },
        'could not record the outcome of an Idempotency-Key: its in-flight marker expires on its own, after which a retry with this key sends again',
      );
    }
    return outcome;
  }
}

/** What makes two deliveries "the same message" for an idempotency key. */
export function messageFingerprint(message: { recipient: string; body: string; sender?: string | undefined; channel?: string | undefined }): string {
  // An SMS fingerprints as it did before channels (a stored key stays valid across the upgrade).
  const channel = message.channel !== undefined && message.channel !== 'sms' ? [message.channel] : [];
  return createHash('sha256')
    .update(JSON.stringify([message.recipient, message.body, message.sender ?? null, ...channel]))
    .digest('base64url');
}
