import {
  ClientCreateSchema,
  ClientCredentialCreateSchema,
  ClientCredentialRecordSchema,
  ClientCredentialUpdateSchema,
  ClientRecordSchema,
  ClientsListQuerySchema,
  ClientUpdateSchema,
  RecordProjectionQuerySchema,
} from '@smsauth/contracts';
import type { Operation } from '@smsauth/service-kit';
import { z } from 'zod';
import * as clientCredentials from '../../domain/management/client-credentials';
import * as clients from '../../domain/management/clients';
import * as lists from '../../domain/management/lists';
import { projectionOf } from '../../domain/management/paging';
import type { ManagementDependencies, ManagementWrite } from './context';
import { byId, managementOperation } from './declare';
import { arrayOf, PAGING_DESCRIPTIONS, pagedList, projectedRecord, PROJECTION_DESCRIPTIONS, record } from './responses';

const byCredential = z.object({ id: z.string(), credential_id: z.string() });

/** `/clients` and their private_key_jwt public keys (`/clients/{id}/credentials`, as Auth0's). */
export function clientOperations({ store }: ManagementDependencies, write: ManagementWrite): Operation[] {
  const clientRecord = record('ClientRecord', ClientRecordSchema);
  const credentialRecord = record('ClientCredentialRecord', ClientCredentialRecordSchema);
  return [
    managementOperation({
      method: 'get',
      path: '/clients',
      summary: 'List clients',
      scope: 'read:clients',
      query: ClientsListQuerySchema,
      queryDescriptions: { ...PAGING_DESCRIPTIONS, app_type: 'Only clients of these app types (comma-separated or repeated).' },
      status: '200',
      response: pagedList('ClientRecord', ClientRecordSchema, 'clients', { projected: true }),
      errors: ['400'],
      handle: ({ query }) => lists.listClients(store, query),
    }),
    managementOperation({
      method: 'post',
      path: '/clients',
      summary: 'Create a client',
      scope: 'create:clients',
      body: { schema: ClientCreateSchema, component: 'ClientCreate' },
      status: '201',
      response: clientRecord,
      errors: ['400'],
      handle: ({ body, req, res }) => write(req, res, 'Create a client', (tx) => clients.createClient(tx, body)),
    }),
    managementOperation({
      method: 'get',
      path: '/clients/:id',
      summary: 'Get a client (fields projected as on the list)',
      scope: 'read:clients',
      params: byId,
      query: RecordProjectionQuerySchema,
      queryDescriptions: PROJECTION_DESCRIPTIONS,
      status: '200',
      response: projectedRecord('ClientRecord', ClientRecordSchema),
      errors: ['400', '404'],
      handle: async ({ params, query }) => projectionOf(query)(await clients.clientRecordOf(store, await clients.getClient(store, params.id))),
    }),
    managementOperation({
      method: 'patch',
      path: '/clients/:id',
      summary: 'Update a client',
      scope: 'update:clients',
      params: byId,
      body: { schema: ClientUpdateSchema, component: 'ClientUpdate' },
      status: '200',
      response: clientRecord,
      errors: ['400', '404'],
      handle: ({ params, body, req, res }) => write(req, res, 'Update a client', (tx) => clients.updateClient(tx, params.id, body)),
    }),
    managementOperation({
      method: 'post',
      path: '/clients/:id/rotate-secret',
      summary: 'Rotate a confidential client\'s secret',
      scope: 'update:clients',
      params: byId,
      status: '200',
      response: clientRecord,
      errors: ['400', '404'],
      handle: ({ params, req, res }) => write(req, res, 'Rotate a client secret', (tx) => clients.rotateClientSecret(tx, params.id)),
    }),
    managementOperation({
      method: 'delete',
      path: '/clients/:id',
      summary: 'Delete a client (not the bootstrap admin, which is built_in)',
      scope: 'delete:clients',
      params: byId,
      status: '204',
      errors: ['403', '404'],
      handle: ({ params, req, res }) => write(req, res, 'Delete a client', (tx) => clients.deleteClient(tx, params.id)),
    }),
    managementOperation({
      method: 'get',
      path: '/clients/:id/credentials',
      summary: 'List a client\'s private_key_jwt public keys',
      scope: 'read:client_credentials',
      params: byId,
      status: '200',
      response: arrayOf('ClientCredentialRecord', ClientCredentialRecordSchema),
      errors: ['404'],
      handle: ({ params }) => clientCredentials.listClientCredentials(store, params.id),
    }),
    managementOperation({
      method: 'post',
      path: '/clients/:id/credentials',
      summary: 'Register a public key for private_key_jwt (Auth0\'s shape)',
      scope: 'create:client_credentials',
      params: byId,
      body: { schema: ClientCredentialCreateSchema, component: 'ClientCredentialCreate' },
      status: '201',
      response: credentialRecord,
      errors: ['400', '404'],
      handle: ({ params, body, req, res }) =>
        write(req, res, 'Create a client credential', (tx) => clientCredentials.createClientCredential(tx, params.id, body)),
    }),
    managementOperation({
      method: 'get',
      path: '/clients/:id/credentials/:credential_id',
      summary: 'Get a client credential',
      scope: 'read:client_credentials',
      params: byCredential,
      status: '200',
      response: credentialRecord,
      errors: ['404'],
      handle: ({ params }) => clientCredentials.getClientCredential(store, params.id, params.credential_id),
    }),
    managementOperation({
      method: 'patch',
      path: '/clients/:id/credentials/:credential_id',
      summary: 'Change a client credential\'s expiry (`null` removes it)',
      scope: 'update:client_credentials',
      params: byCredential,
      body: { schema: ClientCredentialUpdateSchema, component: 'ClientCredentialUpdate' },
      status: '200',
      response: credentialRecord,
      errors: ['400', '404'],
      handle: ({ params, body, req, res }) =>
        write(req, res, 'Update a client credential', (tx) => clientCredentials.updateClientCredential(tx, params.id, params.credential_id, body)),
    }),
    managementOperation({
      method: 'delete',
      path: '/clients/:id/credentials/:credential_id',
      summary: 'Delete a client credential (its key stops verifying at once)',
      scope: 'delete:client_credentials',
      params: byCredential,
      status: '204',
      errors: ['404'],
      handle: ({ params, req, res }) =>
        write(req, res, 'Delete a client credential', (tx) => clientCredentials.deleteClientCredential(tx, params.id, params.credential_id)),
    }),
  ];
}
