import { UsersListQuerySchema, type UserRecord } from '@smsauth/contracts';
import type { IdentityStore, StoredUser } from '../../store';
import { notFound, parseBody } from './validation';

export function toUserRecord(user: StoredUser): UserRecord {
  return {
    user_id: user.user_id,
    phone_number: user.phone_number,
    phone_verified: user.phone_verified,
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

/**
 * `q`: `phone_number:"+14155550123"` (or without quotes) matches exactly; anything else is
 * searched for inside phone numbers with spaces removed, so an unencoded `+` (a space in a
 * query string) still finds the number.
 */
export function parseUserSearch(q: string | undefined): { phoneEquals?: string; phoneContains?: string } {
  const term = q?.trim();
  if (!term) return {};
  const exact = /^phone_number:"?([^"]*)"?$/.exec(term);
  if (exact) return { phoneEquals: normalisePhone(exact[1]!) };
  return { phoneContains: term.replace(/\s+/g, '') };
}

/** `+14155550123` arrives as ` 14155550123` when the `+` was not URL-encoded. */
export function normalisePhone(value: string): string {
  const trimmed = value.trim();
  return /^\d+$/.test(trimmed) ? `+${trimmed}` : trimmed;
}

export async function listUsers(store: IdentityStore, query: unknown): Promise<UserRecord[]> {
  const { q, page, per_page } = parseBody(UsersListQuerySchema, query);
  const users = await store.users.list({ ...parseUserSearch(q), offset: page * per_page, limit: per_page });
  return users.map(toUserRecord);
}

export async function getUser(store: IdentityStore, userId: string): Promise<UserRecord> {
  const user = await store.users.findById(userId);
  if (!user) throw notFound('User');
  return toUserRecord(user);
}

/** Also revokes the user's refresh and access tokens (cascade). */
export async function deleteUser(store: IdentityStore, userId: string): Promise<void> {
  if (!(await store.users.delete(userId))) throw notFound('User');
}
