import { JobRecordErrorSchema, JobRecordSchema, MAX_USER_IMPORT_FILE_BYTES } from '@smsauth/contracts';
import { z } from 'zod';
import { canonicalPhoneNumber } from '../../src/domain/phone/canonical-number';
import { describeOnEachDatabase } from '../passwordless/flow-harness';
import { JobHarness } from './job-harness';

describeOnEachDatabase('bulk user imports', (database) => {
  let h: JobHarness;
  beforeAll(async () => {
    h = await JobHarness.start(database.env, { schema: database.schema, batchSize: 2 });
  });
  afterAll(() => h?.close());

  const userOf = async (phoneNumber: string) => h.identity.store.users.findByPhone(h.connectionId, phoneNumber);

  it('answers 201 with a pending job in the reference shape, then imports every record in batches', async () => {
    const created = await h.importUsers(
      [
        { phone_number: '+1 415 555 0101', phone_verified: true, user_metadata: { plan: 'gold' } },
        { phone_number: '+14155550102', user_id: 'legacy-102', app_metadata: { roles: ['a'] }, blocked: true },
        { phone_number: '+14155550103' },
      ],
      { external_id: 'batch-1', send_completion_email: 'false' },
    );
    expect(created.status).toBe(201);
    expect(JobRecordSchema.strict().parse(created.body)).toMatchObject({
      type: 'users_import',
      status: 'pending',
      connection_id: h.connectionId,
      external_id: 'batch-1',
      upsert: false,
    });
    expect(created.body.id).toMatch(/^job_[A-Za-z0-9]{16}$/);

    // One batch of two: the job is processing, two of three records done.
    await h.identity.userJobWorker.runOnce();
    expect(await h.job(created.body.id)).toMatchObject({ status: 'processing', summary: { inserted: 2, updated: 0, failed: 0, total: 3 }, percentage_done: 66 });
    await h.identity.userJobWorker.drain();
    const done = await h.job(created.body.id);
    expect(done).toMatchObject({ status: 'completed', summary: { inserted: 3, updated: 0, failed: 0, total: 3 }, percentage_done: 100 });

    // The number is stored canonical (E.164), as POST /users stores it.
    expect(await userOf('+14155550101')).toMatchObject({ phone_verified: true, blocked: false, user_metadata: { plan: 'gold' } });
    expect(await userOf('+14155550102')).toMatchObject({ user_id: 'sms|legacy-102', blocked: true, phone_verified: false, app_metadata: { roles: ['a'] } });
    const fetched = await h.management('get', '/users/sms|legacy-102');
    expect(fetched.status).toBe(200);
    expect(fetched.body.identities[0]).toMatchObject({ provider: 'sms', user_id: 'legacy-102' });
    expect((await h.management('get', `/jobs/${created.body.id}/errors`)).body).toEqual([]);

    const logs = await h.management('get', '/logs?q=type:sui');
    expect(logs.status).toBe(200);
    expect(logs.body).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: 'sui', connection_id: h.connectionId, details: { job_id: created.body.id, summary: done.summary } })]),
    );
  });

  it('updates existing users with upsert (metadata merged at the top level) and refuses them without it', async () => {
    await h.importAndRun([{ phone_number: '+14155550111', user_metadata: { plan: 'free', locale: 'fr' } }]);
    const refused = await h.importAndRun([{ phone_number: '+1 (415) 555-0111', phone_verified: true }]);
    expect(refused.summary).toEqual({ inserted: 0, updated: 0, failed: 1, total: 1 });
    const errors = await h.management('get', `/jobs/${refused.id}/errors`);
    expect(z.array(JobRecordErrorSchema).parse(errors.body)).toEqual([
      { user: { phone_number: '+1 (415) 555-0111', phone_verified: true }, errors: [{ code: 'DUPLICATED_USER', message: 'The user already exists', path: 'phone_number' }] },
    ]);
    expect(await userOf('+14155550111')).toMatchObject({ phone_verified: false });

    const upserted = await h.importAndRun(
      [{ phone_number: '+14155550111', phone_verified: true, user_metadata: { plan: 'gold', locale: null } }, { phone_number: '+14155550112' }],
      { upsert: 'true' },
    );
    expect(upserted).toMatchObject({ upsert: true, summary: { inserted: 1, updated: 1, failed: 0, total: 2 } });
    expect(await userOf('+14155550111')).toMatchObject({ phone_verified: true, user_metadata: { plan: 'gold' } });
  });

  it('refuses bad numbers, unknown fields, missing numbers and repeats per record, importing the others whole', async () => {
    const users = [
      { phone_number: '+14155550121' },
      { phone_number: '+1 415 55' },
      { phone_number: '+14155550122', email: 'a@example.com' },
      { user_metadata: { a: 1 } },
      { phone_number: '+1 415 555 0121' },
      { phone_number: '+14155550123', user_id: 'dup-id' },
      { phone_number: '+14155550124', user_id: 'dup-id' },
      { phone_number: '+14155550125', phone_verified: 'yes' },
      { phone_number: '+14155550126', user_metadata: { note: 'a\u0000b' } },
      42,
    ];
    const job = await h.importAndRun(users);
    expect(job.summary).toEqual({ inserted: 2, updated: 0, failed: 8, total: 10 });
    const errors = z.array(JobRecordErrorSchema).parse((await h.management('get', `/jobs/${job.id}/errors`)).body);
    expect(errors.map((e) => [e.user, e.errors.map((x) => [x.code, x.path])])).toEqual([
      [users[1], [['INVALID_FORMAT', 'phone_number']]],
      [users[2], [['OBJECT_ADDITIONAL_PROPERTIES', 'email']]],
      [users[3], [['OBJECT_MISSING_REQUIRED_PROPERTY', 'phone_number']]],
      [users[4], [['DUPLICATED_USER', 'phone_number']]],
      [users[6], [['DUPLICATED_USER', 'user_id']]],
      [users[7], [['INVALID_TYPE', 'phone_verified']]],
      [users[8], [['INVALID_FORMAT', 'user_metadata']]],
      [42, [['INVALID_TYPE', undefined]]],
    ]);
    // The refusal is the one every number entering identity gets (POST /users, the fraud guard's parse).
    const refusal = canonicalPhoneNumber('+1 415 55');
    expect(refusal.ok).toBe(false);
    expect(errors[0]!.errors[0]!.message).toBe(!refusal.ok && refusal.description);
    // Nothing half-imported: a refused record left no user, not even its valid parts.
    expect(await userOf('+14155550122')).toBeUndefined();
    expect(await userOf('+14155550124')).toBeUndefined();
    expect(await userOf('+14155550125')).toBeUndefined();
    expect(await userOf('+14155550121')).toBeDefined();
    expect(await userOf('+14155550123')).toMatchObject({ user_id: 'sms|dup-id' });
  });

  it('refuses a user_id already taken by a user with another number, and keeps that user as it was', async () => {
    await h.importAndRun([{ phone_number: '+14155550131', user_id: 'taken', user_metadata: { keep: true } }]);
    const job = await h.importAndRun([{ phone_number: '+14155550132', user_id: 'sms|taken' }], { upsert: 'true' });
    expect(job.summary).toEqual({ inserted: 0, updated: 0, failed: 1, total: 1 });
    expect(await userOf('+14155550132')).toBeUndefined();
    expect(await userOf('+14155550131')).toMatchObject({ user_id: 'sms|taken', user_metadata: { keep: true } });
  });

  it('refuses a file over the stated size limit with 413, and files that are not a JSON array of users with 400', async () => {
    const tooLarge = Buffer.alloc(MAX_USER_IMPORT_FILE_BYTES + 1, ' ');
    const large = await h.importUsers(tooLarge);
    expect(large.status).toBe(413);
    expect(large.body).toMatchObject({ error: 'payload_too_large' });
    expect(large.body.error_description).toContain(String(MAX_USER_IMPORT_FILE_BYTES));

    for (const [file, message] of [
      [Buffer.from('not json'), 'users: the file is not JSON'],
      [Buffer.from('{"phone_number":"+14155550100"}'), 'users: the file must hold a JSON array of users'],
      [Buffer.from('[]'), 'users: the file holds no user'],
    ] as const) {
      const res = await h.importUsers(file);
      expect(res.status).toBe(400);
      expect(res.body.error_description).toContain(message);
    }
    const missing = await h.management('post', '/jobs/users-imports').field('connection_id', h.connectionId);
    expect(missing.status).toBe(400);
    expect(missing.body.error_description).toContain('users: the users file is required');
    const unknownConnection = await h.importUsers([{ phone_number: '+14155550100' }], { connection_id: 'con_doesnotexist0000' });
    expect(unknownConnection.status).toBe(400);
    expect(unknownConnection.body.error_description).toBe('connection_id: no connection with id con_doesnotexist0000');
  });

  it('fails a job whose steps fail three times in a row, one lease period apart, with a fui record', async () => {
    const created = await h.importUsers([{ phone_number: '+14155550141' }]);
    // A stored file that no longer reads (as a damaged row would): every step of the job fails.
    await h.identity.sql.query(`UPDATE user_jobs SET input = 'not json' WHERE id = $1`, [created.body.id]);
    await expect(h.identity.userJobWorker.runOnce()).rejects.toThrow();
    // The lease is kept: no other try before it expires.
    expect(await h.identity.userJobWorker.runOnce()).toBe(false);
    expect((await h.job(created.body.id)).status).toBe('processing');
    h.clock.advance(61);
    await expect(h.identity.userJobWorker.runOnce()).rejects.toThrow();
    h.clock.advance(61);
    await expect(h.identity.userJobWorker.runOnce()).rejects.toThrow();
    expect((await h.job(created.body.id)).status).toBe('failed');
    h.clock.advance(61);
    expect(await h.identity.userJobWorker.runOnce()).toBe(false);
    const logs = await h.management('get', '/logs?q=type:fui');
    expect(logs.body).toEqual([
      expect.objectContaining({ type: 'fui', connection_id: h.connectionId, details: expect.objectContaining({ job_id: created.body.id, status: 'failed' }) }),
    ]);
  });

  it('answers 404 for an unknown job and its errors', async () => {
    const res = await h.management('get', '/jobs/job_0000000000000000');
    expect(res.status).toBe(404);
    expect((await h.management('get', '/jobs/job_0000000000000000/errors')).status).toBe(404);
  });
});
