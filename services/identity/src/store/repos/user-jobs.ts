import type { SqlExecutor } from '../sql-client';

export type UserJobType = 'users_import' | 'users_export';
export type UserJobStatus = 'pending' | 'processing' | 'completed' | 'failed';

/** A bulk user job as stored, without its input file and export file (read on their own). */
export interface StoredUserJob {
  id: string;
  type: UserJobType;
  status: UserJobStatus;
  connection_id: string | null;
  connection_name: string | null;
  external_id: string | null;
  options: Record<string, unknown>;
  cursor: number;
  total: number;
  inserted: number;
  updated: number;
  failed: number;
  failure: string | null;
  created_at: Date;
  completed_at: Date | null;
}

export interface NewUserJob {
  id: string;
  type: UserJobType;
  connection_id: string | null;
  external_id: string | null;
  options: Record<string, unknown>;
  input: string | null;
  total: number;
  at: Date;
}

/** One refused import record: its position in the file, the record as sent, why. */
export interface StoredJobError {
  ordinal: number;
  user: unknown;
  errors: Array<{ code: string; message: string; path?: string }>;
}

/** What a batch of an import adds to the job, committed with the users it wrote. */
export interface ImportProgress {
  cursor: number;
  inserted: number;
  updated: number;
  failed: number;
}

const JOB_COLUMNS = `j.id, j.type, j.status, j.connection_id, c.name AS connection_name, j.external_id, j.options, j.cursor, j.total,
  j.inserted, j.updated, j.failed, j.failure, j.created_at, j.completed_at`;
const SELECT_JOB = `SELECT ${JOB_COLUMNS} FROM user_jobs j LEFT JOIN connections c ON c.id = j.connection_id`;

/** The job's lease was taken over (this replica stalled past its expiry): its work must not commit. */
export class JobLeaseLostError extends Error {
  constructor(jobId: string) {
    super(`the lease of job ${jobId} was lost`);
  }
}

/** Bulk user jobs, their leases, refused records and export files (migration 021). */
export function userJobsRepo(db: SqlExecutor) {
  /** Asserts this replica still holds the job (inside the transaction that writes its work). */
  async function holding(jobId: string, token: string, until: Date): Promise<void> {
    const { rowCount } = await db.query('UPDATE user_jobs SET lease_expires_at = $3 WHERE id = $1 AND lease_token = $2', [jobId, token, until]);
    if (rowCount === 0) throw new JobLeaseLostError(jobId);
  }

  return {
    async create(job: NewUserJob): Promise<StoredUserJob> {
      await db.query(
        `INSERT INTO user_jobs (id, type, connection_id, external_id, options, input, total, created_at)
         VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8)`,
        [job.id, job.type, job.connection_id, job.external_id, JSON.stringify(job.options), job.input, job.total, job.at],
      );
      return (await this.findById(job.id))!;
    },

    async findById(id: string): Promise<StoredUserJob | undefined> {
      const { rows } = await db.query<StoredUserJob>(`${SELECT_JOB} WHERE j.id = $1`, [id]);
      return rows[0];
    },

    /**
     * Takes the lease of the oldest unfinished job whose lease is free or expired (its replica
     * died), until `until`. SKIP LOCKED: replicas claiming at once take different jobs, and a
     * row another replica just leased is re-checked and passed over.
     */
    async claimNext(token: string, now: Date, until: Date): Promise<StoredUserJob | undefined> {
      const { rows } = await db.query<{ id: string }>(
        `UPDATE user_jobs SET lease_token = $1, lease_expires_at = $3, status = 'processing'
         WHERE id = (
           SELECT id FROM user_jobs
           WHERE status IN ('pending', 'processing') AND (lease_expires_at IS NULL OR lease_expires_at <= $2)
           ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
         RETURNING id`,
        [token, now, until],
      );
      return rows[0] ? this.findById(rows[0].id) : undefined;
    },

    async input(jobId: string): Promise<string> {
      const { rows } = await db.query<{ input: string | null }>('SELECT input FROM user_jobs WHERE id = $1', [jobId]);
      return rows[0]?.input ?? '[]';
    },

    /** Call inside the batch's transaction: adds its counts and refused records, renews the lease. */
    async recordImportBatch(jobId: string, token: string, until: Date, progress: ImportProgress, errors: readonly StoredJobError[]): Promise<void> {
      await holding(jobId, token, until);
      await db.query(
        `UPDATE user_jobs SET cursor = $2, inserted = inserted + $3, updated = updated + $4, failed = failed + $5, attempts = 0 WHERE id = $1`,
        [jobId, progress.cursor, progress.inserted, progress.updated, progress.failed],
      );
      if (errors.length === 0) return;
      await db.query(
        `INSERT INTO user_job_errors (job_id, ordinal, "user", errors)
         SELECT $1, e.ordinal, e.usr, e.errs::jsonb FROM unnest($2::int[], $3::text[], $4::text[]) AS e(ordinal, usr, errs)
         ON CONFLICT DO NOTHING`,
        [jobId, errors.map((e) => e.ordinal), errors.map((e) => JSON.stringify(e.user ?? null)), errors.map((e) => JSON.stringify(e.errors))],
      );
    },

    async errors(jobId: string): Promise<StoredJobError[]> {
      const { rows } = await db.query<Omit<StoredJobError, 'user'> & { user: string }>(
        'SELECT ordinal, "user", errors FROM user_job_errors WHERE job_id = $1 ORDER BY ordinal',
        [jobId],
      );
      return rows.map((row) => ({ ...row, user: JSON.parse(row.user) as unknown }));
    },

    /** Ends the job (completed or failed), releases its lease and drops its input file. */
    async finish(jobId: string, token: string, at: Date, outcome: { status: 'completed' | 'failed'; failure?: string }): Promise<void> {
      await holding(jobId, token, at);
      await db.query(
        `UPDATE user_jobs SET status = $2, failure = $3, completed_at = $4, lease_token = NULL, lease_expires_at = NULL, input = NULL WHERE id = $1`,
        [jobId, outcome.status, outcome.failure ?? null, at],
      );
    },

    /** Call inside the transaction that finishes the export: stores its gzip file. */
    async storeExport(jobId: string, token: string, until: Date, file: Buffer): Promise<void> {
      await holding(jobId, token, until);
      await db.query('UPDATE user_jobs SET export_file = $2 WHERE id = $1', [jobId, file]);
    },

    /** A download link of a completed export: only the token's hash is kept. Drops expired links on the way. */
    async addDownload(jobId: string, tokenHash: string, now: Date, expiresAt: Date): Promise<void> {
      await db.query('DELETE FROM user_job_downloads WHERE expires_at <= $1', [now]);
      await db.query('INSERT INTO user_job_downloads (token_hash, job_id, expires_at) VALUES ($1, $2, $3)', [tokenHash, jobId, expiresAt]);
    },

    /** The export file a download link names, while the link has not expired at `now`. */
    async findDownload(tokenHash: string, now: Date): Promise<{ id: string; format: string; file: Buffer } | undefined> {
      const { rows } = await db.query<{ id: string; options: Record<string, unknown>; export_file: Uint8Array }>(
        `SELECT j.id, j.options, j.export_file FROM user_job_downloads d JOIN user_jobs j ON j.id = d.job_id
         WHERE d.token_hash = $1 AND d.expires_at > $2 AND j.status = 'completed' AND j.export_file IS NOT NULL`,
        [tokenHash, now],
      );
      const row = rows[0];
      return row ? { id: row.id, format: String(row.options.format), file: Buffer.from(row.export_file) } : undefined;
    },

    /**
     * Counts a failed step of the job this replica holds (the lease is kept: the next try comes
     * after it expires, so a short outage does not use the tries up). Answers the count.
     */
    async recordFailedAttempt(jobId: string, token: string): Promise<number> {
      const { rows } = await db.query<{ attempts: number }>(
        'UPDATE user_jobs SET attempts = attempts + 1 WHERE id = $1 AND lease_token = $2 RETURNING attempts',
        [jobId, token],
      );
      return rows[0]?.attempts ?? 0;
    },

    /** Gives the job's lease up (a replica stopping between batches): another may take it at once. */
    async release(jobId: string, token: string): Promise<void> {
      await db.query('UPDATE user_jobs SET lease_token = NULL, lease_expires_at = NULL WHERE id = $1 AND lease_token = $2', [jobId, token]);
    },
  };
}
