import { ErrorCodes as E, UserInfoResponseSchema } from '@smsauth/contracts';
import { defineOperation, mountOperations, type Clock, type Operation } from '@smsauth/service-kit';
import { Router } from 'express';
import { z } from 'zod';
import { userInfo } from '../domain/oauth/userinfo';
import type { TokenVerifier } from '../domain/tokens/verifier';
import type { IdentityStore } from '../store';
import { errorResponse as error, NO_BODY_ERRORS } from './management/responses';

export interface UserinfoDependencies {
  store: IdentityStore;
  verifier: TokenVerifier;
  clock: Clock;
}

/** `GET /userinfo` with a bearer access token issued here (header, or `access_token` in the query). */
export function userinfoOperations(deps: UserinfoDependencies): Operation[] {
  return [
    defineOperation({
      method: 'get',
      path: '/userinfo',
      operationId: 'userinfo',
      tags: ['Authentication'],
      summary: 'The user an access token issued here was issued for',
      security: [{ userAccessToken: [] }],
      query: z.object({ access_token: z.string().optional() }),
      queryDescriptions: { access_token: 'The access token, when not in the `Authorization` header (RFC 6750 §2.3; passport-auth0 sends it so).' },
      // A token anywhere but a string in the query (or none) is a 401 of the domain, as Auth0 answers.
      validation: 'handler',
      responses: {
        '200': { description: 'The user.', schema: UserInfoResponseSchema, component: 'UserInfoResponse' },
        '401': error('Missing, unknown or expired token (with `WWW-Authenticate`).', [E.INVALID_TOKEN]),
        ...NO_BODY_ERRORS,
      },
      handle: ({ req, res }) => {
        res.set('Cache-Control', 'no-store');
        // The token may also come as ?access_token= (RFC 6750 §2.3), as Auth0 accepts and passport-auth0 sends it.
        const queryToken = typeof req.query.access_token === 'string' && !req.headers.authorization ? `Bearer ${req.query.access_token}` : undefined;
        return userInfo(deps, req.headers.authorization ?? queryToken);
      },
    }),
  ];
}

export function userinfoRouter(deps: UserinfoDependencies, operations = userinfoOperations(deps)): Router {
  return mountOperations(Router(), operations);
}
