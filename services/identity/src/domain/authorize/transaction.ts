import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { PAGE_ERRORS } from './page-message';
import type { IdentityStore, StoredAuthorizeTransaction, StoredConnection } from '../../store';
import { AuthorizePageError, SignInCompletedError, type AuthorizeParameters, type AuthorizeRequest } from './request';

/** How long a browser has from opening /authorize to entering the code. */
export const TRANSACTION_TTL_SECONDS = 30 * 60;
/** Time between two codes sent from one login page (the per-number hourly limit applies too). */
export const RESEND_COOLDOWN_SECONDS = 30;

/** How long a completed transaction is remembered, so Back to its pages says the sign-in is done. */
export const COMPLETED_KEPT_SECONDS = 60 * 60;

const TRANSACTION_ID = /^[A-Za-z0-9_-]{22}$/;

/**
 * Each transaction has its own cookie, so two logins in two tabs do not disturb each other.
 * The name only carries the (non-secret) transaction id; the value is the binding secret.
 */
export function bindingCookieName(transactionId: string): string {
  return `authz_${transactionId}`;
}

function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

function sameString(a: string, b: string): boolean {
  const left = createHash('sha256').update(a, 'utf8').digest();
  const right = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(left, right);
}

/**
 * The CSRF token of a transaction's forms: an HMAC of the transaction id keyed by the
 * cookie's binding secret. A forged form post would need both the HttpOnly cookie (which
 * SameSite=Lax keeps off cross-site posts) and this token (which only our pages contain),
 * and nothing but the cookie's hash is stored, so the database alone cannot produce either.
 */
export function csrfTokenFor(bindingSecret: string, transactionId: string): string {
  return createHmac('sha256', bindingSecret).update(`authorize-csrf:${transactionId}`).digest('base64url');
}

export interface BegunTransaction {
  transaction: StoredAuthorizeTransaction;
  /** Goes into the HttpOnly cookie; never stored. */
  bindingSecret: string;
}

/** Stores a validated request as a new transaction bound to a fresh cookie secret. */
export async function beginTransaction(
  store: IdentityStore,
  request: AuthorizeRequest,
  params: AuthorizeParameters,
  now: Date,
  /** The language its pages speak (kept for every page of the login). */
  language: string | null = null,
): Promise<BegunTransaction> {
  const bindingSecret = randomBytes(32).toString('base64url');
  const transaction: StoredAuthorizeTransaction = {
    id: randomBytes(16).toString('base64url'),
    binding_hash: sha256Hex(bindingSecret),
    client_id: request.client.client_id,
    connection_name: request.connection.name,
    redirect_uri: request.redirectUri,
    response_type: request.responseType,
    state: request.state ?? null,
    nonce: request.nonce ?? null,
    scope: request.scope,
    // The explicit audience only: a default_audience is looked up again when tokens are issued.
    audience: params.audience ?? null,
    response_mode: request.target.mode,
    code_challenge: request.codeChallenge ?? null,
    max_age: request.maxAge ?? null,
    prompt: request.prompt ?? null,
    claims: params.claims ?? null,
    acr_values: params.acr_values ?? null,
    phone_number: null,
    code_sent_at: null,
    ui_language: language,
    created_at: now,
    expires_at: new Date(now.getTime() + TRANSACTION_TTL_SECONDS * 1000),
  };
  await store.authorizeTransactions.insert(transaction);
  return { transaction, bindingSecret };
}

/** The parameters a transaction was created from, for resolveAuthorizeRequest. */
export function parametersOf(transaction: StoredAuthorizeTransaction): AuthorizeParameters {
  return {
    client_id: transaction.client_id,
    redirect_uri: transaction.redirect_uri,
    response_type: transaction.response_type,
    scope: transaction.scope,
    connection: transaction.connection_name,
    ...(transaction.state !== null ? { state: transaction.state } : {}),
    ...(transaction.nonce !== null ? { nonce: transaction.nonce } : {}),
    ...(transaction.audience !== null ? { audience: transaction.audience } : {}),
    ...(transaction.response_mode !== null ? { response_mode: transaction.response_mode } : {}),
    ...(transaction.code_challenge !== null ? { code_challenge: transaction.code_challenge, code_challenge_method: 'S256' } : {}),
    ...(transaction.max_age !== null ? { max_age: String(transaction.max_age) } : {}),
    ...(transaction.prompt !== null ? { prompt: transaction.prompt } : {}),
    ...(transaction.claims ? { claims: transaction.claims } : {}),
    ...(transaction.acr_values ? { acr_values: transaction.acr_values } : {}),
  };
}

export interface TransactionProof {
  /** The `transaction` form field or query parameter. */
  transactionId: unknown;
  /** The request's cookies. */
  cookies: Record<string, string>;
  /** The `csrf_token` field of a form post; GET pages (which change nothing) have none. */
  form?: { csrfToken: unknown };
}

const expired = () =>
  new AuthorizePageError(400, 'This sign-in has expired', 'This sign-in page is no longer valid. Go back to the application and sign in again.', PAGE_ERRORS.expired());

const forged = () =>
  new AuthorizePageError(
    403,
    'Request refused',
    'This request did not come from the sign-in page opened in this browser (or cookies are disabled). Go back to the application and sign in again.',
    PAGE_ERRORS.forged(),
  );

/**
 * The live transaction the request proves it belongs to: the id must name one, the
 * browser's cookie for it must hash to its binding, and for form posts the CSRF token must
 * match. Every failure is a page, never a redirect: the request may be forged.
 */
export async function loadBoundTransaction(
  store: IdentityStore,
  proof: TransactionProof,
  now: Date,
): Promise<BegunTransaction> {
  const id = proof.transactionId;
  if (typeof id !== 'string' || !TRANSACTION_ID.test(id)) throw expired();
  const transaction = await store.authorizeTransactions.findLive(id, now);
  if (!transaction) throw (await completedSignIn(store, id, now)) ?? expired();
  const bindingSecret = proof.cookies[bindingCookieName(id)];
  if (!bindingSecret || !sameString(sha256Hex(bindingSecret), transaction.binding_hash)) throw forged();
  if (proof.form) {
    const token = proof.form.csrfToken;
    if (typeof token !== 'string' || !sameString(token, csrfTokenFor(bindingSecret, id))) throw forged();
  }
  return { transaction, bindingSecret };
}

/**
 * Back (or a second submit) after the sign-in completed: Auth0's answer, the application's
 * login route (`initiate_login_uri`) when it has one, else a page saying the sign-in is done
 * with a link back to the application. No cookie proof is needed: it reveals only the
 * application's name and registered address, and changes nothing.
 */
async function completedSignIn(store: IdentityStore, id: string, now: Date): Promise<SignInCompletedError | undefined> {
  const completed = await store.authorizeTransactions.findCompleted(id, now);
  if (!completed) return undefined;
  const client = await store.clients.findById(completed.client_id);
  const appName = client?.name ?? 'the application';
  if (client?.initiate_login_uri) return new SignInCompletedError(appName, client.initiate_login_uri, true);
  return new SignInCompletedError(appName, webOriginOf(completed.redirect_uri), false);
}

/** The https/http origin of a redirect_uri ("https://app.example.com/"); none for a native app's custom scheme. */
function webOriginOf(redirectUri: string): string | undefined {
  try {
    const url = new URL(redirectUri);
    return url.protocol === 'https:' || url.protocol === 'http:' ? `${url.origin}/` : undefined;
  } catch {
    return undefined;
  }
}

/** The transaction signed its user in: it is kept a while (COMPLETED_KEPT_SECONDS) and refuses further steps. */
export async function completeTransaction(store: IdentityStore, transactionId: string, now: Date): Promise<boolean> {
  return store.authorizeTransactions.complete(transactionId, now, new Date(now.getTime() + COMPLETED_KEPT_SECONDS * 1000));
}

/** Seconds until another code may be sent from this transaction (0: now). */
export function resendCooldownSeconds(transaction: StoredAuthorizeTransaction, now: Date): number {
  if (!transaction.code_sent_at) return 0;
  const readyAt = transaction.code_sent_at.getTime() + RESEND_COOLDOWN_SECONDS * 1000;
  return Math.max(0, Math.ceil((readyAt - now.getTime()) / 1000));
}

/** Cancelled: the transaction is gone (the route clears its cookie and answers the application). */
export async function cancelTransaction(store: IdentityStore, transactionId: string): Promise<void> {
  await store.authorizeTransactions.delete(transactionId);
}

/** The name of the application a login page is for, when the client still exists. */
export async function applicationNameOf(store: IdentityStore, clientId: string): Promise<string | undefined> {
  return (await store.clients.findById(clientId))?.name;
}

/** The connection a transaction signs in with, for its pages (code length, default country, WebOTP). */
export async function connectionOfTransaction(store: IdentityStore, connectionName: string): Promise<StoredConnection | undefined> {
  return (await store.connections.findByName(connectionName)) ?? undefined;
}
