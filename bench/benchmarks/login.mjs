// 4. login: complete OTP logins per second (start -> real gateway, outbox provider -> code read
// from the outbox -> /oauth/ro), on PostgreSQL and on PGlite: the peak (closed loop), then p50/p99
// at half the peak rate (open loop). Efficiency = logins/s / (RS256 sign rate / signatures per login).
// With PostgreSQL, the floor (lib/floor-login.mjs: the same wire flow in bare Express, one SQL
// statement per call) runs the same loops with the same driver, so the CPU a login costs here
// is shown next to the least any implementation of the flow costs on the same machine.
import { loadavg } from 'node:os';
import { startFloorStack } from '../lib/floor-stack.mjs';
import { cryptoRate, loginRun } from '../lib/load.mjs';
import { postgresDatabaseOf } from '../lib/services.mjs';
import { startBenchStack, startBetterAuthStack } from '../lib/stack.mjs';
import { keyMaterialFromToken, postJson } from '../lib/tokens.mjs';
import { median, printTable } from '../lib/table.mjs';

export const description = 'OTP logins/s (start -> gateway outbox -> /oauth/ro) on PostgreSQL and PGlite, and the bare-flow floor; p99 at half peak';

export function databases() {
  const list = [];
  if (process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL) list.push('postgres');
  else console.warn('!! login on PostgreSQL SKIPPED: set TEST_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test)');
  list.push('pglite');
  return list;
}

export function loginSpec(s) {
  if (s.flow === 'better-auth') return { flow: s.flow, authUrl: s.authUrl, gatewayUrl: s.gatewayUrl, outboxToken: s.outboxToken };
  return { authUrl: s.authUrl, gatewayUrl: s.gatewayUrl, outboxToken: s.outboxToken, clientId: s.tenant.demoClientId, connection: s.tenant.connectionName };
}

/**
 * Where a login's CPU goes: each watched service's CPU time and the driver's own, per login;
 * `rest` is the machine's other busy time (PostgreSQL above all, plus anything else running).
 * Runs of one configuration are pooled: their CPU time over their logins.
 */
export function cpuPerLogin(runs, { identity = 'identity', gateway = 'sms-delivery-gateway' } = {}) {
  const list = Array.isArray(runs) ? runs : [runs];
  const sum = (pick) => list.reduce((total, run) => (total == null || pick(run) == null ? null : total + pick(run)), 0);
  const logins = sum((run) => run.logins);
  const per = (ms) => (ms == null ? null : Math.round((ms / logins) * 100) / 100);
  const identityMs = sum((run) => run.rss[identity].cpuMs);
  const gatewayMs = sum((run) => run.rss[gateway].cpuMs);
  const driverMs = sum((run) => run.driverCpuMs);
  const machineMs = sum((run) => run.machineBusyMs);
  const postgresMs = sum((run) => run.postgresCpuMs);
  return {
    // The primary figure: what the login costs the machine it is served from (the services and
    // PostgreSQL), without the load generator and whatever else runs.
    servedMs: per(identityMs + gatewayMs + postgresMs),
    identityMs: per(identityMs),
    gatewayMs: per(gatewayMs),
    postgresMs: per(postgresMs),
    driverMs: per(driverMs),
    restMs: per(machineMs - identityMs - gatewayMs - postgresMs - driverMs),
    totalMs: per(machineMs),
  };
}

/**
 * The configurations, in run order: `postgres/1`, `better-auth`, `floor` (with PostgreSQL),
 * `better-auth+record`, `pglite/1`, `postgres/2`. The peer (lib/peer-better-auth.mjs) is what a
 * TypeScript team would run instead; `+record` gives it the per-request record ours keeps.
 * `BENCH_LOGIN_CONFIGS=postgres/1,better-auth` runs only those, for A/B runs.
 */
export function configurations() {
  const list = databases().map((database) => ({ name: `${database}/1`, stack: 'ours', database, workers: 1 }));
  if (list.some((c) => c.database === 'postgres')) {
    list.splice(
      1,
      0,
      { name: 'better-auth', stack: 'better-auth', database: 'postgres', workers: 1 },
      { name: 'floor', stack: 'floor', database: 'postgres', workers: 1 },
      { name: 'better-auth+record', stack: 'better-auth', record: true, database: 'postgres', workers: 1 },
    );
    list.push({ name: 'postgres/2', stack: 'ours', database: 'postgres', workers: 2 });
  }
  return list;
}

function startStack(config) {
  if (config.stack === 'floor') return startFloorStack();
  if (config.stack === 'better-auth') return startBetterAuthStack({ record: config.record }).then((s) => ({ ...s, flow: 'better-auth' }));
  return startBenchStack({ database: config.database, identityEnv: { WEB_CONCURRENCY: String(config.workers) } });
}

export function selectConfigurations(all, wanted = process.env.BENCH_LOGIN_CONFIGS) {
  if (!wanted) return all;
  const keys = new Set(wanted.split(',').map((k) => k.trim()));
  const chosen = all.filter((c) => keys.has(c.name));
  if (chosen.length === 0) throw new Error(`BENCH_LOGIN_CONFIGS=${wanted} matches none of ${all.map((c) => c.name).join(', ')}`);
  return chosen;
}

/** One login through the public calls: the floor's ID token, whose key the sign rate is timed with. */
async function oneLogin(spec) {
  const phone = '+14155550100';
  await postJson(`${spec.authUrl}/passwordless/start`, { client_id: spec.clientId, connection: spec.connection, phone_number: phone, send: 'code' });
  const outbox = await fetch(`${spec.gatewayUrl}/outbox/messages?recipient=${encodeURIComponent(phone)}`, { headers: { authorization: `Bearer ${spec.outboxToken}` } });
  const code = (await outbox.json())[0].body.match(/\b(\d{6})\b/)[1];
  return postJson(`${spec.authUrl}/oauth/ro`, { client_id: spec.clientId, connection: spec.connection, grant_type: 'password', username: phone, password: code, scope: 'openid' });
}

/** Starts one configuration's services and times RS256 signing with its key's size. */
async function startTarget(config, ctx) {
  const s = await startStack(config);
  try {
    // The peer's keys are its own business (its jwt plugin makes them on first use): its rows
    // carry no sign rate or efficiency, only what a login costs.
    if (config.stack === 'better-auth') {
      if (ctx.warmupSec) await loginRun({ ...loginSpec(s), concurrency: 4, durationSec: ctx.warmupSec }, { workDir: s.dir });
      return { config, s, sign: undefined, runs: [] };
    }
    const token =
      config.stack === 'floor'
        ? (await oneLogin(loginSpec(s))).id_token
        : (await postJson(`${s.authUrl}/oauth/token`, { grant_type: 'client_credentials', client_id: s.tenant.m2mClientId, client_secret: s.tenant.m2mClientSecret, audience: s.tenant.apiAudience })).access_token;
    const { file: keyFile } = await keyMaterialFromToken(s.authUrl, token, s.dir);
    const sign = await cryptoRate('sign', { keyFile, durationMs: ctx.smoke ? 500 : 3000 });
    if (ctx.warmupSec) await loginRun({ ...loginSpec(s), concurrency: 4, durationSec: ctx.warmupSec }, { workDir: s.dir });
    return { config, s, sign, runs: [] };
  } catch (err) {
    await s.stop();
    throw err;
  }
}

/** The peak (closed loop), then the open loop at half that peak, against one configuration. */
async function measure(target, ctx, round) {
  const { config, s } = target;
  const watch = [s.identity, s.gateway];
  const database = postgresDatabaseOf(s.databaseUrl);
  ctx.log(`login ${config.name}${round ? ` round ${round}` : ''} (${config.stack}, ${config.database}, ${config.workers} identity worker(s)): sign ${target.sign ? `${Math.round(target.sign.perSecond)}/s` : 'not timed'}; peak (closed loop, ${ctx.connections} at once)`);
  const peak = await loginRun({ ...loginSpec(s), concurrency: ctx.connections, durationSec: ctx.durationSec }, { workDir: s.dir, watch, database });
  const halfRate = Math.max(1, peak.loginsPerSec / 2);
  ctx.log(`login ${config.name}: ${peak.loginsPerSec.toFixed(1)}/s peak; open loop at ${halfRate.toFixed(1)}/s`);
  const half = await loginRun({ ...loginSpec(s), rate: halfRate, durationSec: ctx.durationSec }, { workDir: s.dir, watch, database });
  target.runs.push({ round, peak, half, halfRate });
}

function summarize({ config, s, sign, runs }) {
  const names = { identity: s.identity.name, gateway: s.gateway.name };
  const peakLoginsPerSec = median(runs.map((r) => r.peak.loginsPerSec));
  const perLogin = runs[0].peak.signaturesPerLogin;
  const efficiency = sign ? peakLoginsPerSec / (sign.perSecond / perLogin) : null;
  const ours1 = config.stack === 'ours' && config.database === 'postgres' && config.workers === 1;
  const rssPeak = (name) => Math.max(...runs.flatMap((r) => [r.peak.rss[name].peakMb, r.half.rss[name].peakMb]));
  return {
    row: {
      config: config.name,
      stack: config.stack,
      database: config.database,
      workers: config.workers,
      rounds: runs.length,
      peakLoginsPerSec,
      peakP50Ms: median(runs.map((r) => r.peak.p50Ms)),
      peakP99Ms: median(runs.map((r) => r.peak.p99Ms)),
      halfRate: median(runs.map((r) => r.halfRate)),
      halfP50Ms: median(runs.map((r) => r.half.p50Ms)),
      halfP99Ms: median(runs.map((r) => r.half.p99Ms)),
      signPerSec: sign?.perSecond ?? null,
      signaturesPerLogin: perLogin,
      efficiency,
      efficiencyMet: ours1 ? efficiency >= 0.35 : undefined,
      p99Met: ours1 ? median(runs.map((r) => r.half.p99Ms)) <= 50 : undefined,
      identityRssPeakMb: rssPeak(names.identity),
      gatewayRssPeakMb: rssPeak(names.gateway),
    },
    cpu: { config: config.name, stack: config.stack, database: config.database, workers: config.workers, ...cpuPerLogin(runs.map((r) => r.peak), names) },
    runs: runs.map((r) => ({ config: config.name, round: r.round, peakLogins: r.peak.logins, peakLoginsPerSec: r.peak.loginsPerSec, halfP99Ms: r.half.p99Ms, machineBusyMs: r.peak.machineBusyMs, ...cpuPerLogin(r.peak, names) })),
  };
}

/**
 * BENCH_LOGIN_ROUNDS=1 (the default): each configuration alone on the machine, started, measured
 * and stopped in turn (back to back). More rounds: every configuration is started first and the
 * measurements alternate (A B, B A, A B ...) so each sees the same machine; medians of the
 * rounds, CPU per login pooled over them.
 */
export async function run(ctx) {
  const chosen = selectConfigurations(configurations());
  const rounds = ctx.smoke ? 1 : Number(process.env.BENCH_LOGIN_ROUNDS ?? ctx.rounds);
  const targets = [];
  try {
    if (rounds <= 1) {
      for (const config of chosen) {
        const target = await startTarget(config, ctx);
        targets.push(target);
        await measure(target, ctx, 1);
        await target.s.stop();
        target.stopped = true;
      }
    } else {
      for (const config of chosen) targets.push(await startTarget(config, ctx));
      for (let round = 1; round <= rounds; round += 1) {
        const order = round % 2 === 1 ? targets : [...targets].reverse();
        for (const target of order) await measure(target, ctx, round);
      }
    }
  } finally {
    for (const target of targets) if (!target.stopped) await target.s.stop();
  }
  const summaries = targets.map(summarize);
  const rows = summaries.map((x) => x.row);
  const cpu = summaries.map((x) => x.cpu);
  const order = rounds <= 1 ? 'back to back, each alone' : `alternated over ${rounds} rounds, medians; CPU pooled`;
  printTable(`login: one row per configuration (${order}; targets: efficiency >= 0.35 and p99 at half peak <= 50 ms, on PostgreSQL with 1 worker)`, rows);
  printTable('login: CPU per login at the peak (ms; rest = PostgreSQL and anything else on the machine)', cpu);
  if (rounds > 1) printTable('login: each round at the peak (CPU ms per login)', summaries.flatMap((x) => x.runs));
  const oursCpu = cpu.find((c) => c.config === 'postgres/1');
  const floorCpu = cpu.find((c) => c.config === 'floor');
  const floorComparison = oursCpu && floorCpu ? compareWithFloor(oursCpu, floorCpu, rows) : undefined;
  if (floorComparison) printTable('login: ours (postgres/1) vs the floor, same run: machine CPU per login at the peak (ms)', floorComparison.parts);
  const comparison = compareRounds(summaries, ctx.connections, rounds);
  if (comparison) console.log(`\n${comparison.line}`);
  const one = rows.find((r) => r.config === 'postgres/1');
  const two = rows.find((r) => r.config === 'postgres/2');
  const scaling = one && two ? two.peakLoginsPerSec / one.peakLoginsPerSec : undefined;
  if (scaling) printTable('login: WEB_CONCURRENCY=2 scaling on PostgreSQL', [{ oneWorker: one.peakLoginsPerSec, twoWorkers: two.peakLoginsPerSec, scaling }]);
  return { summary: rows, cpuPerLogin: cpu, runs: summaries.flatMap((x) => x.runs), rounds, floor: floorComparison, comparison, webConcurrency2Scaling: scaling };
}

// Ours against the peer and the floor: logins per CPU second of the machine serving them (the
// services and PostgreSQL), ours over theirs, in each round (each round measures every side on
// the same machine, alternated), and the median of those ratios. Targets: issue 49.
const TARGETS = { 'better-auth': 1.2, 'better-auth+record': 1.2, floor: 1 / 1.5 };

export function compareRounds(summaries, connections, rounds) {
  const served = (config, round) => summaries.find((x) => x.row.config === config)?.runs.find((r) => r.round === round)?.servedMs;
  const ratios = {};
  for (const peer of Object.keys(TARGETS)) {
    const perRound = [];
    for (let round = 1; round <= rounds; round += 1) {
      const ours = served('postgres/1', round);
      const theirs = served(peer, round);
      if (ours && theirs) perRound.push(theirs / ours);
    }
    if (perRound.length) ratios[peer] = { median: Math.round(median(perRound) * 100) / 100, perRound: perRound.map((r) => Math.round(r * 100) / 100), target: Math.round(TARGETS[peer] * 100) / 100 };
  }
  if (!ratios['better-auth'] && !ratios.floor) return undefined;
  const part = (name, label) => (ratios[name] ? `${label}=${ratios[name].median}` : `${label}=n/a`);
  const line =
    `login ${part('better-auth', 'ours/better-auth')} ${part('floor', 'ours/floor')} ${part('better-auth+record', 'ours/better-auth+record')}` +
    ` (logins per CPU second of services + PostgreSQL, ours over theirs, median of ${rounds} alternated round(s) at ${connections} concurrent;` +
    ` targets: better-auth >= ${TARGETS['better-auth']}, floor >= ${TARGETS.floor.toFixed(2)}; load ${loadavg().map((l) => l.toFixed(2)).join(' ')})`;
  return { ratios, line };
}

/** Ours next to the floor, part by part, with the ratio of each. */
function compareWithFloor(ours, floor, rows) {
  const ratio = (a, b) => (a == null || b == null || b === 0 ? null : Math.round((a / b) * 100) / 100);
  const parts = ['identityMs', 'gatewayMs', 'driverMs', 'restMs', 'totalMs'].map((part) => ({ part, ours: ours[part], floor: floor[part], oursOverFloor: ratio(ours[part], floor[part]) }));
  const peak = (config) => rows.find((r) => r.config === config).peakLoginsPerSec;
  parts.push({ part: 'peakLoginsPerSec', ours: peak('postgres/1'), floor: peak('floor'), oursOverFloor: ratio(peak('postgres/1'), peak('floor')) });
  return { parts, oursTotalMs: ours.totalMs, floorTotalMs: floor.totalMs };
}
