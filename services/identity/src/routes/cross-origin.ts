import { ErrorCodes as E } from '@smsauth/contracts';
import { defineOperation, HttpError, textResponse, type Operation } from '@smsauth/service-kit';
import { z } from 'zod';
import {
  authenticateCrossOrigin,
  CoAuthenticateRequestSchema,
  CoAuthenticateResponseSchema,
  LOGIN_TICKET_LIFETIME_SECONDS,
} from '../domain/authorize/cross-origin';
import type { PasswordlessExchangeDependencies } from '../domain/oauth/passwordless-exchange';
import { setVerifierCookie } from './authorize/http';
import { COMMON_ERRORS, errorResponse as error } from './management/responses';
import { NO_STORE, NO_STORE_HEADERS } from './oauth-common';

// Embedded login with Auth0's browser libraries (issue 44): the client settings Lock loads as a
// script, and cross-origin authentication. Both are called from the application's pages, on
// its own origin: CORS (routes/cors.ts) opens them to registered web origins only.

export interface CrossOriginDependencies {
  codeExchange: PasswordlessExchangeDependencies;
  /** The issuer (`{AUTH_URL}/`): its host names the tenant in the client settings. */
  issuer: string;
  secureCookies: boolean;
}

/** JSON safe inside a script: no `</script>`, no line separators JavaScript would end a string at. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/**
 * What Lock reads from `Auth0.setClient(...)` and nothing more: the client's id, the tenant, a
 * subscription (any value other than free/dev, so Lock shows no free-plan badge), the first
 * callback, and the SMS connections enabled for the client under strategy `sms`. No secret,
 * origin list or setting of the client is exposed.
 */
export interface LockClientSettings {
  id: string;
  tenant: string;
  subscription: string;
  authorize: string;
  callback?: string;
  hasAllowedOrigins: boolean;
  strategies: Array<{ name: 'sms'; connections: Array<{ name: string }> }>;
}

export const ClientScriptParamsSchema = z.object({ client_id: z.string().max(64).describe('The client\'s id.') });

export function crossOriginOperations(deps: CrossOriginDependencies): Operation[] {
  return [
    defineOperation({
      method: 'get',
      path: '/client/:client_id.js',
      operationId: 'lockClientSettings',
      tags: ['Authentication'],
      summary: 'The client\'s public settings for Lock, as JSONP: `Auth0.setClient({...})`',
      description:
        'What Auth0\'s Lock loads before it shows: `id`, `tenant`, `subscription`, `authorize`, `callback` (the first callback), `hasAllowedOrigins` and `strategies` (`[{name: "sms", connections: [{name}]}]`, the SMS connections enabled for the client). Nothing secret. Served as a script to any page (Lock adds it as a `<script>`).',
      params: ClientScriptParamsSchema,
      responses: {
        '200': textResponse('`Auth0.setClient({...});`', 'application/javascript'),
        '404': error('No such client.', [E.NOT_FOUND]),
        ...COMMON_ERRORS,
      },
      handle: async ({ params, res }) => {
        const { store } = deps.codeExchange;
        const client = await store.clients.findById(params.client_id);
        if (!client || client.system_role !== null) throw new HttpError(404, E.NOT_FOUND, 'Client not found');
        const connections = (await store.connections.list()).filter((c) => c.strategy === 'sms' && c.enabled_clients.includes(client.client_id));
        const issuer = new URL(deps.issuer);
        const settings: LockClientSettings = {
          id: client.client_id,
          tenant: issuer.hostname.split('.')[0]!,
          subscription: 'self_hosted',
          authorize: new URL('/authorize', issuer).href,
          ...(client.callbacks[0] ? { callback: client.callbacks[0] } : {}),
          hasAllowedOrigins: client.allowed_origins.length + client.web_origins.length > 0,
          strategies: connections.length > 0 ? [{ name: 'sms', connections: connections.map((c) => ({ name: c.name })) }] : [],
        };
        res.set({ 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff', 'Cross-Origin-Resource-Policy': 'cross-origin' });
        res.type('application/javascript');
        return `Auth0.setClient(${scriptJson(settings)});`;
      },
    }),

    defineOperation({
      method: 'post',
      path: '/co/authenticate',
      operationId: 'crossOriginAuthenticate',
      tags: ['Authentication'],
      summary: 'Embedded login (auth0-js passwordlessLogin, Lock): check a one-time code from the application\'s page and answer a login ticket',
      description: `Cross-origin authentication as Auth0 serves it. The request must come from a page (its \`Origin\`) of one of the client's web_origins / allowed_origins, the client must have \`cross_origin_authentication\` on and the passwordless OTP grant; the code is checked with the same attempts, brute-force counters and blocks as every other path. The answer: a login ticket (single-use, ${LOGIN_TICKET_LIFETIME_SECONDS} seconds, bound to the client and the origin) for \`/authorize?login_ticket=\`, and its verifier, also set as an HttpOnly cookie (\`SameSite=None; Secure\` over https); the browser must present one or the other at /authorize (see /co/verify). CORS with credentials for registered web origins.`,
      body: { schema: CoAuthenticateRequestSchema, component: 'CoAuthenticateRequest', mediaTypes: ['application/json'] },
      validation: 'handler',
      responses: {
        '200': { description: 'The login ticket.', schema: CoAuthenticateResponseSchema, component: 'CoAuthenticateResponse', headers: NO_STORE_HEADERS },
        '400': error('A missing or invalid parameter, a credential_type other than the passwordless OTP, a username that is not a phone number, or a wrong, used or expired code (`invalid_grant`).', [
          E.INVALID_REQUEST,
          E.INVALID_GRANT,
        ]),
        '401': error('Unknown client, or the number\'s user is blocked.', [E.INVALID_CLIENT, E.UNAUTHORIZED]),
        '403': error(
          'The client has cross_origin_authentication off, the Origin is not one of its web_origins / allowed_origins (or absent), it lacks the passwordless OTP grant, or it is not enabled for the connection.',
          [E.UNAUTHORIZED_CLIENT],
        ),
        '429': error('Brute-force protection: too many wrong codes for the number from this IP, counted with every other path.', [E.TOO_MANY_ATTEMPTS]),
        ...COMMON_ERRORS,
      },
      handle: async ({ req, res }) => {
        res.set(NO_STORE);
        const answer = await authenticateCrossOrigin(deps.codeExchange, {
          body: req.body,
          origin: req.get('origin'),
          ip: req.ip ?? '',
          userAgent: req.get('user-agent'),
        });
        setVerifierCookie(res, answer.co_id, answer.co_verifier, deps.secureCookies, LOGIN_TICKET_LIFETIME_SECONDS);
        return answer;
      },
    }),
  ];
}
