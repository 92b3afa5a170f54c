import type { JobRecord, UserExportField } from '@smsauth/contracts';
import type { StoredUserJob } from '../../store';

/** A job as `/jobs` answers it, in the reference product's shape (`location` only for a completed export). */
export function toJobRecord(job: StoredUserJob, location?: { url: string; expiresAt: Date }): JobRecord {
  const record: JobRecord = {
    id: job.id,
    type: job.type,
    status: job.status,
    created_at: job.created_at.toISOString(),
    ...(job.connection_id ? { connection_id: job.connection_id } : {}),
    ...(job.connection_name ? { connection: job.connection_name } : {}),
    ...(job.external_id ? { external_id: job.external_id } : {}),
  };
  if (job.type === 'users_import') {
    record.upsert = job.options.upsert === true;
    record.send_completion_email = job.options.send_completion_email === true;
    if (job.status !== 'pending') {
      record.summary = { failed: job.failed, updated: job.updated, inserted: job.inserted, total: job.total };
      record.percentage_done = job.total === 0 ? 100 : Math.floor((job.cursor * 100) / job.total);
    }
  } else {
    record.format = job.options.format as 'json' | 'csv';
    if (typeof job.options.limit === 'number') record.limit = job.options.limit;
    record.fields = job.options.fields as UserExportField[];
    if (location) {
      record.location = location.url;
      record.location_expires_at = location.expiresAt.toISOString();
    }
  }
  return record;
}
