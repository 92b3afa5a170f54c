import { UserBlocksQuerySchema, UserBlocksResponseSchema } from '@smsauth/contracts';
import type { Operation } from '@smsauth/service-kit';
import type { WriteTarget } from '../../domain/logs/management-events';
import * as userBlocks from '../../domain/management/user-blocks';
import type { ManagementDependencies, ManagementWrite } from './context';
import { byId, managementOperation } from './declare';
import { record } from './responses';

const IDENTIFIER = { identifier: 'The phone number (encode `+` as `%2B`).' };

/** An unblock's log record (`ublkdu`) names the number, and the user when reached through one. */
const unblocked = (lifted: userBlocks.LiftedBlocks): WriteTarget => ({ userId: lifted.userId, phoneNumber: lifted.phoneNumber });

/** `/user-blocks`: brute-force blocks, by phone number or (as Auth0's SDKs call it) by user id. */
export function userBlockOperations({ store, clock }: ManagementDependencies, write: ManagementWrite): Operation[] {
  const blocks = record('UserBlocksResponse', UserBlocksResponseSchema);
  return [
    managementOperation({
      method: 'get',
      path: '/user-blocks',
      summary: 'Brute-force blocks of a phone number',
      scope: 'read:user_blocks',
      query: UserBlocksQuerySchema,
      queryDescriptions: IDENTIFIER,
      status: '200',
      response: blocks,
      errors: ['400'],
      handle: ({ query }) => userBlocks.listUserBlocks(store, clock, query),
    }),
    managementOperation({
      method: 'delete',
      path: '/user-blocks',
      summary: 'Lift every brute-force block of a phone number',
      scope: 'delete:user_blocks',
      query: UserBlocksQuerySchema,
      queryDescriptions: IDENTIFIER,
      status: '204',
      errors: ['400'],
      handle: ({ query, req, res }) => write(req, res, 'Unblock a user', (tx) => userBlocks.clearUserBlocks(tx, query), unblocked, 'ublkdu'),
    }),
    managementOperation({
      method: 'get',
      path: '/user-blocks/:id',
      summary: 'Brute-force blocks of a user\'s phone number (by user id), each naming the user\'s connection',
      scope: 'read:user_blocks',
      params: byId,
      status: '200',
      response: blocks,
      errors: ['404'],
      handle: ({ params }) => userBlocks.listUserBlocksOfUser(store, clock, params.id),
    }),
    managementOperation({
      method: 'delete',
      path: '/user-blocks/:id',
      summary: 'Lift every brute-force block of a user\'s phone number (by user id)',
      scope: 'delete:user_blocks',
      params: byId,
      status: '204',
      errors: ['404'],
      handle: ({ params, req, res }) =>
        write(req, res, 'Unblock a user', (tx) => userBlocks.clearUserBlocksOfUser(tx, params.id), unblocked, 'ublkdu'),
    }),
  ];
}
