import { HttpError } from '@smsauth/service-kit';
import type { CodeKey, FailureCountingLimits, IdentityStore, StoredClient, StoredConnection, StoredUser, TenantLogRecord } from '../../store';
import { logRecord, recordEvents, type LogContext } from './tenant-log';

/*
 * The events of the passwordless flow: start (code sent, send failed, refusals) and the code
 * exchange (login, refused guesses, brute-force blocks). The flow calls these; each writes
 * its record with the change it records, or alone when the event changes nothing else.
 */

/** What the start knows about who asks. */
export function startLogContext(
  client: Pick<StoredClient, 'client_id' | 'name'>,
  connection: Pick<StoredConnection, 'name' | 'id'> & Partial<Pick<StoredConnection, 'options'>>,
  phoneNumber: string,
  call: { ip: string; userAgent?: string | undefined },
  user: Pick<StoredUser, 'user_id'> | undefined,
): LogContext {
  return {
    clientId: client.client_id,
    clientName: client.name,
    connection: { name: connection.name, id: connection.id },
    phoneNumber,
    phonePrefixDigits: connection.options?.sms_prefix_digits ?? undefined,
    ip: call.ip,
    userAgent: call.userAgent,
    userId: user?.user_id,
  };
}

/**
 * `cs`, written ahead: the record of a code about to be sent, stored with the code before the
 * delivery is attempted (passwordlessLogins.issueCodeAhead), so no SMS can go out without its
 * record. `details.delivery` says how far it got: `pending` until the outcome is written
 * (`sent`, `failed`, or `unknown` when the gateway did not say), `test_number` when no SMS is
 * sent. A replica that dies in between leaves `pending`: the SMS may or may not have gone out.
 */
export function codeSentAheadRecord(context: LogContext, at: Date, startId: string, delivery: 'pending' | 'test_number'): TenantLogRecord {
  return logRecord('cs', context, at, { start_id: startId, delivery });
}

/** What a failed delivery may tell: its error code and status, never its text (it may quote the message). */
function failureDetails(err: unknown): Record<string, unknown> {
  return err instanceof HttpError ? { error: err.error, status: err.status } : { error: 'delivery_failed' };
}

/**
 * `fn`: the gateway refused the SMS or did not answer. In one transaction the undelivered code
 * is discarded, the start's key (if any) forgotten, its `cs` record marked `failed`, and `fn`
 * appended; if that fails too, the caller still learns why delivery failed (the code then
 * stays until it expires, known to nobody, and the `cs` record stays `pending`).
 */
export async function discardUnsentCode(
  store: IdentityStore,
  code: CodeKey,
  context: LogContext,
  at: Date,
  err: unknown,
  written: { logId: string | undefined; key?: { clientId: string; idempotencyKey: string } } = { logId: undefined },
  channel?: string,
): Promise<void> {
  // `channel`: the one the start tried first (the figures count the failure by it).
  const details = { ...failureDetails(err), ...(channel ? { channel } : {}) };
  await store
    .transaction(async (tx) => {
      await tx.codes.discard(code);
      if (written.key) await tx.passwordlessLogins.forgetStartKey(written.key.clientId, written.key.idempotencyKey, code.request_id);
      if (written.logId) await tx.passwordlessLogins.settleStart(written.logId, { delivery: 'failed', ...details });
      await recordEvents(tx, logRecord('fn', context, at, { start_id: code.request_id, ...details }));
    })
    .catch(() => undefined);
}

/** Start refusals that change nothing: `api_limit` (rate limit), `fs` (sign-up refused), `sms_start_refused` (SMS policy), `sms_start_blocked_user`. */
export type StartRefusal = 'api_limit' | 'fs' | 'sms_start_refused' | 'sms_start_blocked_user';

export async function recordStartRefused(
  store: IdentityStore,
  type: StartRefusal,
  context: LogContext,
  at: Date,
  details: Record<string, unknown> = {},
): Promise<void> {
  await recordEvents(store, logRecord(type, context, at, details));
}

/**
 * Awaits a start check (the rate limits) and, when it refuses with an HttpError, records
 * `type` before the refusal goes on to the caller.
 */
export async function recordingRefusal<T>(
  store: IdentityStore,
  type: StartRefusal,
  context: LogContext,
  at: Date,
  check: Promise<T>,
  detailsOf: (refusal: HttpError) => Record<string, unknown> = (refusal) => ({ error: refusal.error }),
): Promise<T> {
  try {
    return await check;
  } catch (err) {
    if (err instanceof HttpError) await recordStartRefused(store, type, context, at, detailsOf(err));
    throw err;
  }
}

/** Which path exchanged the code: `/oauth/ro`, the OTP grant, the hosted login page. */
export type ExchangeVia = 'oauth/ro' | 'otp' | 'hosted-login' | 'cross-origin';

/** What the caller of an exchange passes for its records. */
export interface ExchangeLog {
  via: ExchangeVia;
  clientName?: string;
  userAgent?: string;
}

/** What a code exchange knows about who asks (its attempt, in code-exchange's terms). */
export function exchangeLogContext(attempt: {
  connection: Pick<StoredConnection, 'name' | 'id'> & Partial<Pick<StoredConnection, 'options'>>;
  clientId: string;
  phoneNumber: string;
  ip: string;
  user: Pick<StoredUser, 'user_id'> | undefined;
  log?: ExchangeLog;
}): LogContext {
  return {
    clientId: attempt.clientId,
    clientName: attempt.log?.clientName,
    connection: { name: attempt.connection.name, id: attempt.connection.id },
    phoneNumber: attempt.phoneNumber,
    phonePrefixDigits: attempt.connection.options?.sms_prefix_digits ?? undefined,
    ip: attempt.ip,
    userAgent: attempt.log?.userAgent,
    userId: attempt.user?.user_id,
  };
}

/** The record of a successful exchange, with the channel that carried the code; the store adds the user's id in the login statement. */
export function loginRecord(context: LogContext, at: Date, via: ExchangeVia | undefined, channel: string, provider: string): Omit<TenantLogRecord, 'user_id'> {
  const { user_id: _user, ...record } = logRecord('s', context, at, { ...(via ? { via } : {}), channel, provider });
  return record;
}

/** Why an exchange was refused, as code-exchange names it, and the event type of each. */
const REFUSAL_TYPES = {
  wrong: 'fp',
  unknown: 'fu',
  used: 'sms_code_used',
  expired: 'sms_code_expired',
  exhausted: 'sms_code_exhausted',
} as const;

export type CountedRefusal = keyof typeof REFUSAL_TYPES;

/**
 * A refused guess: counts the failure (per number and IP, and per number) and records it in
 * one transaction, with `limit_wc` when this failure blocked the IP and `sms_number_locked`
 * when it locked the number.
 */
export async function countRefusedExchange(
  store: IdentityStore,
  failure: { phoneNumber: string; ip: string; at: Date; countIp: boolean },
  limits: FailureCountingLimits,
  refusal: { reason: CountedRefusal; context: LogContext; via?: ExchangeVia },
): Promise<void> {
  const { context, via } = refusal;
  const details = via ? { via } : {};
  await store.transaction(async (tx) => {
    const outcome = await tx.loginFailures.recordFailure(failure, limits);
    const records = [logRecord(REFUSAL_TYPES[refusal.reason], context, failure.at, details)];
    if (outcome.ipBlocked) records.push(logRecord('limit_wc', context, failure.at, { ...details, threshold: limits.threshold, block_seconds: limits.blockSeconds }));
    if (outcome.numberLocked) records.push(logRecord('sms_number_locked', context, failure.at, { ...details, consecutive_failures: limits.consecutiveFailuresLock }));
    await recordEvents(tx, records);
  });
}

/** `sms_blocked_attempt`: refused unchecked by brute-force protection (nothing is counted). */
export async function recordBlockedAttempt(store: IdentityStore, context: LogContext, at: Date, reason: string, via?: ExchangeVia): Promise<void> {
  await recordEvents(store, logRecord('sms_blocked_attempt', context, at, { reason, ...(via ? { via } : {}) }));
}
