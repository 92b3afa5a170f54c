import { LogoutQuerySchema, OidcLogoutQuerySchema } from '@smsauth/contracts';
import { defineOperation, mountOperations, redirectResponse, textResponse, type Operation } from '@smsauth/service-kit';
import { Router, type Request, type Response } from 'express';
import { logoutOutcome, oidcLogoutOutcome, type FrontChannelLogout, type LogoutDependencies, type LogoutOutcome } from '../domain/oauth/logout';
import { clearSessionCookie, sendPage, sessionCookie } from './authorize/http';
import type { LoginAppearanceSource } from '../domain/branding/login-appearance';
import { appearanceOf, pageChrome, type RenderedChrome } from './authorize/chrome';
import { errorPage, FRONT_CHANNEL_LOGOUT_SCRIPT_SOURCE, frontChannelLogoutPage, signedOutPage } from './authorize/views';
import { NO_BODY_ERRORS } from './management/responses';

export type LogoutRouteDependencies = LogoutDependencies & {
  secureCookies: boolean;
  /** The tenant's brand, languages and custom text for the pages; default: none set. */
  appearance?: LoginAppearanceSource;
};

/**
 * `GET /v2/logout?client_id=…&returnTo=…` (Auth0's) and `GET /oidc/logout` (OpenID Connect
 * RP-initiated logout, the discovery's end_session_endpoint): both end the browser's login
 * session and clear its cookie, then go back to an allowed URL or show "signed out". The domain
 * reads the query with the published schemas and refuses with an error page (never JSON).
 */
export function logoutOperations(deps: LogoutRouteDependencies): Operation[] {
  const appearance = appearanceOf(deps.appearance);
  /** The pages speak `ui_locales` (of /oidc/logout), else the browser's language the tenant has enabled. */
  const chromeOf = (req: Request) => pageChrome(appearance, req, { uiLocales: typeof req.query.ui_locales === 'string' ? req.query.ui_locales : undefined });
  const answer = async (req: Request, res: Response, outcome: LogoutOutcome) => {
    if (outcome.kind === 'refused') {
      const { chrome, sources } = await chromeOf(req);
      return sendPage(res, 400, errorPage(chrome, outcome.page), undefined, undefined, sources);
    }
    res.set('Cache-Control', 'no-store');
    clearSessionCookie(res, deps.secureCookies);
    if (outcome.kind === 'redirect' && !outcome.frontChannel) return res.redirect(302, outcome.location);
    const rendered = await chromeOf(req);
    if (outcome.frontChannel) return frontChannelAnswer(res, rendered, outcome.frontChannel, outcome.kind === 'redirect' ? outcome.location : undefined);
    sendPage(res, 200, signedOutPage(rendered.chrome), undefined, undefined, rendered.sources);
  };
  const caller = (req: Request) => ({ sessionSecret: sessionCookie(req), ip: req.ip ?? '', userAgent: req.headers['user-agent'] });
  const tags = ['Authentication'];
  return [
    defineOperation({
      method: 'get',
      path: '/v2/logout',
      operationId: 'logout',
      tags,
      summary: 'Log out: back to returnTo if it is one of the client\'s allowed_logout_urls',
      query: LogoutQuerySchema,
      queryDescriptions: {
        client_id: 'The client whose allowed_logout_urls returnTo must be in (a registered client).',
        returnTo: 'Compared exactly with the client\'s allowed_logout_urls.',
        federated: 'Accepted and ignored (no upstream identity provider).',
      },
      validation: 'handler',
      responses: {
        '200': textResponse(
          'No returnTo and no allowed logout URL: a "signed out" page. Also when a client of the ended session registered a front-channel logout URL: the page frames those URLs, then goes on to the return URL.',
        ),
        '302': redirectResponse('To returnTo, or without it to the client\'s first allowed logout URL.'),
        '400': textResponse('returnTo is not an allowed logout URL of the client (or the client is unknown), or a parameter is repeated: an error page.'),
        ...NO_BODY_ERRORS,
      },
      handle: async ({ req, res }) => answer(req, res, await logoutOutcome(deps, req.query, caller(req))),
    }),
    defineOperation({
      method: 'get',
      path: '/oidc/logout',
      operationId: 'oidcLogout',
      tags,
      summary: 'OpenID Connect RP-initiated logout (the end_session_endpoint): ends the login session',
      description:
        'The client is client_id or the audience of id_token_hint (an ID token issued here, expired or not; both given, they must agree). post_logout_redirect_uri must be one of its allowed_logout_urls (exact match) and gets `state` added to its query.',
      query: OidcLogoutQuerySchema,
      queryDescriptions: {
        id_token_hint: 'An ID token issued here (expired or not); its audience is the client.',
        client_id: 'The client; given with id_token_hint, it must be the hint\'s audience.',
        post_logout_redirect_uri: 'One of the client\'s allowed_logout_urls (exact match); needs client_id or id_token_hint to name the client.',
        state: 'Added to the query of post_logout_redirect_uri.',
        logout_hint: 'Accepted and ignored.',
        ui_locales: 'The language of the signed-out page: the first of these tags the tenant has enabled (else the browser\'s, else the tenant\'s default).',
      },
      validation: 'handler',
      responses: {
        '200': textResponse(
          'No post_logout_redirect_uri: a "signed out" page (the session cookie is cleared). Also when a client of the ended session registered a front-channel logout URL: the page frames those URLs (with iss and sid), then goes on to post_logout_redirect_uri.',
        ),
        '302': redirectResponse('To post_logout_redirect_uri with state (the session cookie is cleared).'),
        '400': textResponse(
          'Not an allowed logout URL, an unknown client, a client_id that is not the hint\'s audience, a hint not issued here, or a parameter repeated or over its length: an error page; the session stays.',
        ),
        ...NO_BODY_ERRORS,
      },
      handle: async ({ req, res }) => answer(req, res, await oidcLogoutOutcome(deps, req.query, caller(req))),
    }),
  ];
}

/** The origins of the frames, as the page's CSP frame-src. */
function frameSources(frames: readonly FrontChannelLogout[]): string {
  return [...new Set(frames.map((frame) => new URL(frame.url).origin))].join(' ');
}

/**
 * The signed-out page with the front-channel logout frames (OpenID Connect Front-Channel
 * Logout), which goes on to the return URL once they have loaded: 200 rather than the 302.
 * Its CSP allows framing those origins and its one script, nothing else.
 */
function frontChannelAnswer(res: Response, { chrome, sources }: RenderedChrome, frames: readonly FrontChannelLogout[], continueTo: string | undefined): void {
  const fonts = sources.font.length > 0 ? `; font-src ${sources.font.join(' ')}` : '';
  res.set({
    'Content-Security-Policy': `default-src 'none'; style-src ${["'self'", ...sources.style].join(' ')}; img-src ${["'self'", ...sources.img].join(' ')}${fonts}; frame-src ${frameSources(frames)}; script-src ${FRONT_CHANNEL_LOGOUT_SCRIPT_SOURCE}; form-action 'none'; frame-ancestors 'none'; base-uri 'none'`,
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  });
  res.status(200).type('html').send(frontChannelLogoutPage(chrome, frames, continueTo));
}

export function logoutRouter(deps: LogoutRouteDependencies, operations = logoutOperations(deps)): Router {
  return mountOperations(Router(), operations);
}
