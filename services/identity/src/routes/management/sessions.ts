import { SessionRecordSchema } from '@smsauth/contracts';
import type { Operation } from '@smsauth/service-kit';
import * as sessions from '../../domain/management/sessions';
import type { ManagementDependencies, ManagementWrite } from './context';
import { byId, managementOperation } from './declare';
import { record } from './responses';

/**
 * Login sessions of the hosted login; ending one stops its single sign-on and silent
 * authentication at once.
 */
export function sessionOperations({ store, clock }: ManagementDependencies, write: ManagementWrite): Operation[] {
  return [
    managementOperation({
      method: 'get',
      path: '/users/:id/sessions',
      summary: "A user's live login sessions (hosted login single sign-on), newest first",
      scope: 'read:sessions',
      params: byId,
      status: '200',
      response: {
        jsonSchema: { type: 'object', required: ['sessions'], additionalProperties: false, properties: { sessions: { type: 'array', items: { $ref: '#/components/schemas/SessionRecord' } } } },
        uses: [{ component: 'SessionRecord', schema: SessionRecordSchema }],
      },
      errors: ['404'],
      handle: ({ params }) => sessions.listUserSessions(store, clock, params.id),
    }),
    managementOperation({
      method: 'delete',
      path: '/users/:id/sessions',
      summary: 'End every login session of a user: single sign-on and silent authentication stop at once (refresh tokens are not revoked)',
      scope: 'delete:sessions',
      params: byId,
      status: '202',
      errors: ['404'],
      handle: ({ params, req, res }) =>
        write(req, res, 'Delete the sessions of a user', (tx) => sessions.deleteUserSessions(tx, params.id, clock.now()), ({ userId }) => ({ userId })),
    }),
    managementOperation({
      method: 'get',
      path: '/sessions/:id',
      summary: 'Get a live login session',
      scope: 'read:sessions',
      params: byId,
      status: '200',
      response: record('SessionRecord', SessionRecordSchema),
      errors: ['404'],
      handle: ({ params }) => sessions.getSession(store, clock, params.id),
    }),
    managementOperation({
      method: 'delete',
      path: '/sessions/:id',
      summary: 'End a login session',
      scope: 'delete:sessions',
      params: byId,
      status: '202',
      errors: ['404'],
      handle: ({ params, req, res }) => write(req, res, 'Delete a session', (tx) => sessions.deleteSession(tx, params.id, clock.now()), ({ userId }) => ({ userId })),
    }),
  ];
}
