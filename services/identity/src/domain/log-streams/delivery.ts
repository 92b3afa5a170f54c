import { randomUUID } from 'node:crypto';
import {
  LOG_STREAM_ID_HEADER,
  LOG_STREAM_SIGNATURE_HEADER,
  type LogStreamContentFormat,
  type LogStreamEvent,
} from '@smsauth/contracts';
import { epochSeconds, type Clock, type Logger } from '@smsauth/service-kit';
import type { IdentityStore, PendingLogRecord, StoredLogStream, StoredTenantLog } from '../../store';
import { toTenantLog } from '../logs/list';
import { logStreamSignature } from './signature';
import { systemTimers, type Timers } from './timers';

/** One POST to a stream's sink. */
export interface LogStreamSinkRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
}

/**
 * Why a POST got no HTTP answer: `refused` when GATEWAY_URL_POLICY refused the address the
 * endpoint resolved to (DNS rebinding), otherwise timeout or unreachable.
 */
export class LogStreamSinkError extends Error {
  constructor(
    readonly reason: 'refused' | 'timeout' | 'unreachable',
    message: string,
  ) {
    super(message);
    this.name = 'LogStreamSinkError';
  }
}

/** The port the HTTP adapter implements: POST once, answer the status or throw LogStreamSinkError. */
export interface LogStreamSink {
  post(request: LogStreamSinkRequest): Promise<{ status: number }>;
}

export type LogStreamDeliveryOutcome = 'delivered' | 'failed' | 'refused';

/** Counts deliveries (log_stream_deliveries_total). */
export interface LogStreamDeliveryMetrics {
  delivery(streamId: string, outcome: LogStreamDeliveryOutcome): void;
  /** Records sent again after taking over a lease its holder never gave back (possible duplicates, same log_id). */
  redelivered?(streamId: string, records: number): void;
}

export interface LogStreamDeliveryPolicy {
  /** Records per request (JSONOBJECT sends one per request whatever this says). */
  batchSize: number;
  /** A POST's deadline; the delivery lease lasts longer, so a live replica never loses it. */
  timeoutMs: number;
  /** Consecutive failures after which the stream is suspended. */
  maxFailures: number;
  /** First retry delay; doubled per consecutive failure up to maxBackoffMs. */
  backoffMs: number;
  maxBackoffMs: number;
}

export interface LogStreamDeliveryDependencies {
  store: IdentityStore;
  clock: Clock;
  sink: LogStreamSink;
  metrics?: LogStreamDeliveryMetrics;
  logger: Pick<Logger, 'warn' | 'info'>;
  policy: LogStreamDeliveryPolicy;
  /** Drive the lease heartbeat (the worker's timers; tests pass ones that never fire, as a killed replica's). */
  timers?: Timers;
}

/** What one attempt at a stream did. */
export type StreamAttempt = 'delivered' | 'idle' | 'busy' | 'failed';

/**
 * How long a delivery lease lasts unless its holder renews it: the holder renews it every third
 * of this while its batch is in flight (until the POST's deadline), so a replica killed
 * mid-batch hands the stream to another within about this long.
 */
export const LEASE_MS = 5_000;

/** A tenant log record as streams deliver it: `{log_id, data}`, data as GET /api/v2/logs shows it. */
export function logStreamEventOf(record: StoredTenantLog): LogStreamEvent {
  return { log_id: record.log_id, data: toTenantLog(record) };
}

/** The request body of a batch in the stream's format. */
export function encodeBatch(format: LogStreamContentFormat, events: readonly LogStreamEvent[]): string {
  if (format === 'JSONARRAY') return JSON.stringify(events);
  if (format === 'JSONOBJECT') return JSON.stringify(events[0]);
  return events.map((event) => JSON.stringify(event)).join('\n');
}

/** Delay before the next attempt after `failures` consecutive failures: doubling, capped. */
export function retryDelayMs(policy: Pick<LogStreamDeliveryPolicy, 'backoffMs' | 'maxBackoffMs'>, failures: number): number {
  return Math.min(policy.backoffMs * 2 ** Math.min(failures - 1, 30), policy.maxBackoffMs);
}

/**
 * Delivers tenant log records to log streams, at least once and in order per stream. Each
 * batch is sent under a lease on the stream row (shared by replicas: one holder at a time);
 * the cursor advances only on a 2xx answer and only under that lease, so a replica that dies
 * mid-delivery leaves the batch to be sent again once its lease expires.
 */
export class LogStreamDeliverer {
  constructor(private readonly deps: LogStreamDeliveryDependencies) {}

  /** One batch for every due stream. `more`: some stream had a full batch, so call again soon. */
  async deliverDue(): Promise<{ attempts: Record<string, StreamAttempt>; more: boolean }> {
    const attempts: Record<string, StreamAttempt> = {};
    let more = false;
    const { logStreams } = this.deps.store;
    for (const { id, cursor } of await logStreams.due(this.deps.clock.now())) {
      // A read first: an idle stream costs no lease write per poll.
      if ((await logStreams.pendingRecords(cursor, 1)).length === 0) {
        attempts[id] = 'idle';
        continue;
      }
      const { attempt, full } = await this.deliverNextBatch(id);
      attempts[id] = attempt;
      more ||= full;
    }
    return { attempts, more };
  }

  /** Sends the stream's next batch, if it is due, free, and has settled records waiting. */
  async deliverNextBatch(streamId: string): Promise<{ attempt: StreamAttempt; full: boolean }> {
    const { store, clock, policy } = this.deps;
    const token = randomUUID();
    const now = clock.now();
    const stream = await store.logStreams.acquireLease(streamId, token, now, new Date(now.getTime() + LEASE_MS));
    if (!stream) return { attempt: 'busy', full: false };
    const heartbeat = this.startHeartbeat(streamId, token, now.getTime() + policy.timeoutMs);
    try {
      return await this.deliverUnderLease(stream, token, heartbeat);
    } finally {
      heartbeat.stop();
    }
  }

  /**
   * Renews the lease every third of LEASE_MS until stopped or past `deadline` (the POST's):
   * a live replica keeps its stream, a dead one stops renewing at once.
   */
  private startHeartbeat(streamId: string, token: string, deadline: number): { stop(): void } {
    const timers = this.deps.timers ?? systemTimers;
    const { store, clock } = this.deps;
    let handle: unknown;
    let stopped = false;
    const beat = () => {
      const now = clock.now().getTime();
      if (stopped || now > deadline) return;
      void store.logStreams
        .renewLease(streamId, token, new Date(now + LEASE_MS))
        .catch(() => undefined)
        .finally(() => {
          if (!stopped) handle = timers.setTimeout(beat, Math.floor(LEASE_MS / 3));
        });
    };
    handle = timers.setTimeout(beat, Math.floor(LEASE_MS / 3));
    return {
      stop() {
        stopped = true;
        timers.clearTimeout(handle);
      },
    };
  }

  private async deliverUnderLease(
    stream: StoredLogStream & { leaseTakenOver: boolean },
    token: string,
    heartbeat: { stop(): void },
  ): Promise<{ attempt: StreamAttempt; full: boolean }> {
    const { store, clock, policy } = this.deps;
    const streamId = stream.id;
    const limit = stream.sink.httpContentFormat === 'JSONOBJECT' ? 1 : policy.batchSize;
    let batch: PendingLogRecord[];
    try {
      batch = await store.logStreams.pendingRecords(stream.cursor, limit);
    } catch (err) {
      await store.logStreams.releaseLease(streamId, token).catch(() => undefined);
      throw err;
    }
    if (batch.length === 0) {
      await store.logStreams.releaseLease(streamId, token);
      return { attempt: 'idle', full: false };
    }
    // The previous holder never gave the lease back: this batch may have reached the sink
    // already. Sent again with the same log_ids (at least once); counted.
    if (stream.leaseTakenOver) {
      this.deps.metrics?.redelivered?.(streamId, batch.length);
      this.deps.logger.warn({ logStream: streamId, records: batch.length }, 'log stream lease taken over from a replica that did not finish; its batch is sent again (same log_id)');
    }
    const failure = await this.post(stream, batch);
    heartbeat.stop();
    if (failure === undefined) {
      await store.logStreams.completeDelivery(streamId, token, batch[batch.length - 1]!.cursor, clock.now());
      this.deps.metrics?.delivery(streamId, 'delivered');
      return { attempt: 'delivered', full: batch.length === limit };
    }
    await this.recordFailure(stream, token, failure);
    return { attempt: 'failed', full: false };
  }

  /** POSTs the batch; undefined on a 2xx answer, otherwise why it failed. */
  private async post(stream: StoredLogStream, batch: readonly PendingLogRecord[]): Promise<{ reason: string; refused: boolean } | undefined> {
    const body = encodeBatch(
      stream.sink.httpContentFormat,
      batch.map(({ record }) => logStreamEventOf(record)),
    );
    const headers: Record<string, string> = {
      'Content-Type': stream.sink.httpContentType,
      [LOG_STREAM_SIGNATURE_HEADER]: logStreamSignature(stream.signingSecret, body, epochSeconds(this.deps.clock)),
      [LOG_STREAM_ID_HEADER]: stream.id,
      ...(stream.httpAuthorization ? { Authorization: stream.httpAuthorization } : {}),
    };
    try {
      const { status } = await this.deps.sink.post({ url: stream.sink.httpEndpoint, body, headers });
      if (status >= 200 && status < 300) return undefined;
      return { reason: `the endpoint answered HTTP ${status}`, refused: false };
    } catch (err) {
      if (err instanceof LogStreamSinkError) return { reason: err.message, refused: err.reason === 'refused' };
      throw err;
    }
  }

  private async recordFailure(stream: StoredLogStream, token: string, failure: { reason: string; refused: boolean }): Promise<void> {
    const { store, clock, policy, logger } = this.deps;
    const now = clock.now();
    const failures = stream.consecutiveFailures + 1;
    const nextAttemptAt = new Date(now.getTime() + retryDelayMs(policy, failures));
    const after = await store.logStreams.recordFailure(stream.id, token, { now, reason: failure.reason, nextAttemptAt, maxFailures: policy.maxFailures });
    this.deps.metrics?.delivery(stream.id, failure.refused ? 'refused' : 'failed');
    // The origin only: an endpoint's path or query may carry a credential.
    const fields = { logStream: stream.id, endpoint: new URL(stream.sink.httpEndpoint).origin, reason: failure.reason, failures };
    if (after?.status === 'suspended') logger.warn(fields, 'log stream suspended after repeated delivery failures');
    else logger.warn({ ...fields, nextAttemptAt: nextAttemptAt.toISOString() }, 'log stream delivery failed; will retry');
  }
}

/** Per stream, seconds since the next undelivered record was written (0 when it is up to date). */
export async function logStreamLagSeconds(store: IdentityStore, clock: Clock): Promise<Array<{ streamId: string; seconds: number }>> {
  const now = clock.now().getTime();
  return (await store.logStreams.oldestUndelivered()).map(({ id, oldest }) => ({
    streamId: id,
    seconds: oldest === null ? 0 : Math.max(0, (now - oldest.getTime()) / 1000),
  }));
}
