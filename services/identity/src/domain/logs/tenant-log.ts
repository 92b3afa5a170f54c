import { randomInt } from 'node:crypto';
import { LOG_EVENT_TYPES, NEW_CONNECTION_SMS_POLICY, type LogEventType } from '@smsauth/contracts';
import { maskPhoneNumber } from '@smsauth/service-kit';
import type { IdentityStore, TenantLogRecord } from '../../store';
import { smsNumberFacts } from '../sms-policy/policy';

/**
 * Who and what an event is about, as far as the action that causes it knows. The phone
 * number is the full one here and masked in the record; nothing here may be a code, a
 * secret or a token.
 */
export interface LogContext {
  clientId?: string;
  clientName?: string;
  connection?: { name: string; id: string };
  userId?: string;
  ip?: string;
  userAgent?: string;
  phoneNumber?: string;
  /** The connection's sms_prefix_digits: the prefix the SMS figures count the number under (the fraud guard's). */
  phonePrefixDigits?: number;
}

/**
 * Log ids in the reference product's shape: `900`, the UTC time to the millisecond
 * (YYYYMMDDHHmmssSSS), then 36 random digits. Unique; ordered by time only roughly (the
 * stream order is the table's seq).
 */
export function newLogId(at: Date): string {
  const time = at.toISOString().replace(/\D/g, '').slice(0, 17);
  let random = '';
  while (random.length < 36) random += String(randomInt(0, 1_000_000_000)).padStart(9, '0');
  return `900${time}${random}`;
}

/** The record of one event; `description` defaults to the type's name in LOG_EVENT_TYPES. */
export function logRecord(
  type: LogEventType,
  context: LogContext,
  at: Date,
  details: Record<string, unknown> = {},
  description: string = LOG_EVENT_TYPES[type],
): TenantLogRecord {
  return {
    log_id: newLogId(at),
    date: at,
    type,
    description,
    client_id: context.clientId,
    client_name: context.clientName,
    connection: context.connection?.name,
    connection_id: context.connection?.id,
    user_id: context.userId,
    ip: context.ip,
    user_agent: context.userAgent,
    ...(context.phoneNumber === undefined ? {} : phoneFields(context.phoneNumber, context.phonePrefixDigits)),
    details,
  };
}

/**
 * What a record keeps of a number: masked for reading, the full number for the store to hash
 * (phone_lookup, never written), its country and prefix for the figures.
 */
function phoneFields(phoneNumber: string, prefixDigits = NEW_CONNECTION_SMS_POLICY.sms_prefix_digits ?? 4) {
  const facts = smsNumberFacts(phoneNumber, prefixDigits);
  return {
    phone_number: maskPhoneNumber(phoneNumber),
    phone_lookup: phoneNumber,
    ...(facts.country !== undefined ? { phone_country: facts.country } : {}),
    phone_prefix: facts.prefix,
  };
}

/**
 * Appends records on `store`: inside store.transaction() they commit with the change they
 * record. Used alone only for events that change nothing else (a refusal, a token signed).
 */
export async function recordEvents(store: IdentityStore, records: TenantLogRecord | readonly TenantLogRecord[]): Promise<void> {
  await store.tenantLogs.append(records);
}

/**
 * Runs `change` in one transaction with the records `recordsOf` makes of its result (none
 * when it returns undefined): the records commit with the change or not at all.
 */
export async function changeRecorded<T>(
  store: IdentityStore,
  change: (tx: IdentityStore) => Promise<T>,
  recordsOf: (result: T) => TenantLogRecord | readonly TenantLogRecord[] | undefined,
): Promise<T> {
  return store.transaction(async (tx) => {
    const result = await change(tx);
    const records = recordsOf(result);
    if (records) await recordEvents(tx, records);
    return result;
  });
}
