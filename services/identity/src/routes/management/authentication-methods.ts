import { AuthenticationMethodRecordSchema } from '@smsauth/contracts';
import type { Operation } from '@smsauth/service-kit';
import { z } from 'zod';
import * as authenticationMethods from '../../domain/management/authentication-methods';
import type { ManagementDependencies, ManagementWrite } from './context';
import { byId, managementOperation } from './declare';
import { arrayOf, record } from './responses';

const byMethod = z.object({ id: z.string(), method_id: z.string() });

/**
 * A user's passkeys, as Auth0's authentication methods (`type: passkey`): read with read:users,
 * deleted with update:users (deleting one changes the user's sign-in, not the user).
 */
export function authenticationMethodOperations({ store }: ManagementDependencies, write: ManagementWrite): Operation[] {
  return [
    managementOperation({
      method: 'get',
      path: '/users/:id/authentication-methods',
      summary: "A user's passkeys, as Auth0 lists authentication methods (type `passkey`), oldest first",
      scope: 'read:users',
      params: byId,
      status: '200',
      response: arrayOf('AuthenticationMethodRecord', AuthenticationMethodRecordSchema),
      errors: ['404'],
      handle: ({ params }) => authenticationMethods.listAuthenticationMethods(store, params.id),
    }),
    managementOperation({
      method: 'get',
      path: '/users/:id/authentication-methods/:method_id',
      summary: 'Get one passkey of a user',
      scope: 'read:users',
      params: byMethod,
      status: '200',
      response: record('AuthenticationMethodRecord', AuthenticationMethodRecordSchema),
      errors: ['404'],
      handle: ({ params }) => authenticationMethods.getAuthenticationMethod(store, params.id, params.method_id),
    }),
    managementOperation({
      method: 'delete',
      path: '/users/:id/authentication-methods/:method_id',
      summary: 'Delete a passkey of a user: it stops signing in at once (SMS still works)',
      scope: 'update:users',
      params: byMethod,
      status: '204',
      errors: ['404'],
      handle: ({ params, req, res }) =>
        write(
          req,
          res,
          'Delete an authentication method of a user',
          (tx) => authenticationMethods.deleteAuthenticationMethod(tx, params.id, params.method_id),
          ({ userId }) => ({ userId }),
        ),
    }),
  ];
}
