import { UserImportRecordSchema, type UserImportRecord } from '@smsauth/contracts';
import type { z } from 'zod';
import { canonicalPhoneNumber } from '../phone/canonical-number';

/** One error of a refused record, in the reference product's shape (its JSON-schema codes). */
export interface RecordError {
  code: string;
  message: string;
  path?: string;
}

/** A record that passed every check that needs no database: its number in E.164, its full user id. */
export interface CheckedRecord {
  ordinal: number;
  record: UserImportRecord;
  phoneNumber: string;
  /** `sms|<id>` when the record names one. */
  userId: string | undefined;
}

export type RecordCheck = { ok: true; checked: CheckedRecord } | { ok: false; ordinal: number; user: unknown; errors: RecordError[] };

/** The reference product's import error codes for the schema problems zod reports. */
function errorOf(issue: z.core.$ZodIssue, user: unknown): RecordError[] {
  const path = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({ code: 'OBJECT_ADDITIONAL_PROPERTIES', message: `Additional properties not allowed: ${key}`, path: path ? `${path}.${key}` : key }));
  }
  if (issue.code === 'invalid_type' && issue.path.length === 1 && !Object.hasOwn(user as object, issue.path[0]!)) {
    return [{ code: 'OBJECT_MISSING_REQUIRED_PROPERTY', message: `Missing required property: ${path}`, path }];
  }
  if (path === '') return [{ code: 'INVALID_TYPE', message: 'A user must be a JSON object' }];
  if (issue.code === 'invalid_type') return [{ code: 'INVALID_TYPE', message: `${path}: ${issue.message}`, path }];
  return [{ code: 'INVALID_FORMAT', message: `${path}: ${issue.message}`, path }];
}

/** `sms|` is the prefix of the connection's user ids; a record may give the id with or without it. */
export function importedUserId(given: string): string {
  return given.startsWith('sms|') ? given : `sms|${given}`;
}

/**
 * Checks one record of the file: the schema (unknown properties are errors), then the number,
 * canonicalised exactly as every number entering identity is (canonicalPhoneNumber).
 */
export function checkRecord(user: unknown, ordinal: number): RecordCheck {
  const parsed = UserImportRecordSchema.safeParse(user);
  if (!parsed.success) return { ok: false, ordinal, user, errors: parsed.error.issues.flatMap((issue) => errorOf(issue, user)) };
  // PostgreSQL's jsonb cannot hold U+0000: refused here, or the whole batch would fail on every retry.
  for (const path of ['user_metadata', 'app_metadata'] as const) {
    if (parsed.data[path] && JSON.stringify(parsed.data[path]).includes('\\u0000')) {
      return { ok: false, ordinal, user, errors: [{ code: 'INVALID_FORMAT', message: `${path} must not contain the character U+0000`, path }] };
    }
  }
  const number = canonicalPhoneNumber(parsed.data.phone_number);
  if (!number.ok) return { ok: false, ordinal, user, errors: [{ code: 'INVALID_FORMAT', message: number.description, path: 'phone_number' }] };
  const userId = parsed.data.user_id === undefined ? undefined : importedUserId(parsed.data.user_id);
  return { ok: true, checked: { ordinal, record: parsed.data, phoneNumber: number.number.e164, userId } };
}

/**
 * The ordinals of records that repeat an earlier record's number (once canonical: `+1 415 555
 * 0100` and `+14155550100` are one person) or user id; the first occurrence is imported.
 */
export function repeatedRecords(checks: readonly RecordCheck[]): Map<number, RecordError> {
  const firstByNumber = new Map<string, number>();
  const firstById = new Map<string, number>();
  const repeated = new Map<number, RecordError>();
  for (const check of checks) {
    if (!check.ok) continue;
    const { ordinal, phoneNumber, userId } = check.checked;
    const earlierNumber = firstByNumber.get(phoneNumber);
    const earlierId = userId === undefined ? undefined : firstById.get(userId);
    if (earlierNumber !== undefined) {
      repeated.set(ordinal, { code: 'DUPLICATED_USER', message: `The phone number is also that of record ${earlierNumber} of the file`, path: 'phone_number' });
    } else if (earlierId !== undefined) {
      repeated.set(ordinal, { code: 'DUPLICATED_USER', message: `The user_id is also that of record ${earlierId} of the file`, path: 'user_id' });
    } else {
      firstByNumber.set(phoneNumber, ordinal);
      if (userId !== undefined) firstById.set(userId, ordinal);
    }
  }
  return repeated;
}
