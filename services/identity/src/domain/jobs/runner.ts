import { randomBytes } from 'node:crypto';
import type { Clock, Logger } from '@smsauth/service-kit';
import { JobLeaseLostError, type IdentityStore, type StoredUserJob } from '../../store';
import { logRecord, recordEvents } from '../logs/tenant-log';
import { importBatch, prepareImport, type PreparedImport } from './user-import';
import { exportFile } from './user-export';

export interface JobRunnerOptions {
  /** Import records written per transaction. */
  batchSize: number;
  /** How long a claimed job stays this replica's without a batch committing (a dead replica's job is taken over after it). */
  leaseSeconds: number;
}

/** Failed steps in a row (one per lease period) after which a job is `failed` rather than tried again. */
export const MAX_JOB_ATTEMPTS = 3;

interface HeldJob {
  job: StoredUserJob;
  token: string;
  cursor: number;
  prepared?: PreparedImport;
}

/**
 * Runs bulk user jobs one step per pass: an import batch, or a whole export. A job is claimed
 * under a lease (one replica at a time) and kept between passes; its progress commits with
 * each batch, so whoever takes it next (after a restart, or after this replica died) resumes
 * at the committed cursor.
 */
export class UserJobRunner {
  private held: HeldJob | undefined;

  constructor(
    private readonly store: IdentityStore,
    private readonly clock: Clock,
    private readonly logger: Pick<Logger, 'info' | 'warn'>,
    private readonly options: JobRunnerOptions,
  ) {}

  private leaseUntil(): Date {
    return new Date(this.clock.now().getTime() + this.options.leaseSeconds * 1000);
  }

  /** One step; answers whether more work may be waiting. */
  async step(): Promise<{ more: boolean }> {
    if (!this.held) {
      const token = randomBytes(16).toString('hex');
      const job = await this.store.userJobs.claimNext(token, this.clock.now(), this.leaseUntil());
      if (!job) return { more: false };
      this.held = { job, token, cursor: job.cursor };
      this.logger.info({ jobId: job.id, type: job.type, cursor: job.cursor }, 'user job claimed');
    }
    const held = this.held;
    try {
      if (held.job.type === 'users_import') await this.importStep(held);
      else await this.exportStep(held);
    } catch (err) {
      // Rebuilt from the database on the next claim; a lost lease is another replica's job now.
      this.held = undefined;
      if (err instanceof JobLeaseLostError) {
        this.logger.warn({ jobId: held.job.id }, 'user job lease lost; another replica has the job');
        return { more: true };
      }
      // Counting is best effort (the database may be what failed); the step's error is what the worker logs.
      await this.countFailure(held, err).catch(() => undefined);
      throw err;
    }
    return { more: true };
  }

  /** Gives up the held job's lease (a graceful stop), so another replica resumes it at once. */
  async release(): Promise<void> {
    const held = this.held;
    this.held = undefined;
    if (held) await this.store.userJobs.release(held.job.id, held.token);
  }

  private async importStep(held: HeldJob): Promise<void> {
    held.prepared ??= await prepareImport(this.store, held.job);
    const total = held.prepared.checks.length;
    if (held.cursor < total) {
      const to = Math.min(total, held.cursor + this.options.batchSize);
      await this.store.transaction((tx) =>
        importBatch(tx, this.clock, held.job, { token: held.token, until: this.leaseUntil() }, held.prepared!, held.cursor, to),
      );
      held.cursor = to;
      if (to < total) return;
    }
    await this.store.transaction(async (tx) => {
      await tx.userJobs.finish(held.job.id, held.token, this.clock.now(), { status: 'completed' });
      const done = (await tx.userJobs.findById(held.job.id))!;
      const summary = { failed: done.failed, updated: done.updated, inserted: done.inserted, total: done.total };
      await recordEvents(tx, logRecord('sui', this.context(done), this.clock.now(), { job_id: done.id, summary }));
    });
    this.held = undefined;
    this.logger.info({ jobId: held.job.id }, 'user import completed');
  }

  /** A step that failed: tried again after the lease expires, `failed` (with `fui` for an import) at the limit. */
  private async countFailure(held: HeldJob, err: unknown): Promise<void> {
    const attempts = await this.store.userJobs.recordFailedAttempt(held.job.id, held.token).catch(() => 0);
    if (attempts < MAX_JOB_ATTEMPTS) return;
    const failure = `the job failed ${attempts} times in a row: ${err instanceof Error ? err.message : String(err)}`;
    await this.store.transaction(async (tx) => {
      await tx.userJobs.finish(held.job.id, held.token, this.clock.now(), { status: 'failed', failure });
      const type = held.job.type === 'users_import' ? 'fui' : 'sms_users_export';
      await recordEvents(tx, logRecord(type, this.context(held.job), this.clock.now(), { job_id: held.job.id, status: 'failed', error: failure }));
    });
    this.logger.warn({ jobId: held.job.id, attempts }, 'user job failed');
  }

  private async exportStep(held: HeldJob): Promise<void> {
    const file = await exportFile(this.store, held.job);
    await this.store.transaction(async (tx) => {
      await tx.userJobs.storeExport(held.job.id, held.token, this.leaseUntil(), file);
      await tx.userJobs.finish(held.job.id, held.token, this.clock.now(), { status: 'completed' });
      await recordEvents(tx, logRecord('sms_users_export', this.context(held.job), this.clock.now(), { job_id: held.job.id, status: 'completed', bytes: file.length }));
    });
    this.held = undefined;
    this.logger.info({ jobId: held.job.id, bytes: file.length }, 'user export completed');
  }

  private context(job: StoredUserJob) {
    return job.connection_id && job.connection_name ? { connection: { id: job.connection_id, name: job.connection_name } } : {};
  }
}
