// 7. users: GET /api/v2/users on 100,000 users, as Auth0's ManagementClient and dashboards ask:
// the first page, a deep page (offset 99,950), an exact number, a prefix, a search inside
// numbers, and the dashboards' sort=last_login:-1 (first and deep page); every request with
// include_totals=true (the SDK always sends it, so each also counts its matches).
// PGlite, and PostgreSQL when TEST_DATABASE_URL / BENCH_DATABASE_URL names a server.
import { startBenchStack } from '../lib/stack.mjs';
import { requireFrom } from '../lib/services.mjs';
import { autocannonRun } from '../lib/load.mjs';
import { postJson } from '../lib/tokens.mjs';
import { printTable } from '../lib/table.mjs';

export const description = 'GET /api/v2/users on 100,000 users: first/deep pages, exact/prefix/inside-number searches, sort=last_login:-1';

const USERS = 100_000;

// Numbers +141555NNNNN (valid US numbers); three users per creation second (user_id breaks ties); a quarter never
// logged in (last_login NULL), the others at scattered times.
const SEED_SQL = `
  INSERT INTO users (user_id, connection_id, phone_number, phone_verified, created_at, updated_at, last_login, logins_count)
  SELECT 'sms|bench' || lpad(i::text, 7, '0'), $1, '+141555' || lpad((i % ${USERS})::text, 5, '0'), true,
         timestamptz '2030-01-01 00:00:00+00' + (i / 3) * interval '1 second',
         timestamptz '2030-01-01 00:00:00+00' + (i / 3) * interval '1 second',
         CASE WHEN i % 4 = 0 THEN NULL ELSE timestamptz '2030-06-01 00:00:00+00' + ((i * 7919) % ${USERS}) * interval '1 second' END,
         1 + i % 5
  FROM generate_series(1, ${USERS}) AS i`;

const REQUESTS = [
  ['first page', 'page=0&per_page=50&include_totals=true'],
  ['deep page (offset 99,950)', 'page=1999&per_page=50&include_totals=true'],
  ['exact number', `q=${encodeURIComponent('phone_number:"+14155554321"')}&include_totals=true`],
  ['prefix (1,000 matches)', `q=${encodeURIComponent('phone_number:+14155554*')}&include_totals=true`],
  ['inside numbers (bare 54321)', 'q=54321&include_totals=true'],
  ['sort last_login:-1, first page', 'sort=last_login:-1&include_totals=true'],
  ['sort last_login:-1, page 1000', 'sort=last_login:-1&page=1000&per_page=50&include_totals=true'],
];

async function seed(s, database) {
  if (database === 'postgres') {
    const { Client } = requireFrom('services/identity')('pg');
    const client = new Client({ connectionString: s.databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT id FROM connections ORDER BY created_at LIMIT 1');
      await client.query(SEED_SQL, [rows[0].id]);
      // What autovacuum does after a bulk load (statistics, visibility map for index-only scans).
      await client.query('VACUUM ANALYZE users');
    } finally {
      await client.end();
    }
    return;
  }
  // PGlite: one process owns the directory, so identity stops while the rows go in.
  await s.restartIdentity(async () => {
    const { PGlite } = requireFrom('services/identity')('@electric-sql/pglite');
    const db = await PGlite.create({ dataDir: s.databaseUrl.slice('pglite:'.length) });
    try {
      const { rows } = await db.query('SELECT id FROM connections ORDER BY created_at LIMIT 1');
      await db.query(SEED_SQL, [rows[0].id]);
      // Statistics only: no VACUUM, so index-only scans still visit the heap (as they would on a
      // PGlite database nobody vacuums).
      await db.exec('ANALYZE users');
    } finally {
      await db.close();
    }
  });
}

async function measure(ctx, database) {
  const s = await startBenchStack({ database });
  try {
    const seedStart = Date.now();
    await seed(s, database);
    ctx.log(`users (${database}): ${USERS} users seeded in ${((Date.now() - seedStart) / 1000).toFixed(1)} s`);
    const { access_token: token } = await postJson(`${s.authUrl}/oauth/token`, {
      grant_type: 'client_credentials',
      client_id: s.adminClientId,
      client_secret: s.adminClientSecret,
      audience: `${s.authUrl}/api/v2/`,
    });
    const rows = [];
    for (const [name, query] of REQUESTS) {
      const url = `${s.authUrl}/api/v2/users?${query}`;
      const check = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
      const body = await check.json();
      if (check.status !== 200 || body.total === undefined) throw new Error(`${name}: ${check.status} ${JSON.stringify(body).slice(0, 300)}`);
      const r = await autocannonRun(
        { url, headers: { authorization: `Bearer ${token}` }, connections: 4, durationSec: ctx.durationSec, warmupSec: ctx.warmupSec },
        { workDir: s.dir, watch: [s.identity] },
      );
      rows.push({ database, request: name, total: body.total, returned: body.users.length, rps: r.rps, p50Ms: r.p50Ms, p99Ms: r.p99Ms });
      ctx.log(`users (${database}): ${name}: ${Math.round(r.rps)}/s, p50 ${r.p50Ms} ms`);
    }
    return rows;
  } finally {
    await s.stop();
  }
}

export async function run(ctx) {
  const rows = await measure(ctx, 'pglite');
  if (process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL) {
    rows.push(...(await measure(ctx, 'postgres')));
  } else {
    console.warn('users: PostgreSQL skipped (set TEST_DATABASE_URL or BENCH_DATABASE_URL)');
  }
  printTable('users: GET /api/v2/users on 100,000 users, 4 connections', rows);
  return { users: USERS, runs: rows };
}
