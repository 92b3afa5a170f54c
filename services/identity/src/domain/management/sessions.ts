import type { SessionRecord } from '@smsauth/contracts';
import type { Clock } from '@smsauth/service-kit';
import type { IdentityStore, StoredLoginSession } from '../../store';
import { getUser } from './users';
import { notFound } from './validation';

/** A login session as the management API shows it (Auth0's session object, the parts this service has). */
export function toSessionRecord(session: StoredLoginSession): SessionRecord {
  const at = (d: Date) => d.toISOString();
  return {
    id: session.id,
    user_id: session.user_id,
    created_at: at(session.created_at),
    updated_at: at(session.updated_at),
    authenticated_at: at(session.authenticated_at),
    idle_expires_at: at(session.idle_expires_at),
    expires_at: at(session.expires_at),
    last_interacted_at: at(session.updated_at),
    clients: session.client_ids.map((client_id) => ({ client_id })),
    authentication: { methods: [{ name: 'passwordless', timestamp: at(session.authenticated_at) }] },
    device: {
      ...(session.initial_ip ? { initial_ip: session.initial_ip } : {}),
      ...(session.initial_user_agent ? { initial_user_agent: session.initial_user_agent } : {}),
    },
    connection: session.connection_name,
  };
}

/** `GET /api/v2/users/{id}/sessions`: the user's live sessions, newest first (404 for an unknown user). */
export async function listUserSessions(store: IdentityStore, clock: Clock, userId: string): Promise<{ sessions: SessionRecord[] }> {
  await getUser(store, userId);
  return { sessions: (await store.loginSessions.listLiveForUser(userId, clock.now())).map(toSessionRecord) };
}

/**
 * `DELETE /api/v2/users/{id}/sessions`: ends every session of the user; silent authentication
 * stops at once, and their clients are told (back-channel logout, `session-revoked`).
 */
export async function deleteUserSessions(store: IdentityStore, userId: string, at: Date): Promise<{ userId: string; ended: number }> {
  await getUser(store, userId);
  return { userId, ended: (await store.loginSessions.deleteForUser(userId, 'session-revoked', at)).length };
}

/** `GET /api/v2/sessions/{id}`. */
export async function getSession(store: IdentityStore, clock: Clock, sessionId: string): Promise<SessionRecord> {
  const session = await store.loginSessions.findById(sessionId);
  const now = clock.now();
  if (!session || session.expires_at <= now || session.idle_expires_at <= now) throw notFound('Session');
  return toSessionRecord(session);
}

/** `DELETE /api/v2/sessions/{id}`: its clients are told (back-channel logout, `session-revoked`). */
export async function deleteSession(store: IdentityStore, sessionId: string, at: Date): Promise<{ userId: string }> {
  const ended = await store.loginSessions.delete(sessionId, 'session-revoked', at);
  if (!ended) throw notFound('Session');
  return { userId: ended.user_id };
}
