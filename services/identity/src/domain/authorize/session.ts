import { createHash, randomBytes } from 'node:crypto';
import type { IdentityStore, StoredLoginSession, StoredUser } from '../../store';
import { randomAlphanumeric } from '../ids';

/** The login session cookie: one per browser, for every client of the tenant. */
export const SESSION_COOKIE_NAME = 'smsauth_session';

export interface SessionLifetimes {
  /** Unused this long, the session ends (each use extends it). */
  idleSeconds: number;
  /** This long after the SMS login, the session ends whatever its use. */
  absoluteSeconds: number;
}

const SESSION_SECRET = /^[A-Za-z0-9_-]{43}$/;

function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** A session just begun: its row, and the secret for the cookie (never stored). */
export interface BegunSession {
  session: StoredLoginSession;
  secret: string;
}

/**
 * Starts the login session of a completed SMS login. The browser's previous session (its
 * cookie's), if any, ends: one browser holds one session.
 */
export async function beginLoginSession(
  store: IdentityStore,
  lifetimes: SessionLifetimes,
  login: { user: StoredUser; connectionName: string; clientId: string; ip: string; userAgent: string | undefined; previousSecret: string | undefined },
  now: Date,
): Promise<BegunSession> {
  if (login.previousSecret && SESSION_SECRET.test(login.previousSecret)) {
    const previous = await store.loginSessions.findLiveBySecret(sha256Hex(login.previousSecret), now);
    // Replaced: its clients are told as for a revoked session (back-channel logout).
    if (previous) await store.loginSessions.delete(previous.id, 'session-revoked', now);
  }
  const secret = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + lifetimes.absoluteSeconds * 1000);
  const idle = new Date(now.getTime() + lifetimes.idleSeconds * 1000);
  const session: StoredLoginSession = {
    id: randomAlphanumeric(32),
    secret_hash: sha256Hex(secret),
    user_id: login.user.user_id,
    connection_name: login.connectionName,
    client_ids: [login.clientId],
    initial_ip: login.ip || null,
    initial_user_agent: login.userAgent?.slice(0, 512) ?? null,
    authenticated_at: now,
    created_at: now,
    updated_at: now,
    idle_expires_at: idle < expiresAt ? idle : expiresAt,
    expires_at: expiresAt,
  };
  await store.loginSessions.insert(session);
  return { session, secret };
}

/** The live session a cookie names, or undefined (no cookie, a malformed one, or an ended session). */
export async function sessionFromCookie(store: IdentityStore, secret: string | undefined, now: Date): Promise<StoredLoginSession | undefined> {
  if (!secret || !SESSION_SECRET.test(secret)) return undefined;
  return store.loginSessions.findLiveBySecret(sha256Hex(secret), now);
}

/** A use of the session for `clientId`: its idle expiry moves forward and the client is listed. */
export async function touchLoginSession(
  store: IdentityStore,
  lifetimes: SessionLifetimes,
  session: StoredLoginSession,
  clientId: string,
  now: Date,
): Promise<void> {
  await store.loginSessions.touch(session.id, now, new Date(now.getTime() + lifetimes.idleSeconds * 1000), clientId);
}

/**
 * Ends the session a cookie names (RP-initiated logout: its clients' back-channel logouts are
 * queued with it); the session ended, if there was one.
 */
export async function endLoginSession(store: IdentityStore, secret: string | undefined, now: Date): Promise<StoredLoginSession | undefined> {
  const session = await sessionFromCookie(store, secret, now);
  if (!session) return undefined;
  const ended = await store.loginSessions.delete(session.id, 'rp-logout', now);
  return ended ? { ...session, client_ids: ended.client_ids } : undefined;
}
