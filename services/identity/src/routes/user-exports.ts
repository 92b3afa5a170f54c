import { ErrorCodes as E } from '@smsauth/contracts';
import { defineOperation, type Clock, type Operation } from '@smsauth/service-kit';
import { z } from 'zod';
import { exportDownload } from '../domain/jobs/jobs';
import type { IdentityStore } from '../store';
import { errorResponse as error, NO_BODY_ERRORS } from './management/responses';

export interface UserExportDownloadDependencies {
  store: IdentityStore;
  clock: Clock;
}

/**
 * `GET /user-exports/{token}`: a completed export's gzip file. The link is the credential (as
 * a presigned URL is): 256 random bits, stored hashed, answering for 10 minutes.
 */
export function userExportOperations(deps: UserExportDownloadDependencies): Operation[] {
  return [
    defineOperation({
      method: 'get',
      path: '/user-exports/:token',
      operationId: 'downloadUserExport',
      tags: ['Management'],
      summary: 'Download a users export (the `location` of its completed job)',
      security: [{}],
      params: z.object({ token: z.string() }),
      paramDescriptions: { token: 'The token of the link the job gave; no other credential.' },
      responses: {
        '200': { description: 'The gzip file (NDJSON or CSV inside).', contentType: 'application/gzip', jsonSchema: { type: 'string', format: 'binary' } },
        '404': error('Unknown or expired link.', [E.NOT_FOUND]),
        ...NO_BODY_ERRORS,
      },
      handle: async ({ params, res }) => {
        const { filename, file } = await exportDownload(deps.store, deps.clock, params.token);
        res.set('Cache-Control', 'no-store');
        res.set('Content-Disposition', `attachment; filename="${filename}"`);
        res.type('application/gzip');
        return file;
      },
    }),
  ];
}
