import {
  RecordProjectionQuerySchema,
  ResourceServerCreateSchema,
  ResourceServerRecordSchema,
  ResourceServersListQuerySchema,
  ResourceServerUpdateSchema,
} from '@smsauth/contracts';
import type { Operation } from '@smsauth/service-kit';
import * as lists from '../../domain/management/lists';
import { projectionOf } from '../../domain/management/paging';
import * as resourceServers from '../../domain/management/resource-servers';
import type { ManagementDependencies, ManagementWrite } from './context';
import { byId, managementOperation } from './declare';
import { PAGING_DESCRIPTIONS, pagedList, projectedRecord, PROJECTION_DESCRIPTIONS, record } from './responses';

/** `/resource-servers`: the APIs tokens are issued for (the management API among them, unchangeable). */
export function resourceServerOperations({ store }: ManagementDependencies, write: ManagementWrite): Operation[] {
  const apiRecord = record('ResourceServerRecord', ResourceServerRecordSchema);
  return [
    managementOperation({
      method: 'get',
      path: '/resource-servers',
      summary: 'List APIs',
      scope: 'read:resource_servers',
      query: ResourceServersListQuerySchema,
      queryDescriptions: { ...PAGING_DESCRIPTIONS, identifiers: 'Only these identifiers (repeat the parameter, at most 10).' },
      status: '200',
      response: pagedList('ResourceServerRecord', ResourceServerRecordSchema, 'resource_servers', { projected: true }),
      errors: ['400'],
      handle: ({ query }) => lists.listResourceServers(store, query),
    }),
    managementOperation({
      method: 'post',
      path: '/resource-servers',
      summary: 'Create an API',
      scope: 'create:resource_servers',
      body: { schema: ResourceServerCreateSchema, component: 'ResourceServerCreate' },
      status: '201',
      response: apiRecord,
      errors: ['400', '409'],
      handle: ({ body, req, res }) => write(req, res, 'Create a resource server', (tx) => resourceServers.createResourceServer(tx, body)),
    }),
    managementOperation({
      method: 'get',
      path: '/resource-servers/:id',
      summary: 'Get an API by id or URL-encoded identifier (fields projected as on the list)',
      scope: 'read:resource_servers',
      params: byId,
      query: RecordProjectionQuerySchema,
      queryDescriptions: PROJECTION_DESCRIPTIONS,
      status: '200',
      response: projectedRecord('ResourceServerRecord', ResourceServerRecordSchema),
      errors: ['400', '404'],
      handle: async ({ params, query }) =>
        projectionOf(query)(resourceServers.toResourceServerRecord(await resourceServers.getResourceServer(store, params.id))),
    }),
    managementOperation({
      method: 'patch',
      path: '/resource-servers/:id',
      summary: 'Update an API',
      scope: 'update:resource_servers',
      params: byId,
      body: { schema: ResourceServerUpdateSchema, component: 'ResourceServerUpdate' },
      status: '200',
      response: apiRecord,
      errors: ['400', '403', '404'],
      handle: ({ params, body, req, res }) => write(req, res, 'Update a resource server', (tx) => resourceServers.updateResourceServer(tx, params.id, body)),
    }),
    managementOperation({
      method: 'delete',
      path: '/resource-servers/:id',
      summary: 'Delete an API (not the management API)',
      scope: 'delete:resource_servers',
      params: byId,
      status: '204',
      errors: ['403', '404'],
      handle: ({ params, req, res }) => write(req, res, 'Delete a resource server', (tx) => resourceServers.deleteResourceServer(tx, params.id)),
    }),
  ];
}
