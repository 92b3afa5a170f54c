import { ErrorCodes, type JobRecord, type JobRecordError } from '@smsauth/contracts';
import { HttpError, type Clock } from '@smsauth/service-kit';
import type { IdentityStore } from '../../store';
import { notFound } from '../management/validation';
import { toJobRecord } from './job-record';
import { downloadLink, tokenHash } from './user-export';

/** `GET /jobs/{id}`: a completed export comes with a fresh download link. */
export async function getJob(store: IdentityStore, clock: Clock, authUrl: string, id: string): Promise<JobRecord> {
  const job = await store.userJobs.findById(id);
  if (!job) throw notFound('Job');
  const location = job.type === 'users_export' && job.status === 'completed' ? await downloadLink(store, clock, authUrl, job.id) : undefined;
  return toJobRecord(job, location);
}

/** `GET /jobs/{id}/errors`: the refused records of an import, in file order (empty for an export). */
export async function getJobErrors(store: IdentityStore, id: string): Promise<JobRecordError[]> {
  const job = await store.userJobs.findById(id);
  if (!job) throw notFound('Job');
  return (await store.userJobs.errors(id)).map(({ user, errors }) => ({ user, errors }));
}

/** The export file a download link names; 404 alike for an unknown and an expired link. */
export async function exportDownload(store: IdentityStore, clock: Clock, token: string): Promise<{ filename: string; file: Buffer }> {
  const found = /^[A-Za-z0-9_-]{43}$/.test(token) ? await store.userJobs.findDownload(tokenHash(token), clock.now()) : undefined;
  if (!found) throw new HttpError(404, ErrorCodes.NOT_FOUND, 'The export link is unknown or has expired; GET the job again for a new one');
  return { filename: `${found.id}.${found.format === 'csv' ? 'csv' : 'json'}.gz`, file: found.file };
}
