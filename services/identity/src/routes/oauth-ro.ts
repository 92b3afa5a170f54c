import { ErrorCodes as E, RoTokenRequestSchema, RoTokenResponseSchema } from '@smsauth/contracts';
import { defineOperation, mountOperations, type Operation } from '@smsauth/service-kit';
import { Router } from 'express';
import type { PasswordlessExchangeDependencies } from '../domain/oauth/passwordless-exchange';
import { resourceOwnerLogin } from '../domain/oauth/resource-owner';
import { EXAMPLE_CLIENT, EXAMPLE_CONNECTION, EXAMPLE_PHONE } from './management/examples';
import { COMMON_ERRORS, errorResponse as error } from './management/responses';
import { CLIENT_AUTHENTICATION, CLIENT_SECURITY, JSON_OR_FORM, NO_STORE, NO_STORE_HEADERS } from './oauth-common';

/** `POST /oauth/ro` (spec 4.3), JSON or form; the domain validates with RoTokenRequestSchema (Auth0's errors). */
export function oauthRoOperations(deps: PasswordlessExchangeDependencies): Operation[] {
  return [
    defineOperation({
      method: 'post',
      path: '/oauth/ro',
      operationId: 'resourceOwnerLogin',
      tags: ['Authentication'],
      summary: 'Legacy resource-owner exchange of a code for tokens (spec 2.5)',
      description: CLIENT_AUTHENTICATION,
      security: CLIENT_SECURITY,
      body: {
        schema: RoTokenRequestSchema,
        component: 'RoTokenRequest',
        mediaTypes: JSON_OR_FORM,
        examples: {
          exchangeCode: {
            summary: 'Exchange the code for tokens',
            value: { client_id: EXAMPLE_CLIENT, connection: EXAMPLE_CONNECTION, grant_type: 'password', username: EXAMPLE_PHONE, password: '123456', scope: 'openid' },
          },
        },
      },
      validation: 'handler',
      responses: {
        '200': { description: 'Tokens.', headers: NO_STORE_HEADERS, schema: RoTokenResponseSchema, component: 'RoTokenResponse' },
        '400': error('Malformed request.', [E.INVALID_REQUEST, E.UNSUPPORTED_GRANT_TYPE]),
        '401': error('Wrong phone number or code (one text for both), client authentication failed, or the user is blocked (`user is blocked`).', [
          E.INVALID_USER_PASSWORD,
          E.INVALID_CLIENT,
          E.UNAUTHORIZED,
        ]),
        '403': error('The client may not use this grant or audience.', [E.UNAUTHORIZED_CLIENT, E.ACCESS_DENIED]),
        '429': error('Brute-force block.', [E.TOO_MANY_ATTEMPTS]),
        ...COMMON_ERRORS,
      },
      handle: ({ req, res }) => {
        res.set(NO_STORE);
        return resourceOwnerLogin(deps, { body: req.body ?? {}, headers: req.headers, ip: req.ip ?? '' });
      },
    }),
  ];
}

export function oauthRoRouter(deps: PasswordlessExchangeDependencies, operations = oauthRoOperations(deps)): Router {
  return mountOperations(Router(), operations);
}
