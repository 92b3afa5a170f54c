import { randomInt } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { compat, randomPhone } from '../src/fixtures';
import { managementClient } from '../src/sdk';

// Bulk user import and export jobs through auth0@7's ManagementClient.jobs, as a team moving
// its users in and out would drive them.

const management = managementClient();

/** Reads the job until it has finished (the stack's worker runs it in the background). */
async function finished(id: string) {
  for (let i = 0; i < 600; i += 1) {
    const job = await management.jobs.get(id);
    if (job.status === 'completed' || job.status === 'failed') return job;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`job ${id} did not finish`);
}

describe('auth0 ManagementClient.jobs', () => {
  const phones = [randomPhone(), randomPhone(), randomPhone()];
  const userId = `compat-${randomInt(1_000_000_000)}`;

  it('imports users from a JSON file (importUsers), reads the job (getJob) and its refused records (getErrors)', async () => {
    const users = [
      { phone_number: phones[0], phone_verified: true, user_id: userId, user_metadata: { source: 'legacy' } },
      { phone_number: phones[1] },
      { phone_number: 'not a number' },
      { phone_number: phones[2], email: 'someone@example.com' },
    ];
    const created = await management.jobs.usersImports.create({
      users: { data: Buffer.from(JSON.stringify(users)), filename: 'users.json', contentType: 'application/json' },
      connection_id: compat.smsConnectionId,
      external_id: 'compat-import',
      send_completion_email: false,
    });
    expect(created).toMatchObject({ type: 'users_import', status: 'pending', connection_id: compat.smsConnectionId, external_id: 'compat-import' });
    expect(created.id).toMatch(/^job_/);

    const job = await finished(created.id);
    expect(job).toMatchObject({ status: 'completed', summary: { inserted: 2, updated: 0, failed: 2, total: 4 } });

    const errors = await management.jobs.errors.get(created.id);
    expect(errors).toEqual([
      { user: users[2], errors: [expect.objectContaining({ code: 'INVALID_FORMAT', path: 'phone_number' })] },
      { user: users[3], errors: [expect.objectContaining({ code: 'OBJECT_ADDITIONAL_PROPERTIES', path: 'email' })] },
    ]);
    const imported = await management.users.get(`sms|${userId}`);
    expect(imported).toMatchObject({ phone_number: phones[0], phone_verified: true, user_metadata: { source: 'legacy' } });
  });

  it('updates an imported user with upsert', async () => {
    const created = await management.jobs.usersImports.create({
      users: { data: Buffer.from(JSON.stringify([{ phone_number: phones[1], blocked: true }])), filename: 'users.json' },
      connection_id: compat.smsConnectionId,
      upsert: true,
    });
    expect(await finished(created.id)).toMatchObject({ status: 'completed', summary: { inserted: 0, updated: 1, failed: 0, total: 1 } });
  });

  it('exports users as NDJSON (exportUsers) and downloads the gzip file from the job location', async () => {
    const created = await management.jobs.usersExports.create({
      connection_id: compat.smsConnectionId,
      format: 'json',
      fields: [{ name: 'user_id' }, { name: 'phone_number' }, { name: 'blocked' }, { name: 'user_metadata.source', export_as: 'source' }],
    });
    expect(created).toMatchObject({ type: 'users_export', status: 'pending', format: 'json' });
    const job = await finished(created.id);
    expect(job.status).toBe('completed');
    expect(job.location).toEqual(expect.stringMatching(/^https:\/\//));

    const download = await fetch(job.location!);
    expect(download.status).toBe(200);
    const lines = gunzipSync(Buffer.from(await download.arrayBuffer())).toString('utf8').trimEnd().split('\n').map((line) => JSON.parse(line));
    expect(lines).toEqual(
      expect.arrayContaining([
        { user_id: `sms|${userId}`, phone_number: phones[0], blocked: false, source: 'legacy' },
        expect.objectContaining({ phone_number: phones[1], blocked: true }),
      ]),
    );
  });

  it('exports users as CSV with a header row', async () => {
    const created = await management.jobs.usersExports.create({
      connection_id: compat.smsConnectionId,
      format: 'csv',
      fields: [{ name: 'user_id', export_as: 'id' }, { name: 'phone_number' }],
    });
    const job = await finished(created.id);
    const text = gunzipSync(Buffer.from(await (await fetch(job.location!)).arrayBuffer())).toString('utf8');
    expect(text.split('\n')[0]).toBe('id,phone_number');
    expect(text).toContain(`sms|${userId},${phones[0]}\n`);
  });
});
