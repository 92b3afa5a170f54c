import { RecordProjectionQuerySchema, UserCreateSchema, UserRecordSchema, UsersListQuerySchema, UserUpdateSchema } from '@smsauth/contracts';
import type { Operation } from '@smsauth/service-kit';
import * as lists from '../../domain/management/lists';
import * as managedUsers from '../../domain/management/managed-users';
import { projectionOf } from '../../domain/management/paging';
import * as users from '../../domain/management/users';
import type { ManagementDependencies, ManagementWrite } from './context';
import { byId, managementOperation } from './declare';
import { PAGING_DESCRIPTIONS, pagedList, projectedRecord, PROJECTION_DESCRIPTIONS, record } from './responses';

/** `/users`: search, create (the only way in with disable_signup), update, delete. */
/**
 * The record's description of a PATCH: a block or an unblock is named as such, so that a user's
 * timeline shows it as its own event (the body itself stays out of the record).
 */
function userUpdateDescription(body: { blocked?: boolean }): string {
  if (body.blocked === true) return 'Block a user';
  if (body.blocked === false) return 'Unblock a user';
  return 'Update a user';
}

export function userOperations({ store, clock }: ManagementDependencies, write: ManagementWrite): Operation[] {
  const userRecord = record('UserRecord', UserRecordSchema);
  return [
    managementOperation({
      method: 'get',
      path: '/users',
      summary: 'Search users (Lucene subset of user search v3), paged',
      scope: 'read:users',
      query: UsersListQuerySchema,
      queryDescriptions: {
        ...PAGING_DESCRIPTIONS,
        q:
          '`field:value` / `field:"quoted"` on phone_number, name (the number), user_id, identities.connection, phone_verified; ' +
          '`*` wildcards; AND, OR, parentheses (side by side is OR). Bare text matches inside phone numbers (an un-encoded `+` too).',
        search_engine: 'v3 (v2 is answered the same way; v1 is refused).',
        sort: '`field:1` or `field:-1` on created_at (default), last_login, phone_number or user_id; user_id breaks ties.',
        connection: 'Only users of this connection.',
        primary_order: 'Accepted; the order is always deterministic.',
      },
      status: '200',
      response: pagedList('UserRecord', UserRecordSchema, 'users', { withLength: true, projected: true }),
      errors: ['400'],
      handle: ({ query }) => lists.listUsers(store, query),
    }),
    managementOperation({
      method: 'post',
      path: '/users',
      summary: 'Create a user of an sms connection (the only way in when the connection has `disable_signup`)',
      scope: 'create:users',
      body: { schema: UserCreateSchema, component: 'UserCreate' },
      status: '201',
      response: userRecord,
      errors: ['400', '409'],
      handle: ({ body, req, res }) => write(req, res, 'Create a user', (tx) => managedUsers.createUser(tx, clock, body)),
    }),
    managementOperation({
      method: 'patch',
      path: '/users/:id',
      summary: 'Update a user: number (must be free), phone_verified, blocked; metadata merged at the top level, null removes',
      scope: 'update:users',
      params: byId,
      body: { schema: UserUpdateSchema, component: 'UserUpdate' },
      status: '200',
      response: userRecord,
      errors: ['400', '404', '409'],
      handle: ({ params, body, req, res }) => write(req, res, userUpdateDescription(body), (tx) => managedUsers.updateUser(tx, clock, params.id, body)),
    }),
    managementOperation({
      method: 'get',
      path: '/users/:id',
      summary: 'Get a user (fields projected as on the list)',
      scope: 'read:users',
      params: byId,
      query: RecordProjectionQuerySchema,
      queryDescriptions: PROJECTION_DESCRIPTIONS,
      status: '200',
      response: projectedRecord('UserRecord', UserRecordSchema),
      errors: ['400', '404'],
      handle: async ({ params, query }) => projectionOf(query)(await users.getUser(store, params.id)),
    }),
    managementOperation({
      method: 'delete',
      path: '/users/:id',
      summary: 'Delete a user and its tokens',
      scope: 'delete:users',
      params: byId,
      status: '204',
      errors: ['404'],
      handle: ({ params, req, res }) => write(req, res, 'Delete a user', (tx) => users.deleteUser(tx, params.id, clock.now()), { userId: params.id }),
    }),
  ];
}
