import type { UserRecord } from '@smsauth/contracts';
import type { IdentityStore, StoredUser } from '../../store';
import { canonicalOrUndefined, canonicalPhoneNumber, problemText } from '../phone/canonical-number';
import { invalidField, notFound } from './validation';

export function toUserRecord(user: StoredUser): UserRecord {
  return {
    user_id: user.user_id,
    phone_number: user.phone_number,
    phone_verified: user.phone_verified,
    name: user.phone_number,
    nickname: user.phone_number,
    identities: [
      { provider: 'sms', connection: user.connection_name, user_id: user.user_id.replace(/^sms\|/, ''), isSocial: false },
    ],
    created_at: user.created_at.toISOString(),
    updated_at: user.updated_at.toISOString(),
    last_login: user.last_login ? user.last_login.toISOString() : null,
    logins_count: user.logins_count,
    blocked: user.blocked,
    user_metadata: user.user_metadata,
    app_metadata: user.app_metadata,
  };
}

/** `+14155550123` arrives as ` 14155550123` when the `+` was not URL-encoded. */
export function normalisePhone(value: string): string {
  const trimmed = value.trim();
  return /^\d+$/.test(trimmed) ? `+${trimmed}` : trimmed;
}

/**
 * A number looked up by (block identifiers): its E.164 form when it is a valid number,
 * else as given, so rows written under an older, laxer check can still be reached.
 */
export function lookupPhone(value: string): string {
  const given = normalisePhone(value);
  return canonicalOrUndefined(given) ?? given;
}

/** A number a user is given through the management API, in E.164; 400 naming `field` when it is not a valid number. */
export function userPhoneNumber(value: string, field = 'phone_number'): string {
  const parsed = canonicalPhoneNumber(value);
  if (!parsed.ok) throw invalidField(field, problemText(parsed));
  return parsed.number.e164;
}

export async function getUser(store: IdentityStore, userId: string): Promise<UserRecord> {
  const user = await store.users.findById(userId);
  if (!user) throw notFound('User');
  return toUserRecord(user);
}

/**
 * Also revokes the user's refresh and access tokens (cascade); the login sessions end first, so
 * their clients are told (back-channel logout, `account-deleted`) in the same transaction.
 */
export async function deleteUser(store: IdentityStore, userId: string, at: Date): Promise<void> {
  await store.transaction(async (tx) => {
    await tx.loginSessions.deleteForUser(userId, 'account-deleted', at);
    if (!(await tx.users.delete(userId))) throw notFound('User');
  });
}
