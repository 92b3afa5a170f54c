// 12. user-import: POST /api/v2/jobs/users-imports with 100,000 phone users in one file (Auth0's
// user import JSON, with user_metadata), timed from the upload to the job answering `completed`
// (GET /api/v2/jobs/{id} every 250 ms), then checked: 100,000 inserted, none failed, and the
// users table holding them. The job worker runs with the shipped defaults (batches of
// USER_IMPORT_BATCH_SIZE=1000, polls every USER_JOB_POLL_MS=2000: the first step may wait that long).
// PGlite, and PostgreSQL when TEST_DATABASE_URL / BENCH_DATABASE_URL names a server.
import { startBenchStack } from '../lib/stack.mjs';
import { postJson } from '../lib/tokens.mjs';
import { printTable } from '../lib/table.mjs';

export const description = 'bulk import of 100,000 phone users (POST /api/v2/jobs/users-imports) until the job completes';

const USERS = 100_000;

/** Valid French mobile numbers +336NNNNNNNN, each once. */
function usersFile() {
  const users = Array.from({ length: USERS }, (_, i) => ({
    phone_number: `+336${String(10_000_000 + i).padStart(8, '0')}`,
    phone_verified: i % 2 === 0,
    user_id: `bench${i}`,
    user_metadata: { plan: i % 3 === 0 ? 'gold' : 'free' },
  }));
  return Buffer.from(JSON.stringify(users));
}

async function measure(ctx, database, file) {
  const s = await startBenchStack({ database });
  try {
    const { access_token: token } = await postJson(`${s.authUrl}/oauth/token`, {
      grant_type: 'client_credentials',
      client_id: s.adminClientId,
      client_secret: s.adminClientSecret,
      audience: `${s.authUrl}/api/v2/`,
    });
    const headers = { authorization: `Bearer ${token}` };
    const connections = await (await fetch(`${s.authUrl}/api/v2/connections`, { headers })).json();
    const connectionId = connections[0].id;

    const form = new FormData();
    form.append('users', new Blob([file], { type: 'application/json' }), 'users.json');
    form.append('connection_id', connectionId);
    const started = Date.now();
    const created = await fetch(`${s.authUrl}/api/v2/jobs/users-imports`, { method: 'POST', headers, body: form });
    const job = await created.json();
    if (created.status !== 201) throw new Error(`import refused: ${created.status} ${JSON.stringify(job)}`);
    const acceptedMs = Date.now() - started;
    let done;
    for (;;) {
      done = await (await fetch(`${s.authUrl}/api/v2/jobs/${job.id}`, { headers })).json();
      if (done.status === 'completed' || done.status === 'failed') break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const seconds = (Date.now() - started) / 1000;
    if (done.status !== 'completed' || done.summary.inserted !== USERS || done.summary.failed !== 0) {
      throw new Error(`import did not insert every user: ${JSON.stringify(done)}`);
    }
    const check = await (await fetch(`${s.authUrl}/api/v2/users?per_page=1&include_totals=true`, { headers })).json();
    if (check.total < USERS) throw new Error(`the users table holds ${check.total} users`);
    ctx.log(`user-import (${database}): ${USERS} users in ${seconds.toFixed(1)} s (upload answered in ${acceptedMs} ms)`);
    return { database, users: USERS, fileBytes: file.length, uploadMs: acceptedMs, seconds: Number(seconds.toFixed(1)), usersPerSec: Math.round(USERS / seconds) };
  } finally {
    await s.stop();
  }
}

export async function run(ctx) {
  const file = usersFile();
  const rows = [await measure(ctx, 'pglite', file)];
  if (process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL) {
    rows.push(await measure(ctx, 'postgres', file));
  } else {
    console.warn('user-import: PostgreSQL skipped (set TEST_DATABASE_URL or BENCH_DATABASE_URL)');
  }
  printTable('user-import: 100,000 phone users in one file, upload to completed job', rows);
  return { users: USERS, runs: rows };
}
