import { describeWithPostgres, dropSchema, TestClock, uniqueSchema } from '../helpers';
import { JobHarness } from './job-harness';

const numbers = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => ({ phone_number: `+336${String(from + i).padStart(8, '0')}` }));

describeWithPostgres('bulk user jobs across restarts and replicas (PostgreSQL)', (databaseUrl) => {
  const schema = uniqueSchema('jobs');
  const env = { DATABASE_URL: databaseUrl };
  afterAll(() => dropSchema(databaseUrl, schema));

  it('resumes an import a stopped instance left half done, from its committed cursor', async () => {
    const clock = new TestClock();
    const first = await JobHarness.start(env, { schema, clock, batchSize: 3 });
    const created = await first.importUsers(numbers(1000, 7));
    expect(created.status).toBe(201);
    await first.identity.userJobWorker.runOnce();
    expect(await first.job(created.body.id)).toMatchObject({ status: 'processing', summary: { inserted: 3, total: 7 } });
    await first.close();

    const second = await JobHarness.start(env, { schema, clock, batchSize: 3, connectionId: first.connectionId });
    try {
      await second.identity.userJobWorker.drain();
      expect(await second.job(created.body.id)).toMatchObject({ status: 'completed', summary: { inserted: 7, updated: 0, failed: 0, total: 7 } });
      const { rows } = await second.identity.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM users WHERE connection_id = $1', [first.connectionId]);
      expect(rows[0]!.n).toBe(7);
    } finally {
      await second.close();
    }
  });

  it('takes over the job of a replica that died holding it only once its lease has expired', async () => {
    const clock = new TestClock();
    const h = await JobHarness.start(env, { schema, clock, batchSize: 10 });
    try {
      const created = await h.importUsers(numbers(2000, 4));
      // A replica claims the job and dies without committing a batch.
      const claimed = await h.identity.store.userJobs.claimNext('dead-replica', clock.now(), new Date(clock.now().getTime() + 60_000));
      expect(claimed?.id).toBe(created.body.id);
      expect(await h.identity.userJobWorker.runOnce()).toBe(false);
      expect((await h.job(created.body.id)).summary).toMatchObject({ inserted: 0 });

      clock.advance(61);
      await h.identity.userJobWorker.drain();
      expect(await h.job(created.body.id)).toMatchObject({ status: 'completed', summary: { inserted: 4, total: 4 } });
    } finally {
      await h.close();
    }
  });

  it('writes nothing of a batch whose lease was taken over meanwhile: the batch commits whole or not at all', async () => {
    const clock = new TestClock();
    const h = await JobHarness.start(env, { schema, clock, batchSize: 3 });
    try {
      const created = await h.importUsers(numbers(5000, 7));
      await h.identity.userJobWorker.runOnce();
      // Another replica took the job over (this one stalled past its lease) before the second batch commits.
      await h.identity.sql.query(`UPDATE user_jobs SET lease_token = 'other-replica' WHERE id = $1`, [created.body.id]);
      expect(await h.identity.userJobWorker.runOnce()).toBe(true);
      const count = async () =>
        (await h.identity.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM users WHERE connection_id = $1', [h.connectionId])).rows[0]!.n;
      expect(await count()).toBe(3);
      expect((await h.job(created.body.id)).summary).toMatchObject({ inserted: 3, failed: 0 });
      expect(h.identity.logs()).toContain('user job lease lost');

      // The other replica died too: once its lease expires, the job resumes at the committed cursor.
      clock.advance(61);
      await h.identity.userJobWorker.drain();
      expect(await h.job(created.body.id)).toMatchObject({ status: 'completed', summary: { inserted: 7, updated: 0, failed: 0, total: 7 } });
      expect(await count()).toBe(7);
    } finally {
      await h.close();
    }
  });

  it('never runs one job on two instances: every record is imported once, whoever steps', async () => {
    const clock = new TestClock();
    const a = await JobHarness.start(env, { schema, clock, batchSize: 5 });
    const b = await JobHarness.start(env, { schema, clock, batchSize: 5, connectionId: a.connectionId });
    try {
      const jobs = [await a.importUsers(numbers(3000, 23)), await b.importUsers(numbers(4000, 17)), await a.importUsers(numbers(3000, 3))];
      for (const job of jobs) expect(job.status).toBe(201);
      // Both step at once until neither finds work.
      for (let i = 0; i < 100; i += 1) {
        const [moreA, moreB] = await Promise.all([a.identity.userJobWorker.runOnce(), b.identity.userJobWorker.runOnce()]);
        if (!moreA && !moreB) break;
      }
      const [first, second, third] = await Promise.all(jobs.map((job) => a.job(job.body.id)));
      expect(second).toMatchObject({ status: 'completed', summary: { inserted: 17, updated: 0, failed: 0, total: 17 } });
      // The third file repeats three of the first's numbers and may run alongside it: each of
      // those is imported by one job and refused by the other, never both or neither.
      for (const job of [first, third]) expect(job!.status).toBe('completed');
      expect(first!.summary!.inserted + third!.summary!.inserted).toBe(23);
      expect(first!.summary!.failed + third!.summary!.failed).toBe(3);
      const { rows } = await a.identity.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM users WHERE connection_id = $1', [a.connectionId]);
      expect(rows[0]!.n).toBe(40);
      const { rows: errors } = await a.identity.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM user_job_errors WHERE job_id = ANY($1)', [
        jobs.map((job) => job.body.id),
      ]);
      expect(errors[0]!.n).toBe(3);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
