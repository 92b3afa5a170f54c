// 4. login: complete OTP logins per second (start -> real gateway, outbox provider -> code read
// from the outbox -> /oauth/ro), on PostgreSQL and on PGlite: the peak (closed loop), then p50/p99
// at half the peak rate (open loop). Efficiency = logins/s / (RS256 sign rate / signatures per login).
import { cryptoRate, loginRun } from '../lib/load.mjs';
import { startBenchStack } from '../lib/stack.mjs';
import { keyMaterialFromToken, postJson } from '../lib/tokens.mjs';
import { printTable } from '../lib/table.mjs';

export const description = 'OTP logins/s (start -> gateway outbox -> /oauth/ro) on PostgreSQL and PGlite; p99 at half peak';

export function databases() {
  const list = [];
  if (process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL) list.push('postgres');
  else console.warn('!! login on PostgreSQL SKIPPED: set TEST_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test)');
  list.push('pglite');
  return list;
}

export function loginSpec(s) {
  return { authUrl: s.authUrl, gatewayUrl: s.gatewayUrl, outboxToken: s.outboxToken, clientId: s.tenant.demoClientId, connection: s.tenant.connectionName };
}

/**
 * Where a login's CPU goes: each watched service's CPU time and the driver's own, per login;
 * `rest` is the machine's other busy time (PostgreSQL above all, plus anything else running).
 */
export function cpuPerLogin(run) {
  const per = (ms) => (ms == null ? null : Math.round((ms / run.logins) * 100) / 100);
  const identity = run.rss.identity.cpuMs;
  const gateway = run.rss['sms-delivery-gateway'].cpuMs;
  return {
    identityMs: per(identity),
    gatewayMs: per(gateway),
    driverMs: per(run.driverCpuMs),
    restMs: per(run.machineBusyMs - identity - gateway - run.driverCpuMs),
    totalMs: per(run.machineBusyMs),
  };
}

/** `BENCH_LOGIN_CONFIGS=postgres/1,pglite/1` runs only those (database/identity workers), for A/B runs. */
export function selectConfigurations(all, wanted = process.env.BENCH_LOGIN_CONFIGS) {
  if (!wanted) return all;
  const keys = new Set(wanted.split(',').map((k) => k.trim()));
  const chosen = all.filter((c) => keys.has(`${c.database}/${c.workers}`));
  if (chosen.length === 0) throw new Error(`BENCH_LOGIN_CONFIGS=${wanted} matches none of ${all.map((c) => `${c.database}/${c.workers}`).join(', ')}`);
  return chosen;
}

export async function run(ctx) {
  const rows = [];
  const cpu = [];
  const configurations = databases().map((database) => ({ database, workers: 1 }));
  if (configurations.some((c) => c.database === 'postgres')) configurations.push({ database: 'postgres', workers: 2 });
  for (const { database, workers } of selectConfigurations(configurations)) {
    const s = await startBenchStack({ database, identityEnv: { WEB_CONCURRENCY: String(workers) } });
    try {
      const sample = await postJson(`${s.authUrl}/oauth/token`, { grant_type: 'client_credentials', client_id: s.tenant.m2mClientId, client_secret: s.tenant.m2mClientSecret, audience: s.tenant.apiAudience });
      const { file: keyFile } = await keyMaterialFromToken(s.authUrl, sample.access_token, s.dir);
      const sign = await cryptoRate('sign', { keyFile, durationMs: ctx.smoke ? 500 : 3000 });
      ctx.log(`login on ${database} (${workers} identity worker(s)): sign ${Math.round(sign.perSecond)}/s; peak (closed loop, ${ctx.connections} at once)`);
      if (ctx.warmupSec) await loginRun({ ...loginSpec(s), concurrency: 4, durationSec: ctx.warmupSec }, { workDir: s.dir });
      const peak = await loginRun({ ...loginSpec(s), concurrency: ctx.connections, durationSec: ctx.durationSec }, { workDir: s.dir, watch: [s.identity, s.gateway] });
      const halfRate = Math.max(1, peak.loginsPerSec / 2);
      ctx.log(`login on ${database}: ${peak.loginsPerSec.toFixed(1)}/s peak; open loop at ${halfRate.toFixed(1)}/s`);
      const half = await loginRun({ ...loginSpec(s), rate: halfRate, durationSec: ctx.durationSec }, { workDir: s.dir, watch: [s.identity, s.gateway] });
      const perLogin = peak.signaturesPerLogin;
      const efficiency = peak.loginsPerSec / (sign.perSecond / perLogin);
      cpu.push({ database, workers, ...cpuPerLogin(peak) });
      rows.push({
        database,
        workers,
        peakLoginsPerSec: peak.loginsPerSec,
        peakP50Ms: peak.p50Ms,
        peakP99Ms: peak.p99Ms,
        halfRate,
        halfP50Ms: half.p50Ms,
        halfP99Ms: half.p99Ms,
        signPerSec: sign.perSecond,
        signaturesPerLogin: perLogin,
        efficiency,
        efficiencyMet: database === 'postgres' && workers === 1 ? efficiency >= 0.35 : undefined,
        p99Met: database === 'postgres' && workers === 1 ? half.p99Ms <= 50 : undefined,
        identityRssPeakMb: Math.max(peak.rss.identity.peakMb, half.rss.identity.peakMb),
        gatewayRssPeakMb: Math.max(peak.rss['sms-delivery-gateway'].peakMb, half.rss['sms-delivery-gateway'].peakMb),
      });
    } finally {
      await s.stop();
    }
  }
  printTable('login: one row per database and identity worker count (targets: efficiency >= 0.35 and p99 at half peak <= 50 ms, on PostgreSQL with 1 worker)', rows);
  printTable('login: CPU per login at the peak (ms; rest = PostgreSQL and anything else on the machine)', cpu);
  const one = rows.find((r) => r.database === 'postgres' && r.workers === 1);
  const two = rows.find((r) => r.database === 'postgres' && r.workers === 2);
  const scaling = one && two ? two.peakLoginsPerSec / one.peakLoginsPerSec : undefined;
  if (scaling) printTable('login: WEB_CONCURRENCY=2 scaling on PostgreSQL', [{ oneWorker: one.peakLoginsPerSec, twoWorkers: two.peakLoginsPerSec, scaling }]);
  return { summary: rows, cpuPerLogin: cpu, webConcurrency2Scaling: scaling };
}
