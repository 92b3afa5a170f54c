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

const FORM = ['application/x-www-form-urlencoded'] as const;

const RESPONSES = {
  '200': { description: 'The user.', schema: UserInfoResponseSchema, component: 'UserInfoResponse' },
  '401': error('Missing, unknown or expired token (with `WWW-Authenticate`).', [E.INVALID_TOKEN]),
  ...NO_BODY_ERRORS,
};

/** The token of a request as an Authorization value: the header, else the one given in `other` (query or form). */
function presentedToken(authorization: string | undefined, other: unknown): string | undefined {
  if (authorization) return authorization;
  return typeof other === 'string' ? `Bearer ${other}` : undefined;
}

/**
 * `/userinfo` with a bearer access token issued here: GET (header, or `access_token` in the query)
 * and POST (header, or `access_token` in a form body); OpenID Connect Core §5.3.1 requires both.
 */
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
      responses: RESPONSES,
      handle: ({ req, res }) => {
        res.set('Cache-Control', 'no-store');
        // The token may also come as ?access_token= (RFC 6750 §2.3), as Auth0 accepts and passport-auth0 sends it.
        return userInfo(deps, presentedToken(req.headers.authorization, req.query.access_token));
      },
    }),
    defineOperation({
      method: 'post',
      path: '/userinfo',
      operationId: 'userinfoByPost',
      tags: ['Authentication'],
      summary: 'The user an access token issued here was issued for (as GET /userinfo)',
      security: [{ userAccessToken: [] }],
      body: {
        schema: z.object({ access_token: z.string().optional().describe('The access token, when not in the `Authorization` header (RFC 6750 §2.2).') }),
        mediaTypes: FORM,
      },
      validation: 'handler',
      responses: RESPONSES,
      handle: ({ req, res }) => {
        res.set('Cache-Control', 'no-store');
        const body: unknown = req.body;
        const formToken = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).access_token : undefined;
        return userInfo(deps, presentedToken(req.headers.authorization, formToken));
      },
    }),
  ];
}

export function userinfoRouter(deps: UserinfoDependencies, operations = userinfoOperations(deps)): Router {
  return mountOperations(Router(), operations);
}
