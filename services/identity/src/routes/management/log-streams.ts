import { LogStreamCreatedSchema, LogStreamCreateSchema, LogStreamRecordSchema, LogStreamUpdateSchema } from '@smsauth/contracts';
import type { Operation } from '@smsauth/service-kit';
import * as logStreams from '../../domain/log-streams/management';
import type { ManagementDependencies, ManagementWrite } from './context';
import { byId, managementOperation } from './declare';
import { arrayOf, record } from './responses';

/** `/log-streams`, as Auth0's (http sinks only); the POST answer alone shows the signing secret. */
export function logStreamOperations({ store, logStreamRules: rules }: ManagementDependencies, write: ManagementWrite): Operation[] {
  const streamRecord = record('LogStreamRecord', LogStreamRecordSchema);
  return [
    managementOperation({
      method: 'get',
      path: '/log-streams',
      summary: 'List log streams',
      scope: 'read:log_streams',
      status: '200',
      response: arrayOf('LogStreamRecord', LogStreamRecordSchema),
      errors: [],
      handle: () => logStreams.listLogStreams(store),
    }),
    managementOperation({
      method: 'post',
      path: '/log-streams',
      summary:
        'Create an http log stream: it delivers every tenant log record from now on, signed (X-Smsauth-Signature). ' +
        'The answer alone shows `signing_secret`; `sink.httpAuthorization` is write-only. The endpoint must satisfy GATEWAY_URL_POLICY.',
      scope: 'create:log_streams',
      body: { schema: LogStreamCreateSchema, component: 'LogStreamCreate' },
      status: '201',
      response: record('LogStreamCreated', LogStreamCreatedSchema),
      errors: ['400'],
      handle: ({ body, req, res }) => write(req, res, 'Create a log stream', (tx) => logStreams.createLogStream(tx, rules, body)),
    }),
    managementOperation({
      method: 'get',
      path: '/log-streams/:id',
      summary: 'Get a log stream, with its delivery state (failures, why it was suspended)',
      scope: 'read:log_streams',
      params: byId,
      status: '200',
      response: streamRecord,
      errors: ['404'],
      handle: ({ params }) => logStreams.getLogStream(store, params.id),
    }),
    managementOperation({
      method: 'patch',
      path: '/log-streams/:id',
      summary: 'Update a log stream: name, sink fields (merged; httpAuthorization null removes it), status active (resume from the cursor) or paused',
      scope: 'update:log_streams',
      params: byId,
      body: { schema: LogStreamUpdateSchema, component: 'LogStreamUpdate' },
      status: '200',
      response: streamRecord,
      errors: ['400', '404'],
      handle: ({ params, body, req, res }) => write(req, res, 'Update a log stream', (tx) => logStreams.updateLogStream(tx, rules, params.id, body)),
    }),
    managementOperation({
      method: 'delete',
      path: '/log-streams/:id',
      summary: 'Delete a log stream',
      scope: 'delete:log_streams',
      params: byId,
      status: '204',
      errors: ['404'],
      handle: ({ params, req, res }) => write(req, res, 'Delete a log stream', (tx) => logStreams.deleteLogStream(tx, params.id)),
    }),
  ];
}
