import { ErrorCodes as E, RevokeRequestSchema } from '@smsauth/contracts';
import { defineOperation, mountOperations, type Operation } from '@smsauth/service-kit';
import { Router } from 'express';
import { revokeRefreshToken, type RevokeDependencies } from '../domain/oauth/revoke';
import { COMMON_ERRORS, errorResponse as error } from './management/responses';
import { CLIENT_AUTHENTICATION, CLIENT_SECURITY, JSON_OR_FORM, NO_STORE, NO_STORE_HEADERS } from './oauth-common';

/** `POST /oauth/revoke` (JSON or form): 200 with an empty body whenever the client authenticated; the domain validates with RevokeRequestSchema. */
export function oauthRevokeOperations(deps: RevokeDependencies): Operation[] {
  return [
    defineOperation({
      method: 'post',
      path: '/oauth/revoke',
      operationId: 'revoke',
      tags: ['Authentication'],
      summary: 'Revoke a refresh token (RFC 7009): it and its rotation family stop refreshing',
      description: `${CLIENT_AUTHENTICATION} An unknown, already revoked or another client's token also answers 200 and changes nothing.`,
      security: CLIENT_SECURITY,
      body: { schema: RevokeRequestSchema, component: 'RevokeRequest', mediaTypes: JSON_OR_FORM },
      validation: 'handler',
      responses: {
        '200': { description: 'Revoked (or nothing to revoke); empty body.', headers: NO_STORE_HEADERS },
        '400': error('Malformed request.', [E.INVALID_REQUEST]),
        '401': error('Client authentication failed.', [E.INVALID_CLIENT]),
        ...COMMON_ERRORS,
      },
      handle: async ({ req, res }) => {
        res.set(NO_STORE);
        await revokeRefreshToken(deps, { body: req.body ?? {}, headers: req.headers });
      },
    }),
  ];
}

export function oauthRevokeRouter(deps: RevokeDependencies, operations = oauthRevokeOperations(deps)): Router {
  return mountOperations(Router(), operations);
}
