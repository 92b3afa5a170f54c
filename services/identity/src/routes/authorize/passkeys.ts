import type { Request, Response, Router } from 'express';
import type { AuthorizationResponse } from '../../domain/authorize/response';
import type { BegunTransaction } from '../../domain/authorize/transaction';
import {
  continueAfterOffer,
  passkeyLoginOptions,
  passkeyRegistrationOptions,
  registerOfferedPasskey,
  signInWithPasskey,
  type PasskeyCaller,
  type PasskeySignInDependencies,
} from '../../domain/passkeys/sign-in';
import { clearBindingCookie, requestCookies, sendAuthorizationResponse, sendPage, sessionCookie, setSessionCookie } from './http';
import { PASSKEY_SCRIPT, webAuthnBrowserBundle } from './passkey-script';
import { errorPage, passkeyOfferPage, type FormContext, type PhoneView } from './views';

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
  sessionMaxAgeSeconds: number;
  page(handler: Handler): Handler;
  posted(req: Request): Promise<BegunTransaction>;
  viewed(req: Request): Promise<BegunTransaction>;
  formContext(begun: BegunTransaction): Promise<FormContext>;
  phoneView(req: Request, connectionName: string, view: Omit<PhoneView, 'countries'>): Promise<PhoneView>;
  renderPhone(res: Response, status: number, begun: BegunTransaction, view: PhoneView): Promise<void>;
  endSignIn(res: Response, transactionId: string, response: AuthorizationResponse): void;
  textField(body: unknown, name: string): string;
}

function callerOf(req: Request): PasskeyCaller {
  return { ip: req.ip ?? '', userAgent: req.headers['user-agent'], sessionSecret: sessionCookie(req) };
}

/** The option JSON of a ceremony: never cached, never sniffed. */
function sendOptions(res: Response, options: unknown): void {
  res.set({ 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' }).json(options);
}

export function mountPasskeyRoutes(router: Router, h: PasskeyRouteHelpers): void {
  const { deps } = h;
  let bundle: string | undefined;

  router.get('/authorize/webauthn.js', (_req, res) => {
    bundle ??= webAuthnBrowserBundle();
    res.set({ 'Cache-Control': 'public, max-age=3600', 'X-Content-Type-Options': 'nosniff' }).type('js').send(bundle);
  });
  router.get('/authorize/passkeys.js', (_req, res) => {
    res.set({ 'Cache-Control': 'public, max-age=3600', 'X-Content-Type-Options': 'nosniff' }).type('js').send(PASSKEY_SCRIPT);
  });

  router.post(
    '/authorize/passkey/options',
    h.page(async (req, res) => {
      const begun = await h.posted(req);
      sendOptions(res, await passkeyLoginOptions(deps, begun.transaction));
    }),
  );

  router.post(
    '/authorize/passkey/login',
    h.page(async (req, res) => {
      const begun = await h.posted(req);
      const result = await signInWithPasskey(deps, begun.transaction, h.textField(req.body, 'credential'), callerOf(req));
      if (!result.ok && 'end' in result) return h.endSignIn(res, begun.transaction.id, result.end);
      if (!result.ok) {
        const view = await h.phoneView(req, begun.transaction.connection_name, { phoneNumber: '', passkeys: true, passkeyError: result.message });
        return h.renderPhone(res, result.status, begun, view);
      }
      req.log.info({ client_id: begun.transaction.client_id, response_mode: result.response.mode }, 'hosted login completed with a passkey');
      clearBindingCookie(res, begun.transaction.id, h.secureCookies);
      setSessionCookie(res, result.session.secret, h.secureCookies, h.sessionMaxAgeSeconds);
      sendAuthorizationResponse(res, result.response);
    }),
  );

  const renderOffer = async (res: Response, status: number, begun: BegunTransaction, error?: string) => {
    sendPage(res, status, passkeyOfferPage(await h.formContext(begun), { error }), begun.transaction.redirect_uri, PASSKEY_SCRIPT_SOURCE);
  };

  router.get(
    '/authorize/passkey/offer',
    h.page(async (req, res) => {
      const begun = await h.viewed(req);
      if (!(await deps.store.passkeys.findPendingOffer(begun.transaction.id, deps.clock.now()))) {
        return sendPage(res, 400, errorPage('This sign-in has expired', 'This sign-in page is no longer valid. Go back to the application and sign in again.'));
      }
      await renderOffer(res, 200, begun);
    }),
  );

  router.post(
    '/authorize/passkey/registration-options',
    h.page(async (req, res) => {
      const begun = await h.posted(req);
      sendOptions(res, await passkeyRegistrationOptions(deps, begun.transaction));
    }),
  );

  const finish = (res: Response, begun: BegunTransaction, result: Awaited<ReturnType<typeof continueAfterOffer>>) => {
    if (!result.ok) return h.endSignIn(res, begun.transaction.id, result.end);
    clearBindingCookie(res, begun.transaction.id, h.secureCookies);
    sendAuthorizationResponse(res, result.response);
  };

  router.post(
    '/authorize/passkey/register',
    h.page(async (req, res) => {
      const begun = await h.posted(req);
      const result = await registerOfferedPasskey(deps, begun.transaction, h.textField(req.body, 'credential'), callerOf(req));
      if (!result.ok && 'status' in result) return renderOffer(res, result.status, begun, result.message);
      req.log.info({ client_id: begun.transaction.client_id }, 'passkey registered after an SMS login');
      finish(res, begun, result);
    }),
  );

  router.post(
    '/authorize/passkey/skip',
    h.page(async (req, res) => {
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
  );
}
