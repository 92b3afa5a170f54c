import type { StoredLoginSession } from '../../store';
import { logRecord, recordEvents, type LogContext } from '../logs/tenant-log';
import { completeAuthorization, type CompletionDependencies } from './complete';
import { isCodeFlow, type AuthorizeRequest } from './request';
import { errorResponse, type AuthorizationResponse } from './response';
import { sessionFromCookie, touchLoginSession, type SessionLifetimes } from './session';

export interface SingleSignOnDependencies extends CompletionDependencies {
  sessions: SessionLifetimes;
}

/** `login`: show the hosted login; `response`: answer the client now (signed in from the session, or an error). */
export type SessionOutcome = { kind: 'login' } | { kind: 'response'; response: AuthorizationResponse; session?: StoredLoginSession };

export const flowOf = (request: AuthorizeRequest): 'code' | 'implicit' => (isCodeFlow(request.responseType) ? 'code' : 'implicit');

/** Why a session cannot answer a request (tenant log `fsa` details). */
type Unusable = 'no_session' | 'other_connection' | 'max_age' | 'other_user' | 'user_unavailable';

/**
 * The `sub` of an id_token_hint, read without verifying it: it is only ever used to refuse a
 * session of another user (OIDC Core §3.1.2.1), never to sign anyone in, so a forged hint can
 * do no more than prompt=login. Undefined when the hint is not a JWT with a string sub.
 */
export function hintedSubject(idTokenHint: string | undefined): string | undefined {
  if (!idTokenHint) return undefined;
  try {
    const payload: unknown = JSON.parse(Buffer.from(idTokenHint.split('.')[1] ?? '', 'base64url').toString('utf8'));
    const sub = typeof payload === 'object' && payload !== null ? (payload as { sub?: unknown }).sub : undefined;
    return typeof sub === 'string' ? sub : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `/authorize` with the browser's login session: a live session of the connection the request
 * uses signs the user in to any client of the tenant without an SMS, unless `prompt=login`, a
 * `max_age` older than the SMS login or an `id_token_hint` naming another user forbids it. `prompt=none` never shows a page: without a
 * usable session it answers `login_required` by the response mode (OIDC Core §3.1.2.6).
 */
export async function authorizeFromSession(
  deps: SingleSignOnDependencies,
  request: AuthorizeRequest,
  sessionSecret: string | undefined,
  caller: { ip: string; userAgent: string | undefined },
): Promise<SessionOutcome> {
  if (request.prompt === 'login') return { kind: 'login' };
  const now = deps.clock.now();
  const session = await sessionFromCookie(deps.store, sessionSecret, now);
  let unusable: Unusable | undefined;
  let user;
  if (!session) unusable = 'no_session';
  else if (session.connection_name !== request.connection.name) unusable = 'other_connection';
  else if (request.maxAge !== undefined && now.getTime() - session.authenticated_at.getTime() > request.maxAge * 1000) unusable = 'max_age';
  else if (hintedSubject(request.idTokenHint) !== undefined && hintedSubject(request.idTokenHint) !== session.user_id) unusable = 'other_user';
  else {
    user = await deps.store.users.findById(session.user_id);
    if (!user || user.blocked) unusable = 'user_unavailable';
  }
  const log: LogContext = {
    clientId: request.client.client_id,
    clientName: request.client.name,
    connection: { name: request.connection.name, id: request.connection.id },
    userId: session?.user_id,
    ip: caller.ip,
    userAgent: caller.userAgent,
  };
  if (unusable || !session || !user) {
    if (request.prompt !== 'none') return { kind: 'login' };
    await recordEvents(deps.store, logRecord('fsa', log, now, { error: 'login_required', reason: unusable }));
    deps.metrics.signIns.inc({ via: 'login_required', flow: flowOf(request) });
    return { kind: 'response', response: errorResponse(request.target, 'login_required', 'Login required', request.state) };
  }
  await touchLoginSession(deps.store, deps.sessions, session, request.client.client_id, now);
  const response = await completeAuthorization(deps, request, user, { id: session.id, authenticatedAt: session.authenticated_at });
  const silent = request.prompt === 'none';
  deps.metrics.signIns.inc({ via: silent ? 'silent' : 'session', flow: flowOf(request) });
  await recordEvents(
    deps.store,
    logRecord(silent ? 'ssa' : 's', log, now, { session_id: session.id, via: silent ? 'silent-auth' : 'single-sign-on', response_type: request.responseType }),
  );
  return { kind: 'response', response, session };
}
