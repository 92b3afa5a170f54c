import { DeliveryChannelSchema, LOGIN_LANGUAGES } from '@smsauth/contracts';
import { mountOperations, redirectResponse, textResponse, type Clock, type Operation } from '@smsauth/service-kit';
import { z } from 'zod';
import { Router, type Request, type Response } from 'express';
import { errorResponse, type AuthorizationResponse } from '../../domain/authorize/response';
import type { SessionLifetimes } from '../../domain/authorize/session';
import type { WebLoginMetrics } from '../../domain/authorize/web-login-metrics';
import { authorizeFromSession } from '../../domain/authorize/single-sign-on';
import { exchangeCodeForSignIn, sendLoginCode, transactionError, type Caller, type SignInDependencies } from '../../domain/authorize/steps';
import {
  AuthorizePageError,
  SignInCompletedError,
  AuthorizeRedirectError,
  readAuthorizeParameters,
  resolveAuthorizeRequest,
} from '../../domain/authorize/request';
import {
  applicationNameOf,
  beginTransaction,
  cancelTransaction,
  connectionOfTransaction,
  csrfTokenFor,
  loadBoundTransaction,
  resendCooldownSeconds,
  type BegunTransaction,
} from '../../domain/authorize/transaction';
import type { PasswordlessExchangeDependencies } from '../../domain/oauth/passwordless-exchange';
import { loginPageCountry, phoneCountries } from '../../domain/phone/countries';
import { DEFAULT_LOGIN_APPEARANCE, type LoginAppearanceSource } from '../../domain/branding/login-appearance';
import { PAGE_ERRORS as PAGE_ERROR_TEXTS } from '../../domain/authorize/page-message';
import { appearanceOf, pageChrome, requestLanguageChoice, type RenderedChrome } from './chrome';
import { brandStylesheet } from './brand';
import { enabledLanguages } from './i18n/language';
import type { StartDependencies } from '../../domain/passwordless/start';
import { codePageChannels } from '../../domain/passwordless/channels';
import type { IdentityStore } from '../../store';
import { isDatabaseUnavailable } from '../../domain/availability';
import {
  clearBindingCookie,
  requestCookies,
  seeOther,
  sendAuthorizationResponse,
  sendPage,
  sessionCookie,
  clearVerifierCookie,
  setBindingCookie,
  setSessionCookie,
} from './http';
import { requestLanguage } from '../request-language';
import { LOGIN_CSS } from './styles';
import { isBoundOrigin } from '../../domain/passwordless/domain-bound-code';
import { codePage, errorPage, phonePage, signInCompletedPage, WEBOTP_SCRIPT_SOURCE, type CodeView, type FormContext, type PhoneView } from './views';
import type { PasskeyMetrics } from '../../domain/passkeys/metrics';
import { passkeySettingsOf, type RelyingParty } from '../../domain/passkeys/settings';
import type { PasskeySignInDependencies } from '../../domain/passkeys/sign-in';
import { passkeyOperations, PASSKEY_SCRIPT_SOURCE, passkeyOfferDeclinedOnDevice } from './passkeys';
import {
  AuthorizeWithTicketQuerySchema,
  CodeFormSchema,
  hostedLoginOperation,
  html,
  PAGE_ERRORS,
  PhoneFormSchema,
  ResendFormSchema,
  RESPONSE_PAGE,
  TO_REDIRECT_URI,
  TransactionFormSchema,
  TransactionQuerySchema,
  transactionResponses,
  CoVerifyFormSchema,
  CoVerifyQuerySchema,
} from './declare';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { StoredLoginTicket } from '../../store';
import type { AuthorizeRequest } from '../../domain/authorize/request';
import { findLoginTicket, LOGIN_TICKET_LIFETIME_SECONDS, signInWithTicket, ticketRefusal, verifierCookieName } from '../../domain/authorize/cross-origin';
import { isClientOrigin, originOfUrl } from '../../domain/oauth/web-origins';
import { CO_VERIFY_SCRIPT_SOURCE, coVerifyPage } from './co-verify';

/** The CSRF cookie of the /co/verify page. */
const CO_CSRF_COOKIE = 'smsauth_co_csrf';

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export interface AuthorizeRouterDependencies {
  store: IdentityStore;
  clock: Clock;
  /** What `POST /passwordless/start` uses: step 1 sends codes through it. */
  start: StartDependencies;
  /** What `/oauth/ro` and the OTP grant use: step 2 checks codes and issues tokens through it. */
  codeExchange: PasswordlessExchangeDependencies;
  /** Mark cookies Secure (AUTH_URL is https). */
  secureCookies: boolean;
  /** SESSION_IDLE_LIFETIME_SECONDS / SESSION_ABSOLUTE_LIFETIME_SECONDS. */
  sessions: SessionLifetimes;
  /** AUTHORIZATION_CODE_LIFETIME_SECONDS. */
  codeLifetimeSeconds: number;
  metrics: WebLoginMetrics;
  /** Passkeys: identity as the WebAuthn relying party (AUTH_URL's host and origin). */
  relyingParty: RelyingParty;
  passkeyMetrics: PasskeyMetrics;
  /** The issuer (`{AUTH_URL}/`): every authorization response carries it as `iss` (RFC 9207). */
  issuer: string;
  /** The tenant's brand, languages and custom text for the pages; default: none set (every language, built-in look). */
  appearance?: LoginAppearanceSource;
}

/** Which page of a transaction the language switcher returns to. */
const RETURN_PAGES = ['phone', 'code', 'offer'] as const;

/** The language switcher's form (POST /authorize/language). */
export const LanguageFormSchema = TransactionFormSchema.extend({
  language: z.enum(LOGIN_LANGUAGES).describe('One of the tenant\'s enabled languages (else a 400 page).'),
  return_to: z.enum(RETURN_PAGES).describe('The page of the transaction to show again in that language.'),
});

type Handler = (req: Request, res: Response) => Promise<void>;
/** Sends an authorization response (with `iss`). */
type Respond = (res: Response, response: AuthorizationResponse) => void;

/**
 * Problems the domain reports as pages or as error redirects become exactly that; anything
 * unexpected is logged and shown as a generic page (never a JSON body in a browser).
 */
function pageAnswering(respond: Respond, errorChrome: (req: Request) => Promise<RenderedChrome>): (handler: Handler) => Handler {
  return (handler) => async (req, res) => {
    try {
      await handler(req, res);
    } catch (err) {
      if (err instanceof AuthorizeRedirectError) {
        req.log.info({ error: err.error, response_mode: err.target.mode }, 'authorize error sent to the redirect_uri');
        return respond(res, errorResponse(err.target, err.error, err.description, err.state));
      }
      if (err instanceof SignInCompletedError && err.redirect && err.returnTo) {
        req.log.info({ login_route: err.redirect }, 'authorize page of a completed sign-in');
        return res.redirect(303, err.returnTo);
      }
      const { chrome, sources } = await errorChrome(req);
      if (err instanceof SignInCompletedError) {
        req.log.info({ login_route: err.redirect }, 'authorize page of a completed sign-in');
        sendPage(res, 200, signInCompletedPage(chrome, err.appName, err.returnTo), undefined, undefined, sources);
      } else if (err instanceof AuthorizePageError) {
        req.log.info({ reason: err.title }, 'authorize request refused');
        sendPage(res, err.status, errorPage(chrome, err.text), undefined, undefined, sources);
      } else if (isDatabaseUnavailable(err)) {
        req.log.warn({ err }, 'authorize request failed: database unavailable');
        res.setHeader('Retry-After', '5');
        sendPage(res, 503, errorPage(chrome, PAGE_ERROR_TEXTS.unavailable()), undefined, undefined, sources);
      } else {
        req.log.error({ err }, 'authorize request failed');
        sendPage(res, 500, errorPage(chrome, PAGE_ERROR_TEXTS.serverError()), undefined, undefined, sources);
      }
    }
  };
}

function field(body: unknown, name: string): unknown {
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
}

function textField(body: unknown, name: string): string {
  const value = field(body, name);
  return typeof value === 'string' ? value : '';
}

function callerOf(req: Request): Caller {
  return { ip: req.ip ?? '', userAgent: req.headers['user-agent'], requestLanguage: requestLanguage(req) };
}

/** `GET /authorize` and the pages and form posts of the hosted login, each declared once. */
export function authorizeOperations(deps: AuthorizeRouterDependencies): Operation[] {
  const { store, clock } = deps;
  const appearance = appearanceOf(deps.appearance);
  const respond: Respond = (res, response) => sendAuthorizationResponse(res, response, deps.issuer);
  /**
   * The chrome of an error page: `ui_locales` of the request, else the browser, else the tenant's
   * default; when the tenant's settings cannot be read either, the built-in look in English.
   */
  const errorChrome = async (req: Request): Promise<RenderedChrome> => {
    const uiLocales = textField(req.query, 'ui_locales') || textField(req.body, 'ui_locales');
    try {
      return await pageChrome(appearance, req, { uiLocales });
    } catch (err) {
      req.log.warn({ err }, 'login appearance unavailable: error page in the built-in look');
      return pageChrome(DEFAULT_LOGIN_APPEARANCE, req, { uiLocales });
    }
  };
  const page = pageAnswering(respond, errorChrome);
  const signIn: SignInDependencies = {
    ...deps.codeExchange,
    store,
    sessions: deps.sessions,
    codeLifetimeSeconds: deps.codeLifetimeSeconds,
    metrics: deps.metrics,
  };
  const passkeySignIn: PasskeySignInDependencies = { ...signIn, relyingParty: deps.relyingParty, passkeyMetrics: deps.passkeyMetrics };

  /** Whether the connection of a transaction has passkeys on (its pages then carry the passkey scripts). */
  const passkeysOn = async (connectionName: string) => passkeySettingsOf((await store.connections.findByName(connectionName))?.options).enabled;

  const formContext = async ({ transaction, bindingSecret }: BegunTransaction): Promise<FormContext> => {
    const appName = await applicationNameOf(store, transaction.client_id);
    return { transactionId: transaction.id, csrfToken: csrfTokenFor(bindingSecret, transaction.id), appName: appName ?? 'the application' };
  };

  /** A page of a transaction: its forms' fields, and its chrome in the language the transaction remembers. */
  const transactionPage = async (req: Request, begun: BegunTransaction, returnTo: 'phone' | 'code' | 'offer') => {
    const form = await formContext(begun);
    const { chrome, sources } = await pageChrome(appearance, req, { remembered: begun.transaction.ui_language, appName: form.appName, switcher: { form, returnTo } });
    return { form, chrome, sources };
  };

  /** A GET page of a transaction: the cookie must match, no CSRF token needed (changes nothing). */
  const viewed = (req: Request) =>
    loadBoundTransaction(store, { transactionId: req.query.transaction, cookies: requestCookies(req) }, clock.now());
  /** A form post of a transaction: cookie and CSRF token must match. */
  const posted = (req: Request) =>
    loadBoundTransaction(
      store,
      { transactionId: field(req.body, 'transaction'), cookies: requestCookies(req), form: { csrfToken: field(req.body, 'csrf_token') } },
      clock.now(),
    );

  const renderCode = async (req: Request, res: Response, status: number, begun: BegunTransaction, view: Partial<CodeView>) => {
    const { transaction } = begun;
    const connection = await connectionOfTransaction(store, transaction.connection_name);
    const webOtp = isBoundOrigin(connection?.options.webotp, req.host);
    const passkeys = passkeySettingsOf(connection?.options).enabled;
    const scripts = [passkeys ? "'self'" : undefined, webOtp ? WEBOTP_SCRIPT_SOURCE : undefined].filter(Boolean).join(' ');
    const { form, chrome, sources } = await transactionPage(req, begun, 'code');
    sendPage(
      res,
      status,
      codePage(chrome, form, {
        phoneNumber: transaction.phone_number ?? '',
        digits: connection?.options.totp.length ?? 6,
        cooldownSeconds: resendCooldownSeconds(transaction, clock.now()),
        ...codePageChannels(connection, transaction.phone_number, transaction.code_channel),
        webOtp,
        passkeys,
        ...view,
      }),
      transaction.redirect_uri,
      scripts || undefined,
      sources,
    );
  };

  /** The sign-in ended with an error for the application (a blocked user): back to it. */
  const endSignIn = (res: Response, transactionId: string, response: AuthorizationResponse) => {
    clearBindingCookie(res, transactionId, deps.secureCookies);
    respond(res, response);
  };

  /** The phone page's country choice: what the user chose, else the connection's default_country or the browser's region. */
  const phoneView = async (req: Request, connectionName: string, view: Omit<PhoneView, 'countries'>): Promise<Omit<PhoneView, 'countries'>> => {
    const connection = view.country === undefined ? await connectionOfTransaction(store, connectionName) : undefined;
    const country = view.country ?? loginPageCountry(connection?.options.default_country, req.headers['accept-language']);
    return { ...view, country };
  };

  /**
   * The phone page, its countries named in its language; with passkeys on, its scripts are
   * allowed (our own files) and may fetch the passkey options.
   */
  const renderPhone = async (req: Request, res: Response, status: number, begun: BegunTransaction, view: Omit<PhoneView, 'countries'>) => {
    const passkeys = view.passkeys ?? (await passkeysOn(begun.transaction.connection_name));
    const { form, chrome, sources } = await transactionPage(req, begun, 'phone');
    const html = phonePage(chrome, form, { ...view, countries: phoneCountries(chrome.t.language), passkeys });
    sendPage(res, status, html, begun.transaction.redirect_uri, passkeys ? PASSKEY_SCRIPT_SOURCE : undefined, sources);
  };

  /**
   * A login ticket of /co/authenticate at /authorize (or POST /co/verify, with the verifier the
   * application's page gave): signed in, or `access_denied` to the redirect_uri. Without the
   * verifier cookie (third-party cookies blocked), a client with a `cross_origin_loc` of the
   * ticket's origin is sent to /co/verify to fetch the verifier from the application's storage.
   */
  const ticketSignIn = async (req: Request, res: Response, request: AuthorizeRequest, parameters: Record<string, unknown>, formVerifier?: string) => {
    const ticketValue = textField(parameters, 'login_ticket');
    const ticket = await findLoginTicket(signIn, ticketValue);
    const cookieVerifier = ticket ? requestCookies(req)[verifierCookieName(ticket.co_id)] : undefined;
    const onlyVerifierMissing = () =>
      ticketRefusal(ticket, { clientId: request.client.client_id, redirectUri: request.redirectUri, connectionName: request.connection.name }, undefined, clock.now()) === 'no_verifier';
    if (ticket && formVerifier === undefined && !cookieVerifier && coVerifyFrame(request, ticket) && onlyVerifierMissing()) {
      const query = new URLSearchParams(Object.entries(parameters).filter((e): e is [string, string] => typeof e[1] === 'string'));
      return seeOther(res, `/co/verify?${query.toString()}`);
    }
    const result = await signInWithTicket(signIn, request, ticketValue, formVerifier ?? cookieVerifier, {
      ip: req.ip ?? '',
      userAgent: req.headers['user-agent'],
      sessionSecret: sessionCookie(req),
    });
    if (ticket) clearVerifierCookie(res, ticket.co_id, deps.secureCookies);
    if (!result.ok) {
      req.log.info({ client_id: request.client.client_id, reason: result.reason }, 'login ticket refused');
      return respond(res, result.response);
    }
    req.log.info({ client_id: request.client.client_id, response_mode: result.response.mode }, 'embedded login completed with a login ticket');
    setSessionCookie(res, result.session.secret, deps.secureCookies, deps.sessions.absoluteSeconds);
    respond(res, result.response);
  };

  /** The client's verification page for a ticket, when it has one on the ticket's origin. */
  const coVerifyFrame = (request: AuthorizeRequest, ticket: StoredLoginTicket): string | undefined => {
    const location = request.client.cross_origin_loc;
    return location && originOfUrl(location) === ticket.origin && isClientOrigin(request.client, ticket.origin) ? location : undefined;
  };

  /** The authorize request of /authorize or /co/verify; a ticket without `connection` names its own. */
  const resolveRequest = async (parameters: Record<string, unknown>) => {
    const { params, repeated } = readAuthorizeParameters(parameters);
    const ticketValue = textField(parameters, 'login_ticket');
    if (ticketValue && !params.connection) {
      const ticket = await findLoginTicket(signIn, ticketValue);
      if (ticket) params.connection = ticket.connection_name;
    }
    return resolveAuthorizeRequest(store, params, repeated);
  };

  /** `/authorize` by GET (the query) or POST (the form): the session's answer, or the phone page. */
  const authorize = async (req: Request, res: Response, parameters: Record<string, unknown>) => {
    const { params } = readAuthorizeParameters(parameters);
    const request = await resolveRequest(parameters);
    if (textField(parameters, 'login_ticket')) return ticketSignIn(req, res, request, parameters);
    const outcome = await authorizeFromSession(signIn, request, sessionCookie(req), { ip: req.ip ?? '', userAgent: req.headers['user-agent'] });
    if (outcome.kind === 'response') {
      req.log.info({ client_id: request.client.client_id, response_mode: request.target.mode, signed_in: 'error' in outcome.response.params ? false : true }, 'authorize answered from the login session');
      return respond(res, outcome.response);
    }
    // The language is chosen once, here, and kept by the transaction for every later page.
    const language = await requestLanguageChoice(appearance, req, params.ui_locales);
    const begun = await beginTransaction(store, request, params, clock.now(), language);
    setBindingCookie(res, begun.transaction.id, begun.bindingSecret, deps.secureCookies);
    const country = loginPageCountry(request.connection.options.default_country, req.headers['accept-language']);
    const passkeys = passkeySettingsOf(request.connection.options).enabled;
    const view = { country, passkeys, ...(request.loginHint ? { phoneNumber: request.loginHint } : {}) };
    await renderPhone(req, res, 200, begun, view);
  };

  const codePath = (id: string, sent = false) => `/authorize/code?transaction=${encodeURIComponent(id)}${sent ? '&sent=1' : ''}`;

  return [
    hostedLoginOperation({
      method: 'get',
      path: '/authorize',
      operationId: 'authorize',
      summary: 'Start a sign-in (code flow with PKCE, or implicit): answered from the login session, or the phone-number page',
      description:
        'response_type code (PKCE S256 required for public clients; plain refused), token, id_token or token id_token. response_mode query, fragment, form_post or web_message. prompt=none answers without a page (login_required without a usable session); prompt=login always asks for the SMS; max_age forbids an older session. login_hint prefills the number. ui_locales chooses the language of the pages (the first of its tags the tenant has enabled), before the browser\'s Accept-Language and the tenant\'s default; the login keeps it. Unknown parameters (auth0Client, ...) are ignored. A live login session of the connection signs in to any client without an SMS.',
      query: AuthorizeWithTicketQuerySchema,
      responses: { '200': html('The phone-number page (sets the transaction cookie), or a form_post / web_message response page.'), '302': TO_REDIRECT_URI, ...PAGE_ERRORS },
      handle: page((req, res) => authorize(req, res, req.query as Record<string, unknown>)),
    }),

    hostedLoginOperation({
      method: 'post',
      path: '/authorize',
      operationId: 'authorizeByPost',
      summary: 'Start a sign-in with the parameters in a form body (OpenID Connect Core §3.1.2.1): as GET /authorize',
      form: AuthorizeWithTicketQuerySchema,
      responses: { '200': html('As GET /authorize.'), '302': TO_REDIRECT_URI, ...PAGE_ERRORS },
      handle: page((req, res) => authorize(req, res, (req.body ?? {}) as Record<string, unknown>)),
    }),

    hostedLoginOperation({
      method: 'get',
      path: '/authorize/login.css',
      operationId: 'authorizeStyles',
      summary: 'The login pages\' style sheet',
      responses: { '200': textResponse('CSS.', 'text/css') },
      handle: (_req, res) => {
        res.set({ 'Cache-Control': 'public, max-age=3600', 'X-Content-Type-Options': 'nosniff' }).type('css').send(LOGIN_CSS);
      },
    }),

    hostedLoginOperation({
      method: 'get',
      path: '/authorize/brand.css',
      operationId: 'authorizeBrandStyles',
      summary: 'The tenant\'s brand as a style sheet: primary colour, page background and font, text colours adapted for WCAG AA',
      description: 'The pages link it as `/authorize/brand.css?v=<fingerprint of the branding>`, so a change of the branding is a new URL; the query is not read.',
      responses: { '200': textResponse('CSS.', 'text/css') },
      handle: async (_req, res) => {
        const { branding } = await appearance.appearance();
        res.set({ 'Cache-Control': 'public, max-age=86400', 'X-Content-Type-Options': 'nosniff' }).type('css').send(brandStylesheet(branding));
      },
    }),

    hostedLoginOperation({
      method: 'post',
      path: '/authorize/language',
      operationId: 'authorizeLanguage',
      summary: 'The language switcher of the pages: the transaction speaks the chosen language from now on',
      form: LanguageFormSchema,
      responses: transactionResponses({ '303': redirectResponse('To the page of the transaction named by return_to.') }),
      handle: page(async (req, res) => {
        const begun = await posted(req);
        const parsed = LanguageFormSchema.safeParse(req.body);
        const { enabledLocales } = await appearance.appearance();
        if (!parsed.success || !enabledLanguages(enabledLocales).includes(parsed.data.language)) {
          const name = parsed.success || parsed.error.issues.some((issue) => issue.path[0] === 'language') ? 'language' : 'return_to';
          throw new AuthorizePageError(400, 'Invalid request', `The parameter ${name} has a value that is not allowed.`, PAGE_ERROR_TEXTS.invalidParameter(name));
        }
        await store.authorizeTransactions.recordLanguage(begun.transaction.id, parsed.data.language);
        const id = encodeURIComponent(begun.transaction.id);
        const path = parsed.data.return_to === 'offer' ? `/authorize/passkey/offer?transaction=${id}` : `/authorize/${parsed.data.return_to}?transaction=${id}`;
        seeOther(res, path);
      }),
    }),

    hostedLoginOperation({
      method: 'get',
      path: '/authorize/phone',
      operationId: 'authorizePhonePage',
      summary: 'The phone-number page of a transaction',
      query: TransactionQuerySchema,
      responses: transactionResponses({ '200': html('The page.') }),
      handle: page(async (req, res) => {
        const begun = await viewed(req);
        const view = await phoneView(req, begun.transaction.connection_name, { phoneNumber: begun.transaction.phone_number ?? '' });
        await renderPhone(req, res, 200, begun, view);
      }),
    }),

    hostedLoginOperation({
      method: 'post',
      path: '/authorize/phone',
      operationId: 'authorizePhone',
      summary: 'Send the code to the number typed',
      form: PhoneFormSchema,
      responses: transactionResponses({ '303': redirectResponse('To the code page.'), '302': TO_REDIRECT_URI }),
      handle: page(async (req, res) => {
        const begun = await posted(req);
        const input = textField(req.body, 'phone_number');
        const country = textField(req.body, 'country');
        const sent = await sendLoginCode(deps.start, begun.transaction, { number: input, country }, callerOf(req));
        if (sent.ok) return seeOther(res, codePath(begun.transaction.id));
        if ('end' in sent) return endSignIn(res, begun.transaction.id, sent.end);
        const view = await phoneView(req, begun.transaction.connection_name, { phoneNumber: input, error: sent.message, country });
        await renderPhone(req, res, sent.status, begun, view);
      }),
    }),

    hostedLoginOperation({
      method: 'get',
      path: '/authorize/code',
      operationId: 'authorizeCodePage',
      summary: 'The code page of a transaction',
      query: TransactionQuerySchema.extend({ sent: z.literal('1').optional() }),
      responses: transactionResponses({ '200': html('The page.'), '303': redirectResponse('To the phone page when no code was sent yet.') }),
      handle: page(async (req, res) => {
        const begun = await viewed(req);
        if (!begun.transaction.phone_number) return seeOther(res, `/authorize/phone?transaction=${encodeURIComponent(begun.transaction.id)}`);
        await renderCode(req, res, 200, begun, req.query.sent === '1' ? { notice: { key: 'smsauth.code.newCodeSent' } } : {});
      }),
    }),

    hostedLoginOperation({
      method: 'post',
      path: '/authorize/code',
      operationId: 'authorizeCode',
      summary: 'Check the code, start the login session (cookie `smsauth_session`) and answer the client',
      form: CodeFormSchema,
      responses: transactionResponses({ '200': RESPONSE_PAGE, '302': TO_REDIRECT_URI }),
      handle: page(async (req, res) => {
        const begun = await posted(req);
        const result = await exchangeCodeForSignIn(signIn, begun.transaction, textField(req.body, 'code'), {
          ip: req.ip ?? '',
          userAgent: req.headers['user-agent'],
          sessionSecret: sessionCookie(req),
          mayOfferPasskey: textField(req.body, 'passkey_capable') === '1' && !passkeyOfferDeclinedOnDevice(req),
        });
        if (!result.ok && 'end' in result) return endSignIn(res, begun.transaction.id, result.end);
        if (!result.ok) return renderCode(req, res, result.status, begun, { error: result.message });
        if ('offer' in result) {
          // Signed in (the session cookie is set now); the offer page comes before the application.
          req.log.info({ client_id: begun.transaction.client_id }, 'hosted login: SMS login done, offering a passkey');
          setSessionCookie(res, result.session.secret, deps.secureCookies, deps.sessions.absoluteSeconds);
          return seeOther(res, `/authorize/passkey/offer?transaction=${encodeURIComponent(begun.transaction.id)}`);
        }
        req.log.info({ client_id: begun.transaction.client_id, response_mode: result.response.mode }, 'hosted login completed');
        clearBindingCookie(res, begun.transaction.id, deps.secureCookies);
        setSessionCookie(res, result.session.secret, deps.secureCookies, deps.sessions.absoluteSeconds);
        respond(res, result.response);
      }),
    }),

    hostedLoginOperation({
      method: 'post',
      path: '/authorize/resend',
      operationId: 'authorizeResend',
      summary: 'Send a new code: again by the same channel, or by the one chosen ("Call me instead", "Send via WhatsApp")',
      form: ResendFormSchema,
      responses: transactionResponses({ '303': redirectResponse('To the code page.'), '302': TO_REDIRECT_URI }),
      handle: page(async (req, res) => {
        const begun = await posted(req);
        const phone = begun.transaction.phone_number;
        if (!phone) return seeOther(res, `/authorize/phone?transaction=${encodeURIComponent(begun.transaction.id)}`);
        const chosen = DeliveryChannelSchema.safeParse(field(req.body, 'channel'));
        const input = { number: phone, ...(chosen.success ? { channel: chosen.data } : {}) };
        const sent = await sendLoginCode(deps.start, begun.transaction, input, callerOf(req));
        if (sent.ok) return seeOther(res, codePath(begun.transaction.id, true));
        if ('end' in sent) return endSignIn(res, begun.transaction.id, sent.end);
        await renderCode(req, res, sent.status, begun, { error: sent.message });
      }),
    }),

    hostedLoginOperation({
      method: 'post',
      path: '/authorize/cancel',
      operationId: 'authorizeCancel',
      summary: 'Cancel: redirect with `error=access_denied`',
      form: TransactionFormSchema,
      responses: transactionResponses({ '302': TO_REDIRECT_URI }),
      handle: page(async (req, res) => {
        const { transaction } = await posted(req);
        await cancelTransaction(store, transaction.id);
        clearBindingCookie(res, transaction.id, deps.secureCookies);
        respond(res, transactionError(transaction, 'access_denied', 'The user cancelled the sign-in.'));
      }),
    }),

    hostedLoginOperation({
      method: 'get',
      path: '/co/verify',
      operationId: 'crossOriginVerifyPage',
      summary: 'Embedded login where third-party cookies are blocked: fetch the login ticket\'s verifier from the client\'s cross_origin_loc page',
      description:
        'Where /authorize?login_ticket= got no verifier cookie and the client has a `cross_origin_loc` on the ticket\'s origin: a page framing that URL (`#origin=` identity\'s origin), which answers auth0-js\'s `co_verifier_request` message; the verifier is then posted to POST /co/verify with a CSRF token bound to a cookie set here.',
      query: CoVerifyQuerySchema,
      responses: { '200': html('The verification page (sets the CSRF cookie).'), '302': TO_REDIRECT_URI, ...PAGE_ERRORS },
      handle: page(async (req, res) => {
        const parameters = req.query as Record<string, unknown>;
        const request = await resolveRequest(parameters);
        const ticket = await findLoginTicket(signIn, textField(parameters, 'login_ticket'));
        const frame = ticket ? coVerifyFrame(request, ticket) : undefined;
        if (!ticket || !frame) return ticketSignIn(req, res, request, parameters, '');
        const csrf = randomBytes(32).toString('base64url');
        res.append('Set-Cookie', `${CO_CSRF_COOKIE}=${csrf}; Path=/co/verify; Max-Age=${LOGIN_TICKET_LIFETIME_SECONDS}; HttpOnly; SameSite=Lax${deps.secureCookies ? '; Secure' : ''}`);
        const fields = Object.fromEntries(Object.entries(parameters).filter((e): e is [string, string] => typeof e[1] === 'string' && e[0] !== 'co_verifier'));
        const frameOrigin = originOfUrl(frame)!;
        const { chrome } = await pageChrome(appearance, req, { uiLocales: textField(parameters, 'ui_locales') });
        const html = coVerifyPage({ t: chrome.t }, { frameUrl: `${frame.split('#')[0]}#origin=${encodeURIComponent(originOfUrl(deps.issuer)!)}`, frameOrigin, coId: ticket.co_id, fields: { ...fields, co_csrf: csrf } });
        res.set({
          'Content-Security-Policy': `default-src 'none'; style-src 'self'; script-src ${CO_VERIFY_SCRIPT_SOURCE}; frame-src ${frameOrigin}; form-action 'self' ${originOfUrl(request.redirectUri) ?? ''}; frame-ancestors 'none'; base-uri 'none'`,
          'X-Frame-Options': 'DENY',
          'X-Content-Type-Options': 'nosniff',
          'Referrer-Policy': 'no-referrer',
          'Cache-Control': 'no-store',
        });
        res.status(200).type('html').send(html);
      }),
    }),

    hostedLoginOperation({
      method: 'post',
      path: '/co/verify',
      operationId: 'crossOriginVerify',
      summary: 'The verifier of a login ticket, from the /co/verify page: sign in as /authorize?login_ticket= would',
      description: 'The CSRF token must match the cookie the page set (else 403, nothing consumed); a wrong or empty verifier is `access_denied` to the redirect_uri.',
      form: CoVerifyFormSchema,
      responses: { '200': RESPONSE_PAGE, '302': TO_REDIRECT_URI, ...PAGE_ERRORS },
      handle: page(async (req, res) => {
        const parameters = (req.body ?? {}) as Record<string, unknown>;
        const cookie = requestCookies(req)[CO_CSRF_COOKIE];
        const token = textField(parameters, 'co_csrf');
        if (!cookie || !token || !safeEqual(cookie, token)) {
          throw new AuthorizePageError(403, 'Sign-in not verified', 'This sign-in could not be verified. Go back to the application and try again.', PAGE_ERROR_TEXTS.notVerified());
        }
        res.append('Set-Cookie', `${CO_CSRF_COOKIE}=; Path=/co/verify; Max-Age=0; HttpOnly; SameSite=Lax${deps.secureCookies ? '; Secure' : ''}`);
        const request = await resolveRequest(parameters);
        await ticketSignIn(req, res, request, parameters, textField(parameters, 'co_verifier'));
      }),
    }),

    ...passkeyOperations({
      deps: passkeySignIn,
      secureCookies: deps.secureCookies,
      sessionMaxAgeSeconds: () => deps.sessions.absoluteSeconds,
      page,
      respond,
      posted,
      viewed,
      transactionPage,
      errorChrome,
      phoneView,
      renderPhone,
      endSignIn,
      textField,
    }),
  ];
}

/** `GET /authorize` and the pages and form posts of the hosted login, as authorizeOperations declares them. */
export function authorizeRouter(deps: AuthorizeRouterDependencies, operations = authorizeOperations(deps)): Router {
  return mountOperations(Router(), operations);
}
