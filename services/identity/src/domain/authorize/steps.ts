import { ErrorCodes, type DeliveryChannel } from '@smsauth/contracts';
import type { PageMessage } from './page-message';
import { HttpError } from '@smsauth/service-kit';
import type { IdentityStore, StoredAuthorizeTransaction } from '../../store';
import type { PasswordlessExchangeDependencies } from '../oauth/passwordless-exchange';
import { prepareOpaqueAccessToken } from '../oauth/user-tokens';
import { isUserBlockedError } from '../passwordless/blocked-user';
import { exchangeCode, type CodeRejection } from '../passwordless/code-exchange';
import { canonicalPhoneNumber, isKnownCountry, type CanonicalPhoneNumberResult } from '../phone/canonical-number';
import { startPasswordless, type StartDependencies } from '../passwordless/start';
import { completeAuthorization, implicitScopes, type CompletionDependencies } from './complete';
import { errorResponse, type AuthorizationResponse, type ResponseMode } from './response';
import { isCodeFlow, includesAccessToken, resolveAuthorizeRequest } from './request';
import { beginLoginSession, type BegunSession, type SessionLifetimes } from './session';
import { completeTransaction, parametersOf, resendCooldownSeconds } from './transaction';
import { passkeyOfferDue } from '../passkeys/offer';
import { passkeySettingsOf } from '../passkeys/settings';

/** A step the user can retry: the page is shown again with `message` (in the page's language). */
export interface StepRefusal {
  ok: false;
  status: number;
  message: PageMessage;
}

/**
 * The sign-in is over and the browser goes back to the application with an error (by the
 * request's response mode): a blocked user, as the reference product sends them back ("user is blocked").
 */
export interface StepEnd {
  ok: false;
  end: AuthorizationResponse;
}

/** The error response of a transaction, by its response mode. */
export function transactionError(transaction: StoredAuthorizeTransaction, error: string, description: string): AuthorizationResponse {
  const mode = (transaction.response_mode ?? (transaction.response_type === 'code' ? 'query' : 'fragment')) as ResponseMode;
  return errorResponse({ redirectUri: transaction.redirect_uri, mode }, error, description, transaction.state ?? undefined);
}

/** Ends the transaction and points the browser at the application with the block's error. */
async function endForBlockedUser(store: IdentityStore, transaction: StoredAuthorizeTransaction, err: HttpError): Promise<StepEnd> {
  await store.authorizeTransactions.delete(transaction.id);
  return { ok: false, end: transactionError(transaction, err.error, err.errorDescription) };
}

export interface Caller {
  ip: string;
  userAgent: string | undefined;
  requestLanguage: string | null;
  /** The page's language: the code's default message speaks it (StartCall.pageLanguage). */
  pageLanguage?: string | undefined;
}

/**
 * What people type without choosing a country: spaces, dashes, dots and brackets are
 * dropped and an international `00` prefix becomes `+` (with a country, libphonenumber
 * reads that country's own international prefix).
 */
export function normalisePhoneInput(input: string): string {
  const compact = input.replace(/[\s().-]/g, '');
  return compact.startsWith('00') ? `+${compact.slice(2)}` : compact;
}

/** Codes may be typed with spaces ("123 456"). */
export function normaliseCodeInput(input: string): string {
  return input.replace(/[\s-]/g, '');
}

/** An example of a number with its country code, as the errors show it (left to right on the page). */
export const PHONE_EXAMPLE = '+1 415 555 0100';

const error = (key: string, args?: PageMessage['args']): PageMessage => ({ key: `smsauth.errors.${key}`, ...(args ? { args } : {}) });
const codeScreen = (key: string): PageMessage => ({ key: `login-passwordless.login-passwordless-sms-otp.${key}` });

/** What the pages say about each refusal, by code: keys of the translation files (see page-message.ts). */
export const MESSAGES = {
  phoneMissing: error('phoneMissing'),
  badPhone: error('badPhone', { example: PHONE_EXAMPLE }),
  chooseCountry: error('chooseCountry', { example: PHONE_EXAMPLE }),
  unknownCountryCode: error('unknownCountryCode'),
  phoneTooShort: error('phoneTooShort'),
  phoneTooLong: error('phoneTooLong'),
  /** `country`: the ISO code the number was read for; the page names it in its language. */
  phoneNotValid: (country: string | undefined) => (country ? error('phoneNotValidForCountry', { country }) : error('phoneNotValid')),
  signupDisabled: error('signupDisabled'),
  notConfigured: error('notConfigured'),
  sendFailed: error('sendFailed'),
  channelUnavailable: error('channelUnavailable'),
  codeMissing: error('codeMissing'),
  wrongCode: codeScreen('invalid-code'),
  expiredCode: codeScreen('invalid-expired-code'),
  exhaustedCode: error('exhaustedCode'),
  blocked: error('blocked'),
  noCodeYet: error('noCodeYet'),
  rateLimited: (retryAfterSeconds: number | undefined) =>
    !retryAfterSeconds
      ? error('rateLimited')
      : retryAfterSeconds < 90
        ? error('rateLimitedSeconds', { seconds: retryAfterSeconds })
        : error('rateLimitedMinutes', { minutes: Math.ceil(retryAfterSeconds / 60) }),
  cooldown: (seconds: number) => error('cooldown', { seconds }),
} as const;

/** What the person typing should do about a number canonicalPhoneNumber refused. */
export function phoneInputRefusal(result: Extract<CanonicalPhoneNumberResult, { ok: false }>, country: string | undefined, typed = ''): StepRefusal {
  const message = (() => {
    switch (result.problem) {
      case 'too_short':
        return MESSAGES.phoneTooShort;
      case 'too_long':
        return MESSAGES.phoneTooLong;
      case 'not_valid_for_country':
        return MESSAGES.phoneNotValid(country || undefined);
      case 'invalid_country':
        // "+999 123 4567": the person did start with +, so "start with +" would not help them.
        return typed.startsWith('+') ? MESSAGES.unknownCountryCode : country ? MESSAGES.badPhone : MESSAGES.chooseCountry;
      default:
        return country ? MESSAGES.badPhone : MESSAGES.chooseCountry;
    }
  })();
  return { ok: false, status: 400, message };
}

/** The user-facing reading of a refused /passwordless/start; anything else is unexpected. */
export function startRefusal(err: unknown): StepRefusal {
  if (!(err instanceof HttpError)) throw err;
  switch (err.error) {
    case ErrorCodes.BAD_PHONE_NUMBER:
      return { ok: false, status: 400, message: MESSAGES.badPhone };
    case ErrorCodes.TOO_MANY_REQUESTS: {
      const retryAfter = Number(err.options.headers?.['Retry-After']);
      return { ok: false, status: 429, message: MESSAGES.rateLimited(Number.isFinite(retryAfter) ? retryAfter : undefined) };
    }
    case ErrorCodes.BAD_CONNECTION:
      return err.errorDescription === 'Public signup is disabled'
        ? { ok: false, status: 403, message: MESSAGES.signupDisabled }
        : { ok: false, status: 400, message: MESSAGES.notConfigured };
    case ErrorCodes.BAD_CLIENT_ID:
      return { ok: false, status: 400, message: MESSAGES.notConfigured };
    case ErrorCodes.SMS_PROVIDER_ERROR:
      return { ok: false, status: 502, message: MESSAGES.sendFailed };
    // The only bad.request a hosted-login start can get: a channel the connection does not allow for the number.
    case ErrorCodes.BAD_REQUEST:
      return { ok: false, status: 400, message: MESSAGES.channelUnavailable };
    default:
      throw err;
  }
}

/** The number as typed on the page, and the country chosen for it (ISO code; none: the number must start with its country code). */
export interface PhoneInput {
  number: string;
  country?: string;
  /** "Call me instead", "Send via WhatsApp": the channel the person chose; absent, the connection's order. */
  channel?: DeliveryChannel;
}

/**
 * Step 1 (and "send a new code"): reads the number for the chosen country into E.164 and
 * sends a code through `startPasswordless`, the function behind `POST /passwordless/start`,
 * so its validation, rate limits and delivery apply as they are; then records the number
 * on the transaction.
 */
export async function sendLoginCode(
  deps: StartDependencies,
  transaction: StoredAuthorizeTransaction,
  input: PhoneInput,
  caller: Caller,
): Promise<{ ok: true; phoneNumber: string; channel: DeliveryChannel | undefined } | StepRefusal | StepEnd> {
  const country = input.country && isKnownCountry(input.country) ? input.country : undefined;
  const typed = country ? input.number.trim() : normalisePhoneInput(input.number);
  if (!typed) return { ok: false, status: 400, message: MESSAGES.phoneMissing };
  const parsed = canonicalPhoneNumber(typed, country);
  if (!parsed.ok) return phoneInputRefusal(parsed, country, typed);
  const phoneNumber = parsed.number.e164;
  const now = deps.clock.now();
  const wait = resendCooldownSeconds(transaction, now);
  if (wait > 0) return { ok: false, status: 429, message: MESSAGES.cooldown(wait) };
  let channel: DeliveryChannel | undefined;
  try {
    ({ channel } = await startPasswordless(deps, {
      body: {
        client_id: transaction.client_id,
        connection: transaction.connection_name,
        phone_number: phoneNumber,
        send: 'code',
        authParams: { scope: transaction.scope, ...(transaction.nonce !== null ? { nonce: transaction.nonce } : {}) },
        ...(input.channel ? { channel: input.channel } : {}),
      },
      ...caller,
      // The language the pages of this login speak (chosen at /authorize, kept by the
      // transaction) is the one the default message speaks too.
      pageLanguage: caller.pageLanguage ?? transaction.ui_language ?? undefined,
      setHeaders: () => undefined,
      clientAuthentication: 'hosted-login',
    }));
  } catch (err) {
    if (isUserBlockedError(err)) return endForBlockedUser(deps.store, transaction, err);
    return startRefusal(err);
  }
  await deps.store.authorizeTransactions.recordCodeSent(transaction.id, phoneNumber, now, channel ?? null);
  return { ok: true, phoneNumber, channel };
}

function codeRefusal(reason: CodeRejection): StepRefusal {
  if (reason === 'blocked') return { ok: false, status: 429, message: MESSAGES.blocked };
  if (reason === 'expired') return { ok: false, status: 400, message: MESSAGES.expiredCode };
  if (reason === 'exhausted') return { ok: false, status: 400, message: MESSAGES.exhaustedCode };
  return { ok: false, status: 400, message: MESSAGES.wrongCode };
}

/** What step 2 needs beyond the code exchange: issuing the response and starting the session. */
export interface SignInDependencies extends PasswordlessExchangeDependencies, CompletionDependencies {
  store: IdentityStore;
  sessions: SessionLifetimes;
}

/** The browser step 2 comes from: its address, user agent and current session cookie. */
export interface SignInCaller {
  ip: string;
  userAgent: string | undefined;
  sessionSecret: string | undefined;
  /**
   * The browser said it can create a passkey (the code page's script) and this device did not
   * say "Don't ask": after the code, the page may offer one (connection setting permitting).
   */
  mayOfferPasskey?: boolean;
}

/** What passkeys add to step 2: the SMS login is done and its session begun, the offer page comes before the response. */
export interface PasskeyOffered {
  ok: true;
  offer: true;
  session: BegunSession;
}

/**
 * Step 2: checks the code with `exchangeCode` (the same attempts, brute-force counters and
 * single use as /oauth/ro and the OTP grant), re-checks the request, starts the login
 * session, ends the transaction and makes the authorization response (a code, or the
 * implicit flow's tokens). Throws AuthorizeRedirectError/AuthorizePageError when the request
 * is no longer valid.
 */
export async function exchangeCodeForSignIn(
  deps: SignInDependencies,
  transaction: StoredAuthorizeTransaction,
  codeInput: string,
  caller: SignInCaller,
): Promise<{ ok: true; response: AuthorizationResponse; session: BegunSession } | PasskeyOffered | StepRefusal | StepEnd> {
  if (!transaction.phone_number) return { ok: false, status: 400, message: MESSAGES.noCodeYet };
  const candidate = normaliseCodeInput(codeInput);
  if (!candidate) return { ok: false, status: 400, message: MESSAGES.codeMissing };
  const request = await resolveAuthorizeRequest(deps.store, parametersOf(transaction));
  const phoneNumber = transaction.phone_number;
  const ip = caller.ip;
  const { user, bruteForce } = await deps.store.passwordlessLogins.exchangeContext(request.client.client_id, request.connection.name, phoneNumber, ip);

  const offerPossible = caller.mayOfferPasskey === true && passkeySettingsOf(request.connection.options).enabled;
  // Implicit without an API: the opaque access token is made now and stored with the login
  // (not when a passkey offer may come first: the response is then made after it).
  const implicitOpaque = !offerPossible && !isCodeFlow(request.responseType) && includesAccessToken(request.responseType) && !request.api;
  const accessToken = implicitOpaque ? prepareOpaqueAccessToken(deps.clock, request.client.client_id, implicitScopes(request), request.claims) : undefined;
  let result;
  try {
    result = await exchangeCode(deps, {
      connection: request.connection,
      clientId: request.client.client_id,
      phoneNumber,
      candidate,
      ip,
      user,
      failures: bruteForce,
      log: { via: 'hosted-login', clientName: request.client.name },
      accessToken: accessToken?.row,
    });
  } catch (err) {
    if (isUserBlockedError(err)) return endForBlockedUser(deps.store, transaction, err);
    throw err;
  }
  if (!result.ok) return codeRefusal(result.reason);

  const now = deps.clock.now();
  if (offerPossible && (await passkeyOfferDue(deps.store, result.user, now))) {
    // The transaction stays (the response is made after the offer), bound to the SMS login's session.
    const session = await beginLoginSession(
      deps.store,
      deps.sessions,
      { user: result.user, connectionName: request.connection.name, clientId: request.client.client_id, ip, userAgent: caller.userAgent, previousSecret: caller.sessionSecret },
      now,
    );
    await deps.store.passkeys.insertPendingOffer({
      transaction_id: transaction.id,
      user_id: result.user.user_id,
      session_id: session.session.id,
      created_at: now,
      expires_at: transaction.expires_at,
    });
    return { ok: true, offer: true, session };
  }
  await completeTransaction(deps.store, transaction.id, now);
  const session = await beginLoginSession(
    deps.store,
    deps.sessions,
    { user: result.user, connectionName: request.connection.name, clientId: request.client.client_id, ip, userAgent: caller.userAgent, previousSecret: caller.sessionSecret },
    now,
  );
  const response = await completeAuthorization(
    deps,
    request,
    result.user,
    { id: session.session.id, authenticatedAt: session.session.authenticated_at },
    accessToken,
  );
  deps.metrics.signIns.inc({ via: 'sms', flow: isCodeFlow(request.responseType) ? 'code' : 'implicit' });
  return { ok: true, response, session };
}
