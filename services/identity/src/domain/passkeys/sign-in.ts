import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { PAGE_ERRORS, type PageMessage } from '../authorize/page-message';
import type { IdentityStore, StoredAuthorizeTransaction, StoredUser } from '../../store';
import { completeAuthorization } from '../authorize/complete';
import { AuthorizePageError, resolveAuthorizeRequest, type AuthorizeRequest } from '../authorize/request';
import type { AuthorizationResponse } from '../authorize/response';
import { beginLoginSession, type BegunSession } from '../authorize/session';
import { flowOf } from '../authorize/single-sign-on';
import { transactionError, type SignInDependencies, type StepEnd, type StepRefusal } from '../authorize/steps';
import { completeTransaction, parametersOf } from '../authorize/transaction';
import { logRecord, recordEvents, type LogContext } from '../logs/tenant-log';
import {
  authenticationOptions,
  registerPasskey,
  registrationOptions,
  verifyPasskeyAssertion,
  type CeremonyDependencies,
} from './ceremonies';
import type { PasskeyMetrics } from './metrics';
import { passkeySettingsOf, type RelyingParty } from './settings';

export interface PasskeySignInDependencies extends SignInDependencies {
  relyingParty: RelyingParty;
  passkeyMetrics: PasskeyMetrics;
}

export const PASSKEY_MESSAGES = {
  refused: { key: 'smsauth.errors.passkeyRefused' },
  notCreated: { key: 'smsauth.errors.passkeyNotCreated' },
} as const satisfies Record<string, PageMessage>;

/** The browser the request comes from. */
export interface PasskeyCaller {
  ip: string;
  userAgent: string | undefined;
  sessionSecret: string | undefined;
}

const ceremonies = (deps: PasskeySignInDependencies): CeremonyDependencies => ({ store: deps.store, clock: deps.clock, relyingParty: deps.relyingParty });

function logContext(request: AuthorizeRequest, caller: PasskeyCaller, user?: StoredUser): LogContext {
  return {
    clientId: request.client.client_id,
    clientName: request.client.name,
    connection: { name: request.connection.name, id: request.connection.id },
    userId: user?.user_id,
    phoneNumber: user?.phone_number,
    ip: caller.ip,
    userAgent: caller.userAgent,
  };
}

const unavailable = () => new AuthorizePageError(404, 'Passkeys are not available', 'Passkeys are not available for this application. Get a code by text message instead.', PAGE_ERRORS.passkeysUnavailable());
const offerEnded = () =>
  new AuthorizePageError(400, 'This sign-in has expired', 'This sign-in page is no longer valid. Go back to the application and sign in again.', PAGE_ERRORS.expired());

/** The request of a transaction whose connection has passkeys on (else a 404 page). */
async function passkeyRequest(store: IdentityStore, transaction: StoredAuthorizeTransaction) {
  const request = await resolveAuthorizeRequest(store, parametersOf(transaction));
  const settings = passkeySettingsOf(request.connection.options);
  if (!settings.enabled) throw unavailable();
  return { request, settings };
}

/** Options for the phone page's "Sign in with a passkey" (and the browser's autofill). */
export async function passkeyLoginOptions(
  deps: PasskeySignInDependencies,
  transaction: StoredAuthorizeTransaction,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const { settings } = await passkeyRequest(deps.store, transaction);
  return authenticationOptions(ceremonies(deps), settings, transaction.id);
}

/** The user signed in (by SMS or passkey): the transaction ends, the login session begins, the client gets its response. */
async function completeSignIn(
  deps: PasskeySignInDependencies,
  request: AuthorizeRequest,
  transaction: StoredAuthorizeTransaction,
  user: StoredUser,
  caller: PasskeyCaller,
): Promise<{ response: AuthorizationResponse; session: BegunSession }> {
  // One completion per transaction: a second post of the same assertion finds it completed.
  const now = deps.clock.now();
  if (!(await completeTransaction(deps.store, transaction.id, now))) throw offerEnded();
  const session = await beginLoginSession(
    deps.store,
    deps.sessions,
    { user, connectionName: request.connection.name, clientId: request.client.client_id, ip: caller.ip, userAgent: caller.userAgent, previousSecret: caller.sessionSecret },
    now,
  );
  const response = await completeAuthorization(deps, request, user, { id: session.session.id, authenticatedAt: session.session.authenticated_at });
  return { response, session };
}

/**
 * "Sign in with a passkey": a verified assertion (see verifyPasskeyAssertion) signs the user in
 * without any SMS: the login session begins and the flow continues as after a code (code,
 * implicit). A blocked user goes back to the application with the block's error, as by SMS.
 * Every outcome is a tenant log record (`s` with via passkey, or `f` with the reason).
 */
export async function signInWithPasskey(
  deps: PasskeySignInDependencies,
  transaction: StoredAuthorizeTransaction,
  posted: string,
  caller: PasskeyCaller,
): Promise<{ ok: true; response: AuthorizationResponse; session: BegunSession } | StepRefusal | StepEnd> {
  const { request, settings } = await passkeyRequest(deps.store, transaction);
  const outcome = await verifyPasskeyAssertion(ceremonies(deps), settings, transaction.id, request.connection.name, posted);
  const now = deps.clock.now();
  if (!outcome.ok) {
    deps.passkeyMetrics.logins.inc({ result: 'refused', reason: outcome.reason });
    await recordEvents(deps.store, logRecord('f', logContext(request, caller, outcome.user), now, { via: 'passkey', reason: outcome.reason }, 'Passkey sign-in refused'));
    return { ok: false, status: 400, message: PASSKEY_MESSAGES.refused };
  }
  const { user, passkey } = outcome;
  if (user.blocked) {
    deps.passkeyMetrics.logins.inc({ result: 'refused', reason: 'user_blocked' });
    await recordEvents(deps.store, logRecord('f', logContext(request, caller, user), now, { via: 'passkey', reason: 'user_blocked' }, 'Passkey sign-in refused'));
    await deps.store.authorizeTransactions.delete(transaction.id);
    return { ok: false, end: transactionError(transaction, 'unauthorized', 'user is blocked') };
  }
  await deps.store.passkeys.recordUserLogin(user.user_id, now);
  const completed = await completeSignIn(deps, request, transaction, user, caller);
  deps.passkeyMetrics.logins.inc({ result: 'success', reason: '' });
  deps.passkeyMetrics.smsSaved.inc();
  deps.metrics.signIns.inc({ via: 'passkey', flow: flowOf(request) });
  await recordEvents(
    deps.store,
    logRecord('s', logContext(request, caller, user), now, { via: 'passkey', passkey_id: passkey.id, session_id: completed.session.session.id, response_type: request.responseType }),
  );
  return { ok: true, ...completed };
}

/** The SMS login waiting on the offer page: its user and login session. */
async function pendingOffer(deps: PasskeySignInDependencies, transaction: StoredAuthorizeTransaction) {
  const now = deps.clock.now();
  const offer = await deps.store.passkeys.findPendingOffer(transaction.id, now);
  if (!offer) throw offerEnded();
  const user = await deps.store.users.findById(offer.user_id);
  if (!user) throw offerEnded();
  return { offer, user };
}

/** Whether the transaction is an SMS login waiting on the offer page. */
export async function isOfferPending(deps: PasskeySignInDependencies, transaction: StoredAuthorizeTransaction): Promise<boolean> {
  return (await deps.store.passkeys.findPendingOffer(transaction.id, deps.clock.now())) !== undefined;
}

/** Options for creating the offered passkey. */
export async function passkeyRegistrationOptions(
  deps: PasskeySignInDependencies,
  transaction: StoredAuthorizeTransaction,
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const { settings } = await passkeyRequest(deps.store, transaction);
  const { user } = await pendingOffer(deps, transaction);
  return registrationOptions(ceremonies(deps), settings, transaction.id, user);
}

/**
 * The flow continues after the offer (a passkey made, "Not now", "Don't ask on this device"):
 * the SMS login's session answers the client, as the code step would have.
 */
export async function continueAfterOffer(
  deps: PasskeySignInDependencies,
  transaction: StoredAuthorizeTransaction,
  choice: 'registered' | 'later' | 'never',
): Promise<{ ok: true; response: AuthorizationResponse } | StepEnd> {
  const { offer, user } = await pendingOffer(deps, transaction);
  const request = await resolveAuthorizeRequest(deps.store, parametersOf(transaction));
  if (!(await deps.store.passkeys.deletePendingOffer(transaction.id))) throw offerEnded();
  const now = deps.clock.now();
  await completeTransaction(deps.store, transaction.id, now);
  if (choice === 'later') await deps.store.passkeys.snoozeOffer(user.user_id, passkeySettingsOf(request.connection.options).offer_after_sms_logins - 1, now);
  const session = await deps.store.loginSessions.findById(offer.session_id);
  if (!session) throw offerEnded();
  if (user.blocked) return { ok: false, end: transactionError(transaction, 'unauthorized', 'user is blocked') };
  const response = await completeAuthorization(deps, request, user, { id: session.id, authenticatedAt: session.authenticated_at });
  deps.metrics.signIns.inc({ via: 'sms', flow: flowOf(request) });
  return { ok: true, response };
}

/** "Sign in faster next time with a passkey": verifies and stores the passkey, then the flow continues. */
export async function registerOfferedPasskey(
  deps: PasskeySignInDependencies,
  transaction: StoredAuthorizeTransaction,
  posted: string,
  caller: PasskeyCaller,
): Promise<{ ok: true; response: AuthorizationResponse } | StepRefusal | StepEnd> {
  const { request, settings } = await passkeyRequest(deps.store, transaction);
  const { user } = await pendingOffer(deps, transaction);
  const outcome = await registerPasskey(ceremonies(deps), settings, transaction.id, user, posted, caller.userAgent);
  const now = deps.clock.now();
  if (!outcome.ok) {
    deps.passkeyMetrics.enrollments.inc({ result: 'refused' });
    await recordEvents(deps.store, logRecord('passkey_enrollment_failed', logContext(request, caller, user), now, { reason: outcome.reason }));
    return { ok: false, status: 400, message: PASSKEY_MESSAGES.notCreated };
  }
  deps.passkeyMetrics.enrollments.inc({ result: 'success' });
  await recordEvents(
    deps.store,
    logRecord('passkey_enrolled', logContext(request, caller, user), now, { passkey_id: outcome.passkey.id, aaguid: outcome.passkey.aaguid }),
  );
  return continueAfterOffer(deps, transaction, 'registered');
}
