import { createHash, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { JobRecord, UserExportCreate, UserExportField } from '@smsauth/contracts';
import type { Clock } from '@smsauth/service-kit';
import type { IdentityStore, StoredUserJob } from '../../store';
import { newId } from '../ids';
import { toUserRecord } from '../management/users';
import { invalidField } from '../management/validation';
import { smsConnectionById } from './connection';
import { csvHeader, csvLine, DEFAULT_EXPORT_FIELDS, jsonLine } from './export-format';
import { toJobRecord } from './job-record';

const gzipAsync = promisify(gzip);

/** How long a download link answers (the reference product's is a presigned URL that expires too). */
export const EXPORT_LINK_SECONDS = 600;

/** Users read per query while an export is written. */
const EXPORT_PAGE = 1000;

/** `POST /jobs/users-exports`: a pending job; the job worker writes its file. */
export async function createExportJob(store: IdentityStore, clock: Clock, request: UserExportCreate): Promise<JobRecord> {
  const connection = request.connection_id === undefined ? undefined : await smsConnectionById(store, request.connection_id);
  const fields = request.fields ?? DEFAULT_EXPORT_FIELDS;
  if (request.format === 'csv') {
    // A CSV cell holds one value: the reference product refuses a whole metadata object too.
    const whole = fields.find((field) => field.name === 'user_metadata' || field.name === 'app_metadata');
    if (whole) throw invalidField('fields', `${whole.name} cannot be exported whole as CSV; name its properties (${whole.name}.<property>)`);
  }
  const job = await store.userJobs.create({
    id: newId('job'),
    type: 'users_export',
    connection_id: connection?.id ?? null,
    external_id: null,
    options: { format: request.format, fields, ...(request.limit === undefined ? {} : { limit: request.limit }) },
    input: null,
    total: 0,
    at: clock.now(),
  });
  return toJobRecord(job);
}

/** The whole export as its gzip file (NDJSON or CSV with a header row), in user_id order. */
export async function exportFile(store: IdentityStore, job: StoredUserJob): Promise<Buffer> {
  const fields = job.options.fields as UserExportField[];
  const limit = typeof job.options.limit === 'number' ? job.options.limit : Number.POSITIVE_INFINITY;
  const csv = job.options.format === 'csv';
  const parts: string[] = csv ? [csvHeader(fields)] : [];
  let after = '';
  let written = 0;
  while (written < limit) {
    const page = await store.users.pageByUserId(job.connection_id ?? undefined, after, Math.min(EXPORT_PAGE, limit - written));
    for (const user of page) parts.push(csv ? csvLine(toUserRecord(user), fields) : jsonLine(toUserRecord(user), fields));
    written += page.length;
    if (page.length < EXPORT_PAGE) break;
    after = page[page.length - 1]!.user_id;
  }
  return gzipAsync(Buffer.from(parts.join(''), 'utf8'));
}

/** A fresh download link of a completed export: a random token in the URL, only its hash stored. */
export async function downloadLink(store: IdentityStore, clock: Clock, authUrl: string, jobId: string): Promise<{ url: string; expiresAt: Date }> {
  const token = randomBytes(32).toString('base64url');
  const now = clock.now();
  const expiresAt = new Date(now.getTime() + EXPORT_LINK_SECONDS * 1000);
  await store.userJobs.addDownload(jobId, tokenHash(token), now, expiresAt);
  return { url: `${authUrl}/user-exports/${token}`, expiresAt };
}

export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
