import { MAX_METADATA_BYTES, type JobRecord } from '@smsauth/contracts';
import type { Clock } from '@smsauth/service-kit';
import type { IdentityStore, NewUser, StoredJobError, StoredUser, StoredUserJob } from '../../store';
import { newId, newUserIdPart } from '../ids';
import { mergeMetadata } from '../management/managed-users';
import { invalidField } from '../management/validation';
import { checkRecord, repeatedRecords, type CheckedRecord, type RecordCheck, type RecordError } from './import-records';
import { toJobRecord } from './job-record';
import { smsConnectionById } from './connection';

export interface ImportRequest {
  connection_id: string;
  upsert: boolean;
  external_id?: string;
  send_completion_email?: boolean;
}

/** The users file: a JSON array of user objects (each checked later, record by record). */
function usersOfFile(file: Buffer): unknown[] {
  let users: unknown;
  try {
    users = JSON.parse(file.toString('utf8'));
  } catch {
    throw invalidField('users', 'the file is not JSON (a JSON array of users is expected)');
  }
  if (!Array.isArray(users)) throw invalidField('users', 'the file must hold a JSON array of users');
  if (users.length === 0) throw invalidField('users', 'the file holds no user');
  return users;
}

/** `POST /jobs/users-imports`: stores the file with a pending job; the job worker imports it. */
export async function createImportJob(store: IdentityStore, clock: Clock, request: ImportRequest, file: Buffer): Promise<JobRecord> {
  const users = usersOfFile(file);
  const connection = await smsConnectionById(store, request.connection_id);
  const job = await store.userJobs.create({
    id: newId('job'),
    type: 'users_import',
    connection_id: connection.id,
    external_id: request.external_id ?? null,
    options: { upsert: request.upsert, send_completion_email: request.send_completion_email ?? false },
    input: file.toString('utf8'),
    total: users.length,
    at: clock.now(),
  });
  return toJobRecord(job);
}

/** What an import needs for each batch, computed once per run from the whole file. */
export interface PreparedImport {
  checks: RecordCheck[];
  /** Records that repeat an earlier one: refused, whatever the database holds. */
  repeated: Map<number, RecordError>;
}

export async function prepareImport(store: IdentityStore, job: StoredUserJob): Promise<PreparedImport> {
  const users = JSON.parse(await store.userJobs.input(job.id)) as unknown[];
  const checks = users.map((user, ordinal) => checkRecord(user, ordinal));
  return { checks, repeated: repeatedRecords(checks) };
}

function refusal(check: CheckedRecord, error: RecordError): StoredJobError {
  return { ordinal: check.ordinal, user: check.record, errors: [error] };
}

const EXISTS: RecordError = { code: 'DUPLICATED_USER', message: 'The user already exists', path: 'phone_number' };

interface Update {
  user_id: string;
  phone_verified: boolean;
  blocked: boolean;
  user_metadata: Record<string, unknown>;
  app_metadata: Record<string, unknown>;
}

/** An upserted user: the fields given replace the stored ones; metadata merge at the top level as on PATCH. */
function upserted(stored: StoredUser, check: CheckedRecord): Update | RecordError {
  const { record } = check;
  const update: Update = {
    user_id: stored.user_id,
    phone_verified: record.phone_verified ?? stored.phone_verified,
    blocked: record.blocked ?? stored.blocked,
    user_metadata: record.user_metadata ? mergeMetadata(stored.user_metadata, record.user_metadata) : stored.user_metadata,
    app_metadata: record.app_metadata ? mergeMetadata(stored.app_metadata, record.app_metadata) : stored.app_metadata,
  };
  for (const path of ['user_metadata', 'app_metadata'] as const) {
    if (Buffer.byteLength(JSON.stringify(update[path])) > MAX_METADATA_BYTES) {
      return { code: 'INVALID_FORMAT', message: `${path} must be at most ${MAX_METADATA_BYTES} bytes as JSON once merged`, path };
    }
  }
  return update;
}

/**
 * Imports records [from, to) in `tx`, with the job's counts, refused records and lease
 * renewal: a record's user is written whole or not at all, and the batch commits with the
 * job's cursor, so a resumed job neither repeats nor skips a record.
 */
export async function importBatch(
  tx: IdentityStore,
  clock: Clock,
  job: StoredUserJob,
  lease: { token: string; until: Date },
  prepared: PreparedImport,
  from: number,
  to: number,
): Promise<void> {
  const connectionId = job.connection_id!;
  const upsert = job.options.upsert === true;
  const at = clock.now();
  const errors: StoredJobError[] = [];
  const candidates: CheckedRecord[] = [];
  for (const check of prepared.checks.slice(from, to)) {
    if (!check.ok) errors.push({ ordinal: check.ordinal, user: check.user, errors: check.errors });
    else if (prepared.repeated.has(check.checked.ordinal)) errors.push(refusal(check.checked, prepared.repeated.get(check.checked.ordinal)!));
    else candidates.push(check.checked);
  }
  const existing = await tx.users.findImportCollisions(
    connectionId,
    candidates.map((c) => c.phoneNumber),
    candidates.flatMap((c) => (c.userId ? [c.userId] : [])),
  );
  const byNumber = new Map(existing.filter((u) => u.connection_id === connectionId).map((u) => [u.phone_number, u]));
  const byId = new Map(existing.map((u) => [u.user_id, u]));
  const inserts: Array<{ check: CheckedRecord; user: NewUser }> = [];
  const updates: Update[] = [];
  for (const check of candidates) {
    const sameNumber = byNumber.get(check.phoneNumber);
    const sameId = check.userId === undefined ? undefined : byId.get(check.userId);
    if (sameNumber) {
      if (!upsert) errors.push(refusal(check, EXISTS));
      else if (check.userId !== undefined && check.userId !== sameNumber.user_id) {
        errors.push(refusal(check, { code: 'DUPLICATED_USER', message: 'The user with this phone number has another user_id', path: 'user_id' }));
      } else {
        const update = upserted(sameNumber, check);
        if ('code' in update) errors.push(refusal(check, update));
        else updates.push(update);
      }
    } else if (sameId) {
      errors.push(refusal(check, { code: 'DUPLICATED_USER', message: 'The user_id belongs to a user with another phone number', path: 'user_id' }));
    } else {
      const { record } = check;
      inserts.push({
        check,
        user: {
          user_id: check.userId ?? `sms|${newUserIdPart()}`,
          connection_id: connectionId,
          phone_number: check.phoneNumber,
          phone_verified: record.phone_verified ?? false,
          blocked: record.blocked ?? false,
          user_metadata: record.user_metadata ?? {},
          app_metadata: record.app_metadata ?? {},
          at,
        },
      });
    }
  }
  const inserted = await tx.users.insertMany(inserts.map((i) => i.user));
  // Taken between the look-up and the insert (a login, another import): refused, like any existing user.
  for (const { check, user } of inserts) if (!inserted.has(user.user_id)) errors.push(refusal(check, EXISTS));
  await tx.users.updateMany(updates, at);
  // Blocking signs the user out everywhere, as PATCH /users does.
  for (const update of updates) if (update.blocked) await tx.loginSessions.deleteForUser(update.user_id, 'account-deactivated', at);
  await tx.userJobs.recordImportBatch(
    job.id,
    lease.token,
    lease.until,
    { cursor: to, inserted: inserted.size, updated: updates.length, failed: errors.length },
    errors.sort((a, b) => a.ordinal - b.ordinal),
  );
}
