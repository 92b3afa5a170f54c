import {
  ConnectionClientsPageSchema,
  ConnectionClientsQuerySchema,
  ConnectionClientsUpdateSchema,
  ConnectionCreateSchema,
  ConnectionRecordSchema,
  ConnectionsListQuerySchema,
  ConnectionUpdateSchema,
  RecordProjectionQuerySchema,
  SmsFraudBlockListSchema,
  SmsTemplateTestRequestSchema,
  SmsTemplateTestResponseSchema,
} from '@smsauth/contracts';
import type { Operation } from '@smsauth/service-kit';
import { z } from 'zod';
import * as connectionClients from '../../domain/management/connection-clients';
import * as connections from '../../domain/management/connections';
import * as lists from '../../domain/management/lists';
import { projectionOf } from '../../domain/management/paging';
import * as smsFraudBlocks from '../../domain/management/sms-fraud-blocks';
import * as smsTemplate from '../../domain/management/sms-template';
import type { ManagementDependencies, ManagementWrite } from './context';
import { byId, managementOperation } from './declare';
import { CONNECTION_EXAMPLES, SMS_TEMPLATE_TEST_EXAMPLES } from './examples';
import { PAGING_DESCRIPTIONS, pagedList, projectedRecord, PROJECTION_DESCRIPTIONS, record } from './responses';

/** `/connections`: SMS connections, their template test and the SMS fraud guard's blocks. */
export function connectionOperations({ store, clock, connectionRules: rules }: ManagementDependencies, write: ManagementWrite): Operation[] {
  return [
    managementOperation({
      method: 'get',
      path: '/connections',
      summary: 'List connections',
      scope: 'read:connections',
      query: ConnectionsListQuerySchema,
      queryDescriptions: {
        ...PAGING_DESCRIPTIONS,
        name: 'Only the connection of this name.',
        strategy: 'Only connections of these strategies (repeat the parameter or separate with commas).',
      },
      status: '200',
      response: pagedList('ConnectionRecord', ConnectionRecordSchema, 'connections', { checkpoint: true, projected: true }),
      errors: ['400'],
      handle: ({ query }) => lists.listConnections(store, query),
    }),
    managementOperation({
      method: 'post',
      path: '/connections',
      summary: 'Create a connection (spec 2.1, or the reference product\'s top-level name and strategy; both must agree)',
      scope: 'create:connections',
      body: { schema: ConnectionCreateSchema, component: 'ConnectionCreate', examples: CONNECTION_EXAMPLES },
      status: '201',
      response: record('ConnectionRecord', ConnectionRecordSchema),
      errors: ['400', '404', '409'],
      handle: ({ body, req, res }) => write(req, res, 'Create a connection', (tx) => connections.createConnection(tx, rules, body)),
    }),
    managementOperation({
      method: 'get',
      path: '/connections/:id',
      summary: 'Get a connection (fields projected as on the list)',
      scope: 'read:connections',
      params: byId,
      query: RecordProjectionQuerySchema,
      queryDescriptions: PROJECTION_DESCRIPTIONS,
      status: '200',
      response: projectedRecord('ConnectionRecord', ConnectionRecordSchema),
      errors: ['400', '404'],
      handle: async ({ params, query }) => projectionOf(query)(connections.toConnectionRecord(await connections.getConnection(store, params.id))),
    }),
    managementOperation({
      method: 'patch',
      path: '/connections/:id',
      summary: 'Update a connection (options are merged)',
      scope: 'update:connections',
      params: byId,
      body: { schema: ConnectionUpdateSchema, component: 'ConnectionUpdate' },
      status: '200',
      response: record('ConnectionRecord', ConnectionRecordSchema),
      errors: ['400', '404', '409'],
      handle: ({ params, body, req, res }) => write(req, res, 'Update a connection', (tx) => connections.updateConnection(tx, rules, params.id, body)),
    }),
    // Auth0's enabled-clients sub-resource (what auth0-deploy-cli reads and writes); the same list as the record's enabled_clients.
    managementOperation({
      method: 'get',
      path: '/connections/:id/clients',
      summary: 'The clients enabled on the connection, by client_id (its enabled_clients), in client_id order',
      scope: 'read:connections',
      params: byId,
      query: ConnectionClientsQuerySchema,
      queryDescriptions: { from: PAGING_DESCRIPTIONS.from, take: PAGING_DESCRIPTIONS.take },
      status: '200',
      response: record('ConnectionClientsPage', ConnectionClientsPageSchema),
      errors: ['400', '404'],
      handle: ({ params, query }) => connectionClients.listConnectionClients(store, params.id, query),
    }),
    managementOperation({
      method: 'patch',
      path: '/connections/:id/clients',
      summary: 'Enable (status: true) or disable (status: false) clients on the connection; clients not named keep their state',
      scope: 'update:connections',
      params: byId,
      body: { schema: ConnectionClientsUpdateSchema, component: 'ConnectionClientsUpdate' },
      status: '204',
      errors: ['400', '404'],
      handle: ({ params, body, req, res }) =>
        write(req, res, 'Update the clients of a connection', (tx) => connectionClients.updateConnectionClients(tx, params.id, body)),
    }),
    // Renders without saving anything, so reading connections is enough.
    managementOperation({
      method: 'post',
      path: '/connections/:id/sms-template/test',
      summary:
        'Render the connection\'s SMS (or a draft syntax/template/webotp, merged as a PATCH would be, not saved) with sample variables, and count its SMS segments ' +
        '(GSM-7: 160 septets in one segment, 153 per part beyond; UCS-2: 70 / 67 UTF-16 units). A Liquid template that does not parse or is cut off is a 400 naming the line.',
      scope: 'read:connections',
      params: byId,
      body: { schema: SmsTemplateTestRequestSchema, component: 'SmsTemplateTestRequest', examples: SMS_TEMPLATE_TEST_EXAMPLES },
      status: '200',
      response: record('SmsTemplateTestResponse', SmsTemplateTestResponseSchema),
      errors: ['400', '404'],
      handle: ({ params, body }) => smsTemplate.testSmsTemplate(store, params.id, body),
    }),
    managementOperation({
      method: 'delete',
      path: '/connections/:id',
      summary: 'Delete a connection',
      scope: 'delete:connections',
      params: byId,
      status: '204',
      errors: ['404'],
      handle: ({ params, req, res }) => write(req, res, 'Delete a connection', (tx) => connections.deleteConnection(tx, params.id)),
    }),
    // The SMS fraud guard's blocked prefixes (domain/sms-policy), as a sub-resource of the connection.
    managementOperation({
      method: 'get',
      path: '/connections/:id/sms-fraud-blocks',
      summary: 'Number prefixes the SMS fraud guard blocks now on this connection (options.sms_fraud_guard), soonest expiry first',
      scope: 'read:sms_fraud_blocks',
      params: byId,
      status: '200',
      response: record('SmsFraudBlockList', SmsFraudBlockListSchema),
      errors: ['404'],
      handle: ({ params }) => smsFraudBlocks.listSmsFraudBlocks(store, params.id, clock.now()),
    }),
    managementOperation({
      method: 'delete',
      path: '/connections/:id/sms-fraud-blocks/:prefix',
      summary: 'Lift a fraud-guard block before it expires (the prefix\'s send and verification counts start again from zero)',
      // Its own scope, not update:connections: a support operator may lift a block without being able to change the connection.
      scope: 'delete:sms_fraud_blocks',
      params: z.object({ id: z.string(), prefix: z.string() }),
      paramDescriptions: { prefix: 'A blocked prefix: `+`, the country calling code and the next digits (encode `+` as `%2B`).' },
      status: '204',
      errors: ['404'],
      handle: ({ params }) => smsFraudBlocks.liftSmsFraudBlock(store, params.id, params.prefix, clock.now()),
    }),
  ];
}
