import { LogoutQuerySchema, OidcLogoutQuerySchema } from '@smsauth/contracts';
import { defineOperation, htmlPage, mountOperations, redirectResponse, textResponse, type Operation } from '@smsauth/service-kit';
import { Router, type Request, type Response } from 'express';
import { logoutOutcome, oidcLogoutOutcome, type LogoutDependencies, type LogoutOutcome } from '../domain/oauth/logout';
import { clearSessionCookie, sessionCookie } from './authorize/http';
import { errorPage } from './authorize/views';
import { NO_BODY_ERRORS } from './management/responses';

export type LogoutRouteDependencies = LogoutDependencies & { secureCookies: boolean };

/**
 * `GET /v2/logout?client_id=…&returnTo=…` (Auth0's) and `GET /oidc/logout` (OpenID Connect
 * RP-initiated logout, the discovery's end_session_endpoint): both end the browser's login
 * session and clear its cookie, then go back to an allowed URL or show "signed out". The domain
 * reads the query with the published schemas and refuses with an error page (never JSON).
 */
export function logoutOperations(deps: LogoutRouteDependencies): Operation[] {
  const answer = (res: Response, outcome: LogoutOutcome) => {
    res.set('Cache-Control', 'no-store');
    if (outcome.kind === 'refused') return void res.status(400).type('html').send(errorPage('invalid_request', outcome.description));
    clearSessionCookie(res, deps.secureCookies);
    if (outcome.kind === 'redirect') return res.redirect(302, outcome.location);
    res.status(200).type('html').send(htmlPage({ title: 'Signed out', body: '<h1>Signed out</h1>\n<p>You are signed out.</p>' }));
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
        '200': textResponse('No returnTo and no allowed logout URL: a "signed out" page.'),
        '302': redirectResponse('To returnTo, or without it to the client\'s first allowed logout URL.'),
        '400': textResponse('returnTo is not an allowed logout URL of the client (or the client is unknown), or a parameter is repeated: an error page.'),
        ...NO_BODY_ERRORS,
      },
      handle: async ({ req, res }) => answer(res, await logoutOutcome(deps, req.query, caller(req))),
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
        ui_locales: 'Accepted and ignored.',
      },
      validation: 'handler',
      responses: {
        '200': textResponse('No post_logout_redirect_uri: a "signed out" page (the session cookie is cleared).'),
        '302': redirectResponse('To post_logout_redirect_uri with state (the session cookie is cleared).'),
        '400': textResponse(
          'Not an allowed logout URL, an unknown client, a client_id that is not the hint\'s audience, a hint not issued here, or a parameter repeated or over its length: an error page; the session stays.',
        ),
        ...NO_BODY_ERRORS,
      },
      handle: async ({ req, res }) => answer(res, await oidcLogoutOutcome(deps, req.query, caller(req))),
    }),
  ];
}

export function logoutRouter(deps: LogoutRouteDependencies, operations = logoutOperations(deps)): Router {
  return mountOperations(Router(), operations);
}
