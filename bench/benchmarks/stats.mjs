// 11. stats: the operator console's figures on a month of a busy tenant: a million SMS starts over
// 30 days (tenant log records: 1,000,000 codes sent, 600,000 logins, 30,000 refusals, in four
// countries and 200 prefixes). Measures GET /api/v2/stats/sms (a month by day per country and per
// prefix, 31 days by hour per country) and /stats/daily before the rollup has counted the records
// (every record read from the log) and after (hourly counts), and how long the rollup takes.
// PostgreSQL only (TEST_DATABASE_URL / BENCH_DATABASE_URL): a million records in PGlite is not
// what a busy tenant runs on.
import { startBenchStack } from '../lib/stack.mjs';
import { requireFrom } from '../lib/services.mjs';
import { autocannonRun } from '../lib/load.mjs';
import { postJson } from '../lib/tokens.mjs';
import { printTable } from '../lib/table.mjs';

export const description = 'GET /api/v2/stats/sms and /stats/daily on a month of a million SMS starts, before and after the hourly rollup';

const STARTS = 1_000_000;
const SECONDS_PER_START = (30 * 86_400) / STARTS;

// Countries by i % 10: 6 US, 2 GB, 1 FR, 1 DE; 50 prefixes in each. Records as the service writes them
// (masked number, keyed hash, country and prefix), dated through January 2030.
const COUNTRY = `CASE WHEN i % 10 < 6 THEN 'US' WHEN i % 10 < 8 THEN 'GB' WHEN i % 10 = 8 THEN 'FR' ELSE 'DE' END`;
const PREFIX = `CASE WHEN i % 10 < 6 THEN '+1415' WHEN i % 10 < 8 THEN '+447400' WHEN i % 10 = 8 THEN '+33612' ELSE '+491512' END || lpad(((i / 10) % 50)::text, 2, '0')`;
const record = (type, details, where) => `
  INSERT INTO tenant_logs (log_id, date, type, description, client_id, connection, connection_id, ip, phone_number, phone_hash, phone_country, phone_prefix, details)
  SELECT '${type}-bench-' || i, timestamptz '2030-01-01 00:00:00+00' + (i * ${SECONDS_PER_START}) * interval '1 second', '${type}', '${type}',
         'bench-client', 'sms', $1, '198.18.0.1', '***' || lpad((i % 10000)::text, 4, '0'), md5(i::text), ${COUNTRY}, ${PREFIX}, ${details}
  FROM generate_series(1, ${STARTS}) AS i WHERE ${where}`;
const SEED = [
  record('cs', `'{"delivery": "sent"}'::jsonb`, 'true'),
  record('s', `'{"via": "otp"}'::jsonb`, 'i % 5 < 3'),
  record('sms_start_refused', `jsonb_build_object('refusal', CASE WHEN i % 3 = 0 THEN 'velocity' ELSE 'fraud_guard' END)`, 'i % 50 = 7'),
  record('api_limit', `'{}'::jsonb`, 'i % 100 = 11'),
];

const REQUESTS = [
  ['sms: January by day, per country', '/stats/sms?from=2030-01-01&to=2030-01-31&interval=day&group_by=country'],
  ['sms: January by day, per prefix', '/stats/sms?from=2030-01-01&to=2030-01-31&interval=day&group_by=prefix'],
  ['sms: 31 days by hour, per country', '/stats/sms?from=2030-01-01&to=2030-01-31&interval=hour&group_by=country'],
  ['daily: January', '/stats/daily?from=20300101&to=20300131'],
];

async function timed(url, token) {
  const started = performance.now();
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  return { ms: Math.round(performance.now() - started), body };
}

export async function run(ctx) {
  if (!(process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL)) {
    console.warn('stats: skipped (needs PostgreSQL: set TEST_DATABASE_URL or BENCH_DATABASE_URL)');
    return { skipped: true };
  }
  // The rollup every second: the run waits for it rather than for a minute.
  const s = await startBenchStack({ database: 'postgres', identityEnv: { STATS_ROLLUP_INTERVAL_MS: '1000' } });
  const { Client } = requireFrom('services/identity')('pg');
  const db = new Client({ connectionString: s.databaseUrl });
  await db.connect();
  try {
    const { access_token: token } = await postJson(`${s.authUrl}/oauth/token`, {
      grant_type: 'client_credentials',
      client_id: s.adminClientId,
      client_secret: s.adminClientSecret,
      audience: `${s.authUrl}/api/v2/`,
    });
    const seedStart = Date.now();
    const { rows: connection } = await db.query('SELECT id FROM connections ORDER BY created_at LIMIT 1');
    // One transaction: the rollup sees none of it until it is all there.
    await db.query('BEGIN');
    for (const statement of SEED) await db.query(statement, [connection[0].id]);
    await db.query('COMMIT');
    await db.query('ANALYZE tenant_logs');
    const { rows: counted } = await db.query('SELECT count(*)::int AS n, max(seq)::text AS last FROM tenant_logs');
    ctx.log(`stats: ${counted[0].n} tenant log records seeded in ${((Date.now() - seedStart) / 1000).toFixed(1)} s`);

    const rows = [];
    // Before the rollup reaches them: every record read from the log (one request each).
    for (const [name, path] of REQUESTS) {
      const { ms, body } = await timed(`${s.authUrl}/api/v2${path}`, token);
      rows.push({ phase: 'before rollup (from the log)', request: name, answered: body.length, rps: null, p50Ms: ms, p99Ms: ms });
      ctx.log(`stats: before rollup: ${name}: ${ms} ms`);
    }
    const rollupStart = Date.now();
    for (;;) {
      const { rows: cursor } = await db.query('SELECT seq::text AS seq FROM tenant_log_rollup_cursor');
      if (BigInt(cursor[0].seq) >= BigInt(counted[0].last)) break;
      if (Date.now() - rollupStart > 600_000) throw new Error('the rollup did not finish in 10 minutes');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const rollupSec = (Date.now() - rollupStart) / 1000;
    ctx.log(`stats: rollup counted ${counted[0].n} records in about ${rollupSec.toFixed(1)} s`);

    const month = await timed(`${s.authUrl}/api/v2/stats/sms?from=2030-01-01&to=2030-01-31&group_by=connection`, token);
    const sent = month.body.reduce((sum, f) => sum + f.sent, 0);
    if (sent !== STARTS) throw new Error(`January's figures say ${sent} codes sent, the log holds ${STARTS}`);

    for (const [name, path] of REQUESTS) {
      const url = `${s.authUrl}/api/v2${path}`;
      const { body } = await timed(url, token);
      const r = await autocannonRun(
        { url, headers: { authorization: `Bearer ${token}` }, connections: 4, durationSec: ctx.durationSec, warmupSec: ctx.warmupSec },
        { workDir: s.dir, watch: [s.identity] },
      );
      rows.push({ phase: 'after rollup', request: name, answered: body.length, rps: r.rps, p50Ms: r.p50Ms, p99Ms: r.p99Ms });
      ctx.log(`stats: after rollup: ${name}: ${Math.round(r.rps)}/s, p50 ${r.p50Ms} ms`);
    }
    printTable(`stats: a million SMS starts over 30 days (PostgreSQL); rollup ${rollupSec.toFixed(1)} s`, rows);
    return { starts: STARTS, records: counted[0].n, rollupSec, runs: rows };
  } finally {
    await db.end();
    await s.stop();
  }
}
