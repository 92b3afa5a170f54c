import { JobRecordSchema } from '@smsauth/contracts';
import request from 'supertest';
import { describeOnEachDatabase } from '../passwordless/flow-harness';
import { JobHarness } from './job-harness';

describeOnEachDatabase('bulk user exports', (database) => {
  let h: JobHarness;
  beforeAll(async () => {
    h = await JobHarness.start(database.env, { schema: database.schema });
    await h.importAndRun([
      { phone_number: '+14155550201', user_id: 'a1', phone_verified: true, user_metadata: { plan: 'gold, "premium"' } },
      { phone_number: '+14155550202', user_id: 'a2', app_metadata: { tier: 2 } },
      { phone_number: '+14155550203', user_id: 'a3', blocked: true },
    ]);
  });
  afterAll(() => h?.close());

  async function exported(body: Record<string, unknown>) {
    const created = await h.management('post', '/jobs/users-exports').send({ connection_id: h.connectionId, ...body });
    expect(created.status).toBe(201);
    expect(JobRecordSchema.strict().parse(created.body)).toMatchObject({ type: 'users_export', status: 'pending', connection_id: h.connectionId });
    await h.identity.userJobWorker.drain();
    const job = await h.job(created.body.id);
    expect(job.status).toBe('completed');
    return job;
  }

  it('exports NDJSON with the fields named, under their export_as names, gzip from an unauthenticated location', async () => {
    const job = await exported({
      format: 'json',
      fields: [{ name: 'user_id' }, { name: 'phone_number', export_as: 'phone' }, { name: 'user_metadata.plan' }, { name: 'identities[0].connection', export_as: 'provider' }],
    });
    expect(job.location).toMatch(/^http:\/\/identity\.test\/user-exports\/[A-Za-z0-9_-]{43}$/);
    const file = await h.download(job.location!);
    expect(file.status).toBe(200);
    expect(file.contentType).toBe('application/gzip');
    const connection = job.connection;
    expect(file.text!.trimEnd().split('\n').map((line) => JSON.parse(line))).toEqual([
      { user_id: 'sms|a1', phone: '+14155550201', 'user_metadata.plan': 'gold, "premium"', provider: connection },
      { user_id: 'sms|a2', phone: '+14155550202', provider: connection },
      { user_id: 'sms|a3', phone: '+14155550203', provider: connection },
    ]);
  });

  it('exports CSV with a header row, quoting values that need it, and honours limit', async () => {
    const job = await exported({
      format: 'csv',
      limit: 2,
      fields: [{ name: 'user_id', export_as: 'id' }, { name: 'phone_verified' }, { name: 'user_metadata.plan' }, { name: 'app_metadata.tier' }],
    });
    const file = await h.download(job.location!);
    expect(file.text).toBe('id,phone_verified,user_metadata.plan,app_metadata.tier\nsms|a1,true,"gold, ""premium""",\nsms|a2,false,,2\n');
  });

  it('refuses a whole metadata object in a CSV export, and an unknown connection', async () => {
    const whole = await h.management('post', '/jobs/users-exports').send({ format: 'csv', fields: [{ name: 'user_metadata' }] });
    expect(whole.status).toBe(400);
    expect(whole.body.error_description).toContain('user_metadata cannot be exported whole as CSV');
    const unknown = await h.management('post', '/jobs/users-exports').send({ connection_id: 'con_doesnotexist0000', format: 'json' });
    expect(unknown.status).toBe(400);
  });

  it('gives a fresh unguessable link on each GET; a link stops answering once expired, a made-up one never does', async () => {
    const job = await exported({ format: 'json', fields: [{ name: 'user_id' }] });
    const again = await h.job(job.id);
    expect(again.location).not.toBe(job.location);
    expect((await h.download(job.location!)).status).toBe(200);
    expect((await h.download(again.location!)).status).toBe(200);

    const madeUp = `${new URL(job.location!).origin}/user-exports/${'A'.repeat(43)}`;
    expect((await h.download(madeUp)).status).toBe(404);
    expect((await request(h.url).get('/user-exports/short')).status).toBe(404);

    h.clock.advance(601);
    const expired = await request(h.url).get(new URL(job.location!).pathname);
    expect(expired.status).toBe(404);
    expect(expired.body).toMatchObject({ error: 'not_found' });
    // A new GET of the job gives a link that works again.
    expect((await h.download((await h.job(job.id)).location!)).status).toBe(200);
  });

  it('records the export in the tenant log', async () => {
    const job = await exported({ format: 'json' });
    const logs = await h.management('get', '/logs?q=type:sms_users_export');
    expect(logs.body).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'sms_users_export', details: expect.objectContaining({ job_id: job.id, status: 'completed' }) })]));
  });
});
