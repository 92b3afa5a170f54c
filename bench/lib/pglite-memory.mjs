#!/usr/bin/env node
// Why identity on PGlite uses so much memory: starts the bench stack (built identity on a fresh
// `pglite:<dir>`, the gateway with the outbox provider, the demo tenant), runs the m2m load
// (autocannon on /oauth/token) and then the login load (login-driver.mjs), and samples the RSS
// of identity from /proc/<pid>/status every 500 ms, plus the WebAssembly memory size reported
// from inside identity by pglite-memory-preload.cjs. Not a benchmark: no rates, only memory.
//
//   node bench/lib/pglite-memory.mjs [--duration 10] [--connections 16] [--login-concurrency 16]
//        [--params '["-c","shared_buffers=16MB"]'] [--replace] [--no-preload] [--node-args '--liftoff-only']
//        [--preinit] [--postgres]
//
// --params adds PostgreSQL start parameters to the ones the service passes; --replace starts
// from PGlite's defaults instead (to measure "before" once a setting is in src); --no-preload
// runs the service exactly as built (no WebAssembly figures then); --node-args adds node/V8 flags
// to identity's command line; --preinit runs initdb on identity's data directory in a process of
// its own first (what a restart of a persistent `pglite:<dir>` looks like: no initdb in identity);
// --postgres runs the same load on PostgreSQL (TEST_DATABASE_URL), for comparison.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runJsonChild } from './load.mjs';
import { removeDir, repoRoot, rssMb, round, workDir } from './services.mjs';
import { API_AUDIENCE, startBenchStack } from './stack.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));

function parseArgs(argv) {
  const args = { duration: 10, connections: 16, loginConcurrency: 16, params: '[]', replace: false, preload: true, nodeArgs: [], preinit: false, postgres: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--duration') args.duration = Number(argv[++i]);
    else if (arg === '--connections') args.connections = Number(argv[++i]);
    else if (arg === '--login-concurrency') args.loginConcurrency = Number(argv[++i]);
    else if (arg === '--params') args.params = argv[++i];
    else if (arg === '--replace') args.replace = true;
    else if (arg === '--no-preload') args.preload = false;
    else if (arg === '--preinit') args.preinit = true;
    else if (arg === '--postgres') args.postgres = true;
    else if (arg === '--node-args') args.nodeArgs = argv[++i].split(' ').filter(Boolean);
    else throw new Error(`unknown argument ${arg}`);
  }
  JSON.parse(args.params);
  return args;
}

/** RSS of pid every intervalMs until stop(); returns the samples. */
function sampler(pid, intervalMs = 500) {
  const samples = [rssMb(pid)];
  const timer = setInterval(() => samples.push(rssMb(pid)), intervalMs);
  return {
    stop() {
      clearInterval(timer);
      samples.push(rssMb(pid));
      // One sample per 10 s as well: is it still growing at the end?
      const every10s = samples.filter((_, i) => i % Math.round(10_000 / intervalMs) === 0).map((v) => Math.round(v));
      return { peakMb: round(Math.max(...samples)), endMb: round(samples.at(-1)), every10s: every10s.join(' ') };
    },
  };
}

/**
 * Resident MB of the process by kind of mapping: the WebAssembly memory (the anonymous mapping of
 * exactly its size), the C heap ([heap]), other anonymous memory (V8's heap, compiled code,
 * other malloc arenas) and files (node's binary and libraries).
 */
function residentByKind(pid, wasmMb) {
  const kinds = { wasmRes: 0, cHeap: 0, otherAnon: 0, files: 0 };
  let kind;
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = line.match(/^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/);
    if (head) {
      const sizeMb = (parseInt(head[2], 16) - parseInt(head[1], 16)) / 2 ** 20;
      const name = head[3];
      kind = name === '[heap]' ? 'cHeap' : name.startsWith('/') ? 'files' : !name && wasmMb !== undefined && Math.abs(sizeMb - wasmMb) < 0.1 ? 'wasmRes' : 'otherAnon';
    } else if (line.startsWith('Rss:')) kinds[kind] += Number(line.split(/\s+/)[1]) / 1024;
  }
  return Object.fromEntries(Object.entries(kinds).map(([k, v]) => [k, round(v)]));
}

function wasmFigures(logFile, from, to) {
  let lines = [];
  try {
    lines = readFileSync(logFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  } catch {
    return {};
  }
  const settings = lines.find((l) => l.settings)?.settings;
  const inWindow = lines.filter((l) => l.wasmMb !== undefined && l.t >= from && l.t <= to);
  const max = (key) => (inWindow.length ? Math.max(...inWindow.map((l) => l[key])) : undefined);
  return { settings, wasmMb: max('wasmMb'), externalMb: max('externalMb'), arrayBuffersMb: max('arrayBuffersMb'), heapUsedMb: max('heapUsedMb') };
}

const args = parseArgs(process.argv.slice(2));
const logFile = join(process.env.TMPDIR ?? '/tmp', `pglite-memory-${process.pid}.jsonl`);
let preinitialised;
if (args.preinit) {
  preinitialised = workDir('smsauth-pglite-memory-');
  // With --replace, initdb with PGlite's defaults too (initdb writes shared_buffers into postgresql.conf).
  const openScript = args.replace
    ? `require(require.resolve('@electric-sql/pglite', { paths: [${JSON.stringify(join(repoRoot, 'services', 'identity'))}] })).PGlite.create(process.argv[1]).then((db) => db.close())`
    : `require(${JSON.stringify(join(repoRoot, 'services', 'identity', 'dist', 'store', 'sql-client.js'))}).openSqlClient('pglite:' + process.argv[1]).then((c) => c.close())`;
  execFileSync(process.execPath, ['-e', openScript, join(preinitialised, 'identity')], { stdio: 'inherit' });
}
/** VmHWM: the highest RSS the process has had since it started (initdb included). */
function highWaterMb(pid) {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmHWM:'));
  return line ? round(Number(line.split(/\s+/)[1]) / 1024) : null;
}

const s = await startBenchStack({
  database: args.postgres ? 'postgres' : 'pglite',
  identityNodeArgs: [...args.nodeArgs, ...(args.preload ? ['--require', join(here, 'pglite-memory-preload.cjs')] : [])],
  identityEnv: {
    ...(args.preload ? { PGLITE_MEMORY_START_PARAMS: args.params, PGLITE_MEMORY_MODE: args.replace ? 'replace' : '', PGLITE_MEMORY_LOG: logFile } : {}),
    ...(preinitialised ? { DATABASE_URL: `pglite:${join(preinitialised, 'identity')}` } : {}),
  },
});
const rows = [];
try {
  const pid = s.identity.child.pid;
  const phase = async (name, run) => {
    const from = Date.now();
    const rss = sampler(pid);
    let result;
    try {
      result = await run();
    } finally {
      const sampled = rss.stop();
      const { settings, ...wasm } = wasmFigures(logFile, from, Date.now());
      rows.push({ phase: name, ...sampled, hwmMb: highWaterMb(pid), ...residentByKind(pid, wasm.wasmMb), ...wasm, ...result });
      if (settings && rows.length === 1) console.log('settings in effect:', JSON.stringify(settings));
    }
  };
  await phase('idle (after seeding)', async () => new Promise((done) => setTimeout(() => done({}), 1000)));
  const body = { grant_type: 'client_credentials', client_id: s.tenant.m2mClientId, client_secret: s.tenant.m2mClientSecret, audience: API_AUDIENCE };
  const m2mSpec = join(s.dir, 'm2m.json');
  writeFileSync(m2mSpec, JSON.stringify({ url: `${s.authUrl}/oauth/token`, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), connections: args.connections, durationSec: args.duration }));
  await phase(`m2m ${args.duration}s, ${args.connections} connections`, async () => {
    const r = await runJsonChild('autocannon-child.mjs', [m2mSpec]);
    return { done: `${r.total} tokens`, non2xx: r.non2xx + r.errors };
  });
  const loginSpec = join(s.dir, 'login.json');
  writeFileSync(loginSpec, JSON.stringify({ authUrl: s.authUrl, gatewayUrl: s.gatewayUrl, outboxToken: s.outboxToken, clientId: s.tenant.demoClientId, connection: s.tenant.connectionName, concurrency: args.loginConcurrency, durationSec: args.duration }));
  await phase(`login ${args.duration}s, ${args.loginConcurrency} at once`, async () => {
    const r = await runJsonChild('login-driver.mjs', [loginSpec]);
    return { done: `${r.logins} logins`, non2xx: r.errors };
  });
  await phase('idle (after load)', async () => new Promise((done) => setTimeout(() => done({}), 3000)));
} finally {
  await s.stop();
  if (preinitialised) removeDir(preinitialised);
}
console.log(`identity on ${args.postgres ? 'PostgreSQL' : 'PGlite'}, extra start params ${args.preload ? args.params : '(none: no preload)'}${args.replace ? ' (replacing the service\'s own)' : ''}${args.nodeArgs.length ? `, node ${args.nodeArgs.join(' ')}` : ''}`);
console.table(rows);
