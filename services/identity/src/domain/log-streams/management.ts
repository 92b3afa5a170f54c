import { withoutUndefined, type LogStreamCreate, type LogStreamCreated, type LogStreamRecord, type LogStreamUpdate } from '@smsauth/contracts';
import type { IdentityStore, StoredLogStream } from '../../store';
import { newId } from '../ids';
import { notFound } from '../management/validation';
import { newSigningSecret } from './signature';

/** What stream validation needs besides the store. */
export interface LogStreamRules {
  /** Rejects with a 400 naming `sink.httpEndpoint` when GATEWAY_URL_POLICY refuses the URL. */
  checkSinkUrl(url: string): Promise<void>;
}

/** The management API's view of a stream: the authorization header and the signing secret stay out. */
export function toLogStreamRecord(stream: StoredLogStream): LogStreamRecord {
  const iso = (date: Date | null) => (date === null ? undefined : date.toISOString());
  return {
    id: stream.id,
    name: stream.name,
    type: stream.type,
    status: stream.status,
    sink: { ...stream.sink },
    ...(stream.status === 'suspended' && stream.suspendedReason ? { suspended_reason: stream.suspendedReason } : {}),
    delivery: {
      consecutive_failures: stream.consecutiveFailures,
      ...(stream.lastDeliveredAt ? { last_delivered_at: iso(stream.lastDeliveredAt) } : {}),
      ...(stream.lastFailureAt && stream.lastFailureReason ? { last_failure: { at: iso(stream.lastFailureAt)!, reason: stream.lastFailureReason } } : {}),
      ...(stream.nextAttemptAt ? { next_attempt_at: iso(stream.nextAttemptAt) } : {}),
    },
  };
}

/** Creates an active stream that delivers every record from now on; answers its signing secret this once. */
export async function createLogStream(store: IdentityStore, rules: LogStreamRules, input: LogStreamCreate): Promise<LogStreamCreated> {
  await rules.checkSinkUrl(input.sink.httpEndpoint);
  const { httpAuthorization, ...sink } = input.sink;
  const signingSecret = newSigningSecret();
  const created = await store.logStreams.insert({ id: newId('lst'), name: input.name, sink, httpAuthorization: httpAuthorization ?? null, signingSecret });
  return { ...toLogStreamRecord(created), signing_secret: signingSecret };
}

export async function getLogStream(store: IdentityStore, id: string): Promise<LogStreamRecord> {
  const stream = await store.logStreams.findById(id);
  if (!stream) throw notFound('Log stream');
  return toLogStreamRecord(stream);
}

export async function listLogStreams(store: IdentityStore): Promise<LogStreamRecord[]> {
  return (await store.logStreams.list()).map(toLogStreamRecord);
}

/** Sink fields are merged into the stored sink; `status: "active"` resumes from the cursor. */
export async function updateLogStream(store: IdentityStore, rules: LogStreamRules, id: string, patch: LogStreamUpdate): Promise<LogStreamRecord> {
  // Before the transaction: DNS may be slow, and the row lock should not wait for it.
  if (patch.sink?.httpEndpoint !== undefined) await rules.checkSinkUrl(patch.sink.httpEndpoint);
  const updated = await store.transaction(async (tx) => {
    const current = await tx.logStreams.findByIdForUpdate(id);
    if (!current) throw notFound('Log stream');
    const { httpAuthorization, ...sinkPatch } = patch.sink ?? {};
    const sink = patch.sink ? { ...current.sink, ...withoutUndefined(sinkPatch) } : undefined;
    return tx.logStreams.update(id, { name: patch.name, sink, httpAuthorization, status: patch.status });
  });
  if (!updated) throw notFound('Log stream');
  return toLogStreamRecord(updated);
}

export async function deleteLogStream(store: IdentityStore, id: string): Promise<void> {
  if (!(await store.logStreams.delete(id))) throw notFound('Log stream');
}

