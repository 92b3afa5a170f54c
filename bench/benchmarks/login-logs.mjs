// What recording tenant logs costs per login: the login benchmark's closed loop against two
// identity stacks side by side, one recording (TENANT_LOG_RECORDING=true, the default) and one
// not, run in turns (A B, B A, A B ...) so both see the same machine. A login records `cs` at
// start (one INSERT) and `s` inside the statement that consumes the code.
import { loginRun } from '../lib/load.mjs';
import { startBenchStack } from '../lib/stack.mjs';
import { postJson } from '../lib/tokens.mjs';
import { median, printTable } from '../lib/table.mjs';
import { loginSpec } from './login.mjs';

export const description = 'logins/s with tenant log recording on vs off, alternated in one run (target: under 10% fewer with it on)';

async function recordedLogs(s) {
  const token = await postJson(`${s.authUrl}/oauth/token`, {
    grant_type: 'client_credentials',
    client_id: s.adminClientId,
    client_secret: s.adminClientSecret,
    audience: `${s.authUrl}/api/v2/`,
    scope: 'read:logs',
  });
  const res = await fetch(`${s.authUrl}/api/v2/logs?include_totals=true&per_page=1`, { headers: { authorization: `Bearer ${token.access_token}` } });
  return (await res.json()).total;
}


export async function run(ctx) {
  const database = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ? 'postgres' : 'pglite';
  if (database === 'pglite') console.warn('!! login-logs on PGlite: set TEST_DATABASE_URL to measure on PostgreSQL');
  const rounds = ctx.smoke ? 1 : Number(process.env.BENCH_LOGIN_LOGS_ROUNDS ?? 3);
  const stacks = {};
  try {
    stacks.on = await startBenchStack({ database, identityEnv: { TENANT_LOG_RECORDING: 'true' } });
    stacks.off = await startBenchStack({ database, identityEnv: { TENANT_LOG_RECORDING: 'false' } });
    for (const name of ['on', 'off']) {
      if (ctx.warmupSec) await loginRun({ ...loginSpec(stacks[name]), concurrency: 4, durationSec: ctx.warmupSec }, { workDir: stacks[name].dir });
    }
    const runs = [];
    for (let round = 0; round < rounds; round += 1) {
      const order = round % 2 === 0 ? ['on', 'off'] : ['off', 'on'];
      for (const name of order) {
        const s = stacks[name];
        const peak = await loginRun({ ...loginSpec(s), concurrency: ctx.connections, durationSec: ctx.durationSec }, { workDir: s.dir, watch: [s.identity] });
        ctx.log(`login-logs round ${round + 1}, recording ${name}: ${peak.loginsPerSec.toFixed(1)} logins/s`);
        runs.push({ round: round + 1, recording: name, loginsPerSec: peak.loginsPerSec, p99Ms: peak.p99Ms, identityCpuMsPerLogin: Math.round((peak.rss.identity.cpuMs / peak.logins) * 100) / 100 });
      }
    }
    const on = median(runs.filter((r) => r.recording === 'on').map((r) => r.loginsPerSec));
    const off = median(runs.filter((r) => r.recording === 'off').map((r) => r.loginsPerSec));
    const summary = {
      database,
      rounds,
      medianOn: on,
      medianOff: off,
      fewerLoginsPerSecPct: Math.round(((off - on) / off) * 1000) / 10,
      // Less sensitive than logins/s to what else the machine runs: identity's CPU per login.
      medianIdentityCpuMsOn: median(runs.filter((r) => r.recording === 'on').map((r) => r.identityCpuMsPerLogin)),
      medianIdentityCpuMsOff: median(runs.filter((r) => r.recording === 'off').map((r) => r.identityCpuMsPerLogin)),
      targetMet: (off - on) / off < 0.1,
      // The switch really switches: the recording stack holds records, the other none.
      recordsOn: await recordedLogs(stacks.on),
      recordsOff: await recordedLogs(stacks.off),
    };
    printTable(`login-logs on ${database}: each run`, runs);
    printTable('login-logs: median logins/s with recording on and off (target: under 10% fewer with it on)', [summary]);
    return { summary, runs };
  } finally {
    for (const s of Object.values(stacks)) await s.stop();
  }
}
