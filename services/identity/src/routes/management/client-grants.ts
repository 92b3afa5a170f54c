import {
  ClientGrantCreateSchema,
  ClientGrantRecordSchema,
  ClientGrantsListQuerySchema,
  ClientGrantUpdateSchema,
} from '@smsauth/contracts';
import type { Operation } from '@smsauth/service-kit';
import * as clientGrants from '../../domain/management/client-grants';
import * as lists from '../../domain/management/lists';
import type { ManagementDependencies, ManagementWrite } from './context';
import { byId, managementOperation } from './declare';
import { PAGING_DESCRIPTIONS, pagedList, record } from './responses';

/** `/client-grants`: which client may get tokens for which API, with which scopes. */
export function clientGrantOperations({ store }: ManagementDependencies, write: ManagementWrite): Operation[] {
  const grantRecord = record('ClientGrantRecord', ClientGrantRecordSchema);
  return [
    managementOperation({
      method: 'get',
      path: '/client-grants',
      summary: 'List client grants',
      scope: 'read:client_grants',
      query: ClientGrantsListQuerySchema,
      queryDescriptions: { ...PAGING_DESCRIPTIONS, client_id: 'Only this client\'s grants.', audience: 'Only grants for this API.' },
      status: '200',
      response: pagedList('ClientGrantRecord', ClientGrantRecordSchema, 'client_grants', { checkpoint: true }),
      errors: ['400'],
      handle: ({ query }) => lists.listClientGrants(store, query),
    }),
    managementOperation({
      method: 'post',
      path: '/client-grants',
      summary: 'Grant a client access to an API',
      scope: 'create:client_grants',
      body: { schema: ClientGrantCreateSchema, component: 'ClientGrantCreate' },
      status: '201',
      response: grantRecord,
      errors: ['400', '404', '409'],
      handle: ({ body, req, res }) => write(req, res, 'Create a client grant', (tx) => clientGrants.createClientGrant(tx, body)),
    }),
    managementOperation({
      method: 'get',
      path: '/client-grants/:id',
      summary: 'Get a client grant',
      scope: 'read:client_grants',
      params: byId,
      status: '200',
      response: grantRecord,
      errors: ['404'],
      handle: async ({ params }) => clientGrants.toClientGrantRecord(await clientGrants.getClientGrant(store, params.id)),
    }),
    managementOperation({
      method: 'patch',
      path: '/client-grants/:id',
      summary: 'Change a client grant\'s scopes',
      scope: 'update:client_grants',
      params: byId,
      body: { schema: ClientGrantUpdateSchema, component: 'ClientGrantUpdate' },
      status: '200',
      response: grantRecord,
      errors: ['400', '404'],
      handle: ({ params, body, req, res }) => write(req, res, 'Update a client grant', (tx) => clientGrants.updateClientGrant(tx, params.id, body)),
    }),
    managementOperation({
      method: 'delete',
      path: '/client-grants/:id',
      summary: 'Delete a client grant',
      scope: 'delete:client_grants',
      params: byId,
      status: '204',
      errors: ['404'],
      handle: ({ params, req, res }) => write(req, res, 'Delete a client grant', (tx) => clientGrants.deleteClientGrant(tx, params.id)),
    }),
  ];
}
