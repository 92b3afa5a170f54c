import { MAX_METADATA_BYTES, type UserCreate, type UserRecord, type UserUpdate } from '@smsauth/contracts';
import type { Clock } from '@smsauth/service-kit';
import { UniqueViolationError, type IdentityStore, type StoredConnection, type UserChanges } from '../../store';
import { newUserIdPart } from '../ids';
import { toUserRecord, userPhoneNumber } from './users';
import { conflict, invalidField, notFound } from './validation';

/* Users created and changed through the management API (`POST /users`, `PATCH /users/{id}`). */

/**
 * The reference product's PATCH merge of `user_metadata` / `app_metadata`: top-level
 * properties are merged, a `null` removes one, nested objects are replaced whole, and an
 * empty object empties the metadata.
 */
export function mergeMetadata(stored: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  if (Object.keys(patch).length === 0) return {};
  const merged = new Map(Object.entries(stored));
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) merged.delete(key);
    else merged.set(key, value);
  }
  // fromEntries defines own properties: a key such as "constructor" stays plain data.
  return Object.fromEntries(merged);
}

/** Drops the `null` properties of a create body (nothing to remove yet). */
function withoutNulls(metadata: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(metadata).filter(([, value]) => value !== null));
}

function assertMetadataSize(path: string, value: Record<string, unknown>): void {
  if (Buffer.byteLength(JSON.stringify(value)) > MAX_METADATA_BYTES) {
    throw invalidField(path, `must be at most ${MAX_METADATA_BYTES} bytes as JSON once merged`);
  }
}

async function smsConnectionNamed(store: IdentityStore, name: string): Promise<StoredConnection> {
  const connection = await store.connections.findByName(name);
  if (!connection) throw invalidField('connection', `no connection named ${name}`);
  if (connection.strategy !== 'sms') throw invalidField('connection', `${name} is not an sms connection`);
  return connection;
}

/** 201 with the record; 409 when the connection already has a user with that number. */
export async function createUser(store: IdentityStore, clock: Clock, input: UserCreate): Promise<UserRecord> {
  const phoneNumber = userPhoneNumber(input.phone_number);
  const connection = await smsConnectionNamed(store, input.connection);
  try {
    const user = await store.users.insert({
      user_id: `sms|${newUserIdPart()}`,
      connection_id: connection.id,
      phone_number: phoneNumber,
      phone_verified: input.phone_verified,
      blocked: input.blocked,
      user_metadata: withoutNulls(input.user_metadata),
      app_metadata: withoutNulls(input.app_metadata),
      at: clock.now(),
    });
    return toUserRecord(user);
  } catch (err) {
    if (err instanceof UniqueViolationError) throw conflict('The user already exists.');
    throw err;
  }
}

/**
 * Changes the fields given. Metadata are merged under a row lock, so two PATCHes of
 * different properties both land. A new number must be free on the connection (409) and
 * is unverified unless `phone_verified` says otherwise.
 */
export async function updateUser(store: IdentityStore, clock: Clock, userId: string, input: UserUpdate): Promise<UserRecord> {
  const phoneNumber = input.phone_number === undefined ? undefined : userPhoneNumber(input.phone_number);
  try {
    return await store.transaction(async (tx) => {
      await tx.users.lockForUpdate(userId);
      const user = await tx.users.findById(userId);
      if (!user) throw notFound('User');
      if (input.connection !== undefined && input.connection !== user.connection_name) {
        throw invalidField('connection', `the user belongs to the connection ${user.connection_name}`);
      }
      const changes: UserChanges = { blocked: input.blocked, phone_verified: input.phone_verified };
      if (phoneNumber !== undefined && phoneNumber !== user.phone_number) {
        changes.phone_number = phoneNumber;
        changes.phone_verified = input.phone_verified ?? false;
      }
      if (input.user_metadata) {
        changes.user_metadata = mergeMetadata(user.user_metadata, input.user_metadata);
        assertMetadataSize('user_metadata', changes.user_metadata);
      }
      if (input.app_metadata) {
        changes.app_metadata = mergeMetadata(user.app_metadata, input.app_metadata);
        assertMetadataSize('app_metadata', changes.app_metadata);
      }
      const updated = (await tx.users.update(userId, changes, clock.now()))!;
      // Blocking a user signs them out everywhere: their login sessions end with the block.
      if (input.blocked === true) await tx.loginSessions.deleteForUser(userId, 'account-deactivated', clock.now());
      return toUserRecord(updated);
    });
  } catch (err) {
    if (err instanceof UniqueViolationError) throw conflict('The phone number is already in use by another user of the connection.');
    throw err;
  }
}
