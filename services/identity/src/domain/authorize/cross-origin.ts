import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { ErrorCodes, PASSWORDLESS_OTP_GRANT } from '@smsauth/contracts';
import { HttpError } from '@smsauth/service-kit';
import { z } from 'zod';
import type { StoredClient, StoredLoginTicket } from '../../store';
import { randomAlphanumeric } from '../ids';
import { otpGrantRejection } from '../oauth/passwordless-otp-grant';
import { canonicalUsername, passwordlessExchangeContext, type PasswordlessExchangeDependencies } from '../oauth/passwordless-exchange';
import { invalidRequest, requireGrantType } from '../oauth/oauth-errors';
import { isClientOrigin, originOfUrl } from '../oauth/web-origins';
import { exchangeCode } from '../passwordless/code-exchange';
import { logRecord, recordEvents } from '../logs/tenant-log';
import { completeAuthorization } from './complete';
import { isCodeFlow, type AuthorizeRequest } from './request';
import { errorResponse, type AuthorizationResponse } from './response';
import { beginLoginSession, type BegunSession } from './session';
import type { SignInDependencies } from './steps';

/**
 * Cross-origin authentication (Auth0's `/co/authenticate`, what auth0-js `login` and
 * `passwordlessLogin` and Lock call from the application's own page): the code is checked with
 * the same attempts and brute-force counters as every other path, and the answer is a login
 * ticket, which the browser then takes to `/authorize?login_ticket=…` to get the application's
 * tokens and a login session. A ticket alone signs no one in: the browser must also prove the
 * verifier that came with it (the cookie set here, or, where third-party cookies are blocked,
 * the copy auth0-js keeps in the application's storage, read by `/co/verify`), so a ticket
 * that leaks, or an attacker's own ticket planted in a victim's browser (login CSRF), is useless.
 */

/** The only credential_type served: a one-time code of a passwordless connection. */
export const CO_CREDENTIAL_TYPES = [PASSWORDLESS_OTP_GRANT] as const;

/** Seconds a ticket may wait for its /authorize: the browser goes there at once. */
export const LOGIN_TICKET_LIFETIME_SECONDS = 60;

/** `co_id` as we make it (and as a cookie name may carry it). */
export const CO_ID_PATTERN = /^[A-Za-z0-9]{32}$/;
const SECRET_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** The cookie holding the verifier of one ticket, for /authorize (HttpOnly; the response body carries it for auth0-js's storage too). */
export function verifierCookieName(coId: string): string {
  return `smsauth_co_${coId}`;
}

export const CoAuthenticateRequestSchema = z.object({
  client_id: z.string().min(1).max(64),
  credential_type: z.enum(CO_CREDENTIAL_TYPES),
  realm: z.string().min(1).max(128),
  username: z.string().min(1).max(64),
  otp: z.string().min(1).max(32),
});

export const CoAuthenticateResponseSchema = z.object({
  login_ticket: z.string().describe('Single-use, for this client and this origin, valid 60 seconds: `/authorize?login_ticket=`.'),
  co_verifier: z.string().describe('The proof that goes with the ticket; auth0-js keeps it in the page\'s storage for /co/verify.'),
  co_id: z.string().describe('The key auth0-js stores the verifier under.'),
});
export type CoAuthenticateResponse = z.infer<typeof CoAuthenticateResponseSchema>;

function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

export function sameHash(value: string, hash: string): boolean {
  const a = Buffer.from(sha256Hex(value), 'hex');
  const b = Buffer.from(hash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** 403 for a client that may not be signed in to from this origin (Auth0's wording). */
function originRefused(description: string): HttpError {
  return new HttpError(403, ErrorCodes.UNAUTHORIZED_CLIENT, description);
}

/**
 * Who may call /co/authenticate for `client`: the client has `cross_origin_authentication` on,
 * the request comes from a page (an `Origin`) of the client's own web_origins / allowed_origins
 * (a form posted from any other site is refused, so no login CSRF through this endpoint), and it
 * may use the passwordless OTP grant.
 */
export function checkCrossOriginClient(client: StoredClient, origin: string | undefined): void {
  if (!client.cross_origin_authentication) throw originRefused('Cross origin login not allowed.');
  if (!isClientOrigin(client, origin)) throw originRefused(`Origin ${origin ?? '(none)'} is not allowed.`);
  requireGrantType(client, PASSWORDLESS_OTP_GRANT);
}

export interface CoAuthenticateCall {
  body: unknown;
  origin: string | undefined;
  ip: string;
  userAgent: string | undefined;
}

/** `POST /co/authenticate`: the code checked, a login ticket and its verifier made. */
export async function authenticateCrossOrigin(deps: PasswordlessExchangeDependencies, call: CoAuthenticateCall): Promise<CoAuthenticateResponse> {
  const parsed = CoAuthenticateRequestSchema.safeParse(call.body);
  if (!parsed.success) throw invalidRequest(parsed.error.issues);
  const request = parsed.data;
  const phoneNumber = canonicalUsername(request.username);
  const { client, connection, user, failures, code } = await passwordlessExchangeContext(
    deps.store,
    { clientId: request.client_id, connection: request.realm, phoneNumber, ip: call.ip },
    (found) => {
      if (!found) throw new HttpError(401, ErrorCodes.INVALID_CLIENT, 'Unknown client.');
      checkCrossOriginClient(found, call.origin);
      return found;
    },
  );
  const result = await exchangeCode(deps, {
    connection,
    clientId: client.client_id,
    phoneNumber,
    candidate: request.otp,
    ip: call.ip,
    user,
    failures,
    code,
    log: { via: 'cross-origin', clientName: client.name, userAgent: call.userAgent },
  });
  if (!result.ok) throw otpGrantRejection(result.reason);

  const now = deps.clock.now();
  const ticket = randomBytes(32).toString('base64url');
  const verifier = randomBytes(32).toString('base64url');
  const coId = randomAlphanumeric(32);
  await deps.store.loginTickets.insert({
    ticket_hash: sha256Hex(ticket),
    co_id: coId,
    verifier_hash: sha256Hex(verifier),
    client_id: client.client_id,
    origin: call.origin!,
    connection_name: connection.name,
    user_id: result.user.user_id,
    authenticated_at: now,
    expires_at: new Date(now.getTime() + LOGIN_TICKET_LIFETIME_SECONDS * 1000),
  });
  return { login_ticket: ticket, co_verifier: verifier, co_id: coId };
}

/** Why a ticket is refused at /authorize (the tenant log's `reason`); the application sees one error. */
export type TicketRefusal = 'unknown' | 'expired' | 'used' | 'other_client' | 'other_origin' | 'other_connection' | 'no_verifier' | 'wrong_verifier';

/** A ticket presented at /authorize, looked up by its hash (undefined: not one of ours). */
export async function findLoginTicket(deps: Pick<PasswordlessExchangeDependencies, 'store'>, ticket: string): Promise<StoredLoginTicket | undefined> {
  if (!SECRET_PATTERN.test(ticket)) return undefined;
  return deps.store.loginTickets.find(sha256Hex(ticket));
}

/**
 * The checks of a ticket at /authorize, before it is consumed: it is the client's, for a
 * redirect_uri of the origin that got it, of the connection, and the browser holds its verifier.
 */
export function ticketRefusal(
  ticket: StoredLoginTicket | undefined,
  request: { clientId: string; redirectUri: string; connectionName: string },
  verifier: string | undefined,
  now: Date,
): TicketRefusal | undefined {
  if (!ticket) return 'unknown';
  if (ticket.used_at) return 'used';
  if (ticket.expires_at.getTime() <= now.getTime()) return 'expired';
  if (ticket.client_id !== request.clientId) return 'other_client';
  if (originOfUrl(request.redirectUri) !== ticket.origin) return 'other_origin';
  if (ticket.connection_name !== request.connectionName) return 'other_connection';
  if (!verifier) return 'no_verifier';
  if (!SECRET_PATTERN.test(verifier) || !sameHash(verifier, ticket.verifier_hash)) return 'wrong_verifier';
  return undefined;
}


/** A ticket's sign-in: the response for the client and the login session begun, or why it was refused. */
export type TicketSignIn =
  | { ok: true; response: AuthorizationResponse; session: BegunSession; ticket: StoredLoginTicket }
  | { ok: false; reason: TicketRefusal | 'user_unavailable'; response: AuthorizationResponse; ticket?: StoredLoginTicket };

/**
 * `/authorize?login_ticket=…` (and the /co/verify post): the ticket checked (ticketRefusal) and
 * consumed in one statement (of a replay or parallel uses, exactly one wins), the user read
 * again (deleted or blocked since: refused), the login session begun and the client answered as
 * after the hosted login. Every refusal is `access_denied` to the redirect_uri (the request was
 * validated before), and is logged with its reason.
 */
export async function signInWithTicket(
  deps: SignInDependencies,
  request: AuthorizeRequest,
  ticketValue: string,
  verifier: string | undefined,
  caller: { ip: string; userAgent: string | undefined; sessionSecret: string | undefined },
): Promise<TicketSignIn> {
  const now = deps.clock.now();
  const ticket = await findLoginTicket(deps, ticketValue);
  const refuse = async (reason: TicketRefusal | 'user_unavailable'): Promise<TicketSignIn> => {
    await recordEvents(
      deps.store,
      logRecord(
        'f',
        {
          clientId: request.client.client_id,
          clientName: request.client.name,
          connection: { name: request.connection.name, id: request.connection.id },
          userId: ticket?.user_id,
          ip: caller.ip,
          userAgent: caller.userAgent,
        },
        now,
        { error: 'access_denied', reason, via: 'cross-origin' },
      ),
    );
    return { ok: false, reason, response: errorResponse(request.target, 'access_denied', 'Invalid or expired login ticket', request.state), ...(ticket ? { ticket } : {}) };
  };
  const refusal = ticketRefusal(ticket, { clientId: request.client.client_id, redirectUri: request.redirectUri, connectionName: request.connection.name }, verifier, now);
  if (refusal || !ticket) return refuse(refusal ?? 'unknown');
  if (!(await deps.store.loginTickets.consume(ticket.ticket_hash, now))) return refuse('used');
  const user = await deps.store.users.findById(ticket.user_id);
  if (!user || user.blocked) return refuse('user_unavailable');
  const session = await beginLoginSession(
    deps.store,
    deps.sessions,
    { user, connectionName: ticket.connection_name, clientId: request.client.client_id, ip: caller.ip, userAgent: caller.userAgent, previousSecret: caller.sessionSecret },
    now,
  );
  const response = await completeAuthorization(deps, request, user, { id: session.session.id, authenticatedAt: ticket.authenticated_at });
  deps.metrics.signIns.inc({ via: 'cross-origin', flow: isCodeFlow(request.responseType) ? 'code' : 'implicit' });
  return { ok: true, response, session, ticket };
}
