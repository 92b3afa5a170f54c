import { redirectResponse, textResponse, type Operation } from '@smsauth/service-kit';
import type { Request, Response } from 'express';
import { z } from 'zod';
import type { AuthorizationResponse } from '../../domain/authorize/response';
import type { BegunTransaction } from '../../domain/authorize/transaction';
import type { PageMessage } from '../../domain/authorize/page-message';
import {
  continueAfterOffer,
  passkeyLoginOptions,
  passkeyRegistrationOptions,
  registerOfferedPasskey,
  signInWithPasskey,
  type PasskeyCaller,
  type PasskeySignInDependencies,
} from '../../domain/passkeys/sign-in';
import { clearBindingCookie, requestCookies, sendPage, sessionCookie, setSessionCookie } from './http';
import { PASSKEY_SCRIPT, webAuthnBrowserBundle } from './passkey-script';
import { errorPage, passkeyOfferPage, type FormContext, type PageChrome, type PhoneView } from './views';
import { PAGE_ERRORS as PAGE_ERROR_TEXTS } from '../../domain/authorize/page-message';
import type { BrandSources } from './brand';
import type { RenderedChrome } from './chrome';
import { hostedLoginOperation, html, TransactionFormSchema } from './declare';

/** The CSP sources of a page with passkeys: our two script files, and fetch to our own origin for the options. */
export const PASSKEY_SCRIPT_SOURCE = "'self'; connect-src 'self'";

/** "Don't ask on this device": a long-lived cookie of the login pages. */
export const PASSKEY_OFFER_COOKIE = 'smsauth_passkey_offer';
const FIVE_YEARS_SECONDS = 5 * 365 * 24 * 3600;

export function passkeyOfferDeclinedOnDevice(req: Request): boolean {
  return requestCookies(req)[PASSKEY_OFFER_COOKIE] === 'never';
}

type Handler = (req: Request, res: Response) => Promise<void>;

/** What the passkey routes share with the other hosted-login routes (index.ts). */
export interface PasskeyRouteHelpers {
  deps: PasskeySignInDependencies;
  secureCookies: boolean;
  /** The login session cookie's lifetime (read when a session starts). */
  sessionMaxAgeSeconds(): number;
  page(handler: Handler): Handler;
  /** Sends an authorization response (with `iss`). */
  respond(res: Response, response: AuthorizationResponse): void;
  posted(req: Request): Promise<BegunTransaction>;
  viewed(req: Request): Promise<BegunTransaction>;
  /** A page of a transaction: its forms' fields and its chrome (language, brand, switcher). */
  transactionPage(req: Request, begun: BegunTransaction, returnTo: 'phone' | 'code' | 'offer'): Promise<{ form: FormContext; chrome: PageChrome; sources: BrandSources }>;
  /** The chrome of an error page of this request. */
  errorChrome(req: Request): Promise<RenderedChrome>;
  phoneView(req: Request, connectionName: string, view: Omit<PhoneView, 'countries'>): Promise<Omit<PhoneView, 'countries'>>;
  renderPhone(req: Request, res: Response, status: number, begun: BegunTransaction, view: Omit<PhoneView, 'countries'>): Promise<void>;
  endSignIn(res: Response, transactionId: string, response: AuthorizationResponse): void;
  textField(body: unknown, name: string): string;
}

function callerOf(req: Request): PasskeyCaller {
  return { ip: req.ip ?? '', userAgent: req.headers['user-agent'], sessionSecret: sessionCookie(req) };
}

const PASSKEY_TO_REDIRECT_URI = redirectResponse('To the redirect_uri by the response mode (as after the code step).');
const PASSKEY_RESPONSE_PAGE = html('response_mode form_post or web_message: the response page (as after the code step).');
const PASSKEY_ERRORS = {
  '400': html('Error page (expired transaction or offer), or the page again with the problem.'),
  '403': html('The transaction cookie or CSRF token does not match.'),
  '404': html('The connection has passkeys off.'),
  '500': html('Generic error page.'),
  '503': html('Database unreachable (with `Retry-After: 5`).'),
};
/** A ceremony's options (JSON). */
const options = (description: string) => ({ description, jsonSchema: { type: 'object' } });

/** The option JSON of a ceremony: never cached, never sniffed. */
function sendOptions(res: Response, options: unknown): void {
  res.set({ 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' }).json(options);
}

/** The passkey operations of the hosted login (issue 29); the management ones are in routes/management/authentication-methods.ts. */
export function passkeyOperations(h: PasskeyRouteHelpers): Operation[] {
  const { deps } = h;
  let bundle: string | undefined;
  const staticHeaders = { 'Cache-Control': 'public, max-age=3600', 'X-Content-Type-Options': 'nosniff' };

  const renderOffer = async (req: Request, res: Response, status: number, begun: BegunTransaction, error?: PageMessage) => {
    const { form, chrome, sources } = await h.transactionPage(req, begun, 'offer');
    sendPage(res, status, passkeyOfferPage(chrome, form, error ? { error } : {}), begun.transaction.redirect_uri, PASSKEY_SCRIPT_SOURCE, sources);
  };

  const finish = (res: Response, begun: BegunTransaction, result: Awaited<ReturnType<typeof continueAfterOffer>>) => {
    if (!result.ok) return h.endSignIn(res, begun.transaction.id, result.end);
    clearBindingCookie(res, begun.transaction.id, h.secureCookies);
    h.respond(res, result.response);
  };

  return [
    hostedLoginOperation({
      method: 'get',
      path: '/authorize/webauthn.js',
      operationId: 'authorizeWebAuthnScript',
      summary: '@simplewebauthn/browser, served from this origin',
      responses: { '200': textResponse('JavaScript.', 'text/javascript') },
      handle: (_req, res) => {
        bundle ??= webAuthnBrowserBundle();
        res.set(staticHeaders).type('js').send(bundle);
      },
    }),
    hostedLoginOperation({
      method: 'get',
      path: '/authorize/passkeys.js',
      operationId: 'authorizePasskeyScript',
      summary: 'The login pages\' passkey script (progressive enhancement)',
      responses: { '200': textResponse('JavaScript.', 'text/javascript') },
      handle: (_req, res) => {
        res.set(staticHeaders).type('js').send(PASSKEY_SCRIPT);
      },
    }),

    hostedLoginOperation({
      method: 'post',
      path: '/authorize/passkey/options',
      operationId: 'authorizePasskeyOptions',
      summary: 'WebAuthn options to sign in with a passkey (a single-use challenge of this transaction, 5 minutes)',
      form: TransactionFormSchema,
      responses: { '200': options('PublicKeyCredentialRequestOptionsJSON: RP ID identity\'s host, no allow list (discoverable passkeys).'), ...PASSKEY_ERRORS },
      handle: h.page(async (req, res) => {
        const begun = await h.posted(req);
        sendOptions(res, await passkeyLoginOptions(deps, begun.transaction));
      }),
    }),

    hostedLoginOperation({
      method: 'post',
      path: '/authorize/passkey/login',
      operationId: 'authorizePasskeyLogin',
      summary: 'Sign in with a passkey: no SMS; starts the login session and answers the client',
      form: TransactionFormSchema.extend({ credential: z.string().describe('The assertion as @simplewebauthn/browser returns it (JSON).') }),
      responses: { '200': PASSKEY_RESPONSE_PAGE, '302': PASSKEY_TO_REDIRECT_URI, ...PASSKEY_ERRORS },
      handle: h.page(async (req, res) => {
        const begun = await h.posted(req);
        const result = await signInWithPasskey(deps, begun.transaction, h.textField(req.body, 'credential'), callerOf(req));
        if (!result.ok && 'end' in result) return h.endSignIn(res, begun.transaction.id, result.end);
        if (!result.ok) {
          const view = await h.phoneView(req, begun.transaction.connection_name, { phoneNumber: '', passkeys: true, passkeyError: result.message });
          return h.renderPhone(req, res, result.status, begun, view);
        }
        req.log.info({ client_id: begun.transaction.client_id, response_mode: result.response.mode }, 'hosted login completed with a passkey');
        clearBindingCookie(res, begun.transaction.id, h.secureCookies);
        setSessionCookie(res, result.session.secret, h.secureCookies, h.sessionMaxAgeSeconds());
        h.respond(res, result.response);
      }),
    }),

    hostedLoginOperation({
      method: 'get',
      path: '/authorize/passkey/offer',
      operationId: 'authorizePasskeyOffer',
      summary: 'The passkey offer after an SMS login',
      query: z.object({ transaction: z.string() }),
      responses: { '200': html('The offer page.'), ...PASSKEY_ERRORS },
      handle: h.page(async (req, res) => {
        const begun = await h.viewed(req);
        if (!(await deps.store.passkeys.findPendingOffer(begun.transaction.id, deps.clock.now()))) {
          const { chrome, sources } = await h.errorChrome(req);
          return sendPage(res, 400, errorPage(chrome, PAGE_ERROR_TEXTS.expired()), undefined, undefined, sources);
        }
        await renderOffer(req, res, 200, begun);
      }),
    }),

    hostedLoginOperation({
      method: 'post',
      path: '/authorize/passkey/registration-options',
      operationId: 'authorizePasskeyRegistrationOptions',
      summary: 'WebAuthn options to create the offered passkey (resident key, attestation none)',
      form: TransactionFormSchema,
      responses: { '200': options('PublicKeyCredentialCreationOptionsJSON; the user handle is random, never the phone number.'), ...PASSKEY_ERRORS },
      handle: h.page(async (req, res) => {
        const begun = await h.posted(req);
        sendOptions(res, await passkeyRegistrationOptions(deps, begun.transaction));
      }),
    }),

    hostedLoginOperation({
      method: 'post',
      path: '/authorize/passkey/register',
      operationId: 'authorizePasskeyRegister',
      summary: 'Store the offered passkey, then answer the client',
      form: TransactionFormSchema.extend({ credential: z.string().describe('The registration as @simplewebauthn/browser returns it (JSON).') }),
      responses: { '200': PASSKEY_RESPONSE_PAGE, '302': PASSKEY_TO_REDIRECT_URI, ...PASSKEY_ERRORS },
      handle: h.page(async (req, res) => {
        const begun = await h.posted(req);
        const result = await registerOfferedPasskey(deps, begun.transaction, h.textField(req.body, 'credential'), callerOf(req));
        if (!result.ok && 'status' in result) return renderOffer(req, res, result.status, begun, result.message);
        req.log.info({ client_id: begun.transaction.client_id }, 'passkey registered after an SMS login');
        finish(res, begun, result);
      }),
    }),

    hostedLoginOperation({
      method: 'post',
      path: '/authorize/passkey/skip',
      operationId: 'authorizePasskeySkip',
      summary: '"Not now" (choice=later) or "Don\'t ask on this device" (choice=never), then answer the client',
      form: TransactionFormSchema.extend({ choice: z.string().describe('`later` or `never`.') }),
      responses: { '200': PASSKEY_RESPONSE_PAGE, '302': PASSKEY_TO_REDIRECT_URI, ...PASSKEY_ERRORS },
      handle: h.page(async (req, res) => {
        const begun = await h.posted(req);
        const never = h.textField(req.body, 'choice') === 'never';
        const result = await continueAfterOffer(deps, begun.transaction, never ? 'never' : 'later');
        if (never) {
          res.append(
            'Set-Cookie',
            `${PASSKEY_OFFER_COOKIE}=never; Path=/authorize; Max-Age=${FIVE_YEARS_SECONDS}; HttpOnly; SameSite=Lax${h.secureCookies ? '; Secure' : ''}`,
          );
        }
        finish(res, begun, result);
      }),
    }),
  ];
}
