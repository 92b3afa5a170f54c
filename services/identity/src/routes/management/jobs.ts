import { JobRecordErrorSchema, JobRecordSchema, MAX_USER_IMPORT_FILE_BYTES, UserExportCreateSchema, UserImportFormSchema } from '@smsauth/contracts';
import type { Operation } from '@smsauth/service-kit';
import { getJob, getJobErrors } from '../../domain/jobs/jobs';
import { createExportJob } from '../../domain/jobs/user-export';
import { createImportJob } from '../../domain/jobs/user-import';
import { invalidField } from '../../domain/management/validation';
import type { ManagementDependencies, ManagementWrite } from './context';
import { byId, managementOperation } from './declare';
import { MULTIPART } from './multipart';
import { arrayOf, record } from './responses';

/** `/jobs`: bulk user imports and exports, run in the background by the job worker. */
export function jobOperations({ store, clock, authUrl }: ManagementDependencies, write: ManagementWrite): Operation[] {
  const jobRecord = record('JobRecord', JobRecordSchema);
  return [
    managementOperation({
      method: 'post',
      path: '/jobs/users-imports',
      summary: `Import users from a JSON file (the reference product's user import schema, phone users) into an sms connection; at most ${MAX_USER_IMPORT_FILE_BYTES} bytes per file (413 above)`,
      scope: 'create:users',
      body: { schema: UserImportFormSchema, component: 'UserImportForm', mediaTypes: [MULTIPART] },
      status: '201',
      response: jobRecord,
      errors: ['400'],
      handle: ({ body, req, res }) => {
        const file = req.file?.buffer;
        if (!file) throw invalidField('users', 'the users file is required (a multipart/form-data file field named users)');
        const request = {
          connection_id: body.connection_id,
          upsert: body.upsert === 'true',
          ...(body.external_id === undefined ? {} : { external_id: body.external_id }),
          ...(body.send_completion_email === undefined ? {} : { send_completion_email: body.send_completion_email === 'true' }),
        };
        return write(req, res, 'Create a users import job', (tx) => createImportJob(tx, clock, request, file));
      },
    }),
    managementOperation({
      method: 'post',
      path: '/jobs/users-exports',
      summary: 'Export users (one connection or all) as gzip NDJSON or CSV with the fields named',
      scope: 'read:users',
      body: { schema: UserExportCreateSchema, component: 'UserExportCreate' },
      status: '201',
      response: jobRecord,
      errors: ['400'],
      handle: ({ body, req, res }) => write(req, res, 'Create a users export job', (tx) => createExportJob(tx, clock, body)),
    }),
    managementOperation({
      method: 'get',
      path: '/jobs/:id',
      summary: 'A job: its status, an import\'s summary, a completed export\'s download `location` (a fresh link each time, valid 10 minutes)',
      scope: 'read:users',
      params: byId,
      status: '200',
      response: jobRecord,
      errors: ['404'],
      handle: ({ params }) => getJob(store, clock, authUrl, params.id),
    }),
    managementOperation({
      method: 'get',
      path: '/jobs/:id/errors',
      summary: 'The records an import refused, each with its errors',
      scope: 'read:users',
      params: byId,
      status: '200',
      response: arrayOf('JobRecordError', JobRecordErrorSchema),
      errors: ['404'],
      handle: ({ params }) => getJobErrors(store, params.id),
    }),
  ];
}
