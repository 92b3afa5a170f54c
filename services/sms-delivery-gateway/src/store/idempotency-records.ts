import { ErrorCodes } from '@smsauth/contracts';
import { HttpError } from '@smsauth/service-kit';

/** Seconds a caller is told to wait (Retry-After) when the shared store cannot be reached. */
export const SHARED_STORE_RETRY_AFTER_SECONDS = 2;

/**
 * The shared store (Redis) could not be reached: refused, reset, timed out, or the driver gave up
 * on a command. A 503 with Retry-After where it reaches a caller; the gateway's degraded mode
 * catches it first and carries on with what this replica holds. The driver's text stays in
 * `message` and `cause` (logs), never in the body.
 */
export class SharedStoreUnavailableError extends HttpError {
  constructor(cause: unknown) {
    super(503, ErrorCodes.SERVICE_UNAVAILABLE, 'The service is temporarily unavailable. Please try again shortly.', {
      headers: { 'Retry-After': String(SHARED_STORE_RETRY_AFTER_SECONDS) },
    });
    this.name = 'SharedStoreUnavailableError';
    this.message = `redis unavailable: ${(cause as Error)?.message ?? String(cause)}`;
    this.cause = cause;
  }
}

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
  /**
   * Records an outcome reached while the shared store was away, unless the key has a record by
   * now (another replica's is kept): true when written.
   */
  completeIfAbsent(key: string, fingerprint: string, outcome: T, ttlMs: number): Promise<boolean>;
}
