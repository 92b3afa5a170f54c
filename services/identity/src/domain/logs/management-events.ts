import type { Clock } from '@smsauth/service-kit';
import type { IdentityStore, TenantLogRecord } from '../../store';
import { changeRecorded, logRecord, type LogContext } from './tenant-log';

/** Who writes through the management API, and where. */
export interface ManagementCallContext {
  /** The caller's client (the management token's azp). */
  clientId: string;
  /** The operator who acts, when the token is a user login's (RBAC); absent for a client_credentials token. */
  actingUserId?: string;
  method: string;
  /** Without the query string (user-blocks carries a phone number there). */
  path: string;
  ip?: string;
  userAgent?: string;
}

/** Which object a write changed, read from its result (a created object's id is known only then). */
export interface WriteTarget {
  id?: string;
  userId?: string;
  phoneNumber?: string;
}

/** The id a management answer names its object by. */
export function targetOfRecord(result: unknown): WriteTarget {
  const record = (result ?? {}) as Record<string, unknown>;
  for (const key of ['user_id', 'client_id', 'id', 'kid', 'credential_id']) {
    const value = record[key];
    if (typeof value !== 'string') continue;
    if (key !== 'user_id') return { id: value };
    // A user's record names its number: the change is on the number's timeline too (q=phone_number:).
    return typeof record.phone_number === 'string' ? { id: value, userId: value, phoneNumber: record.phone_number } : { id: value, userId: value };
  }
  return {};
}

/**
 * `sapi` (or `ublkdu` for an unblock): who (the caller's client) changed which object, by
 * which request. The request body stays out: it may hold a client secret or a gateway token.
 */
export function managementWriteRecord(
  call: ManagementCallContext,
  at: Date,
  description: string,
  target: WriteTarget,
  type: 'sapi' | 'ublkdu' = 'sapi',
): TenantLogRecord {
  const context: LogContext = { clientId: call.clientId, ip: call.ip, userAgent: call.userAgent, userId: target.userId, phoneNumber: target.phoneNumber };
  // Auth0's shape: details.request.auth.user names the operator behind a user token.
  const auth = call.actingUserId ? { auth: { user: { user_id: call.actingUserId } } } : {};
  return logRecord(type, context, at, { request: { method: call.method, path: call.path, ...auth }, ...(target.id ? { target: target.id } : {}) }, description);
}

/**
 * Runs a management write in one transaction with its record: the domain function gets the
 * transaction's store, so every statement it makes commits with the record or not at all.
 */
export async function recordedManagementWrite<T>(
  store: IdentityStore,
  clock: Clock,
  call: ManagementCallContext,
  description: string,
  change: (tx: IdentityStore) => Promise<T>,
  options: { target?: (result: T) => WriteTarget; type?: 'sapi' | 'ublkdu' } = {},
): Promise<T> {
  return changeRecorded(store, change, (result) =>
    managementWriteRecord(call, clock.now(), description, (options.target ?? targetOfRecord)(result), options.type),
  );
}
