// Starts built services for a benchmark: each its own process, logs to a file (not piped
// through this process, which would cost the benchmark CPU), through the one launcher of the
// repository, @smsauth/stack's startService (build it first: `pnpm build`).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(fileURLToPath(import.meta.url), '..', '..', '..');
const require = createRequire(import.meta.url);
export const stack = require(join(repoRoot, 'packages', 'stack', 'dist', 'index.js'));

/** A require that resolves packages the way a service does (bench/ is not a package). */
export function requireFrom(serviceDir) {
  return createRequire(join(repoRoot, serviceDir, 'package.json'));
}

export function workDir(prefix = 'smsauth-bench-') {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * Spawns `services/<name>/dist/main.js` (or any script) with env; resolves once /readyz is 200.
 * `nodeArgs` lets a run add --cpu-prof. The result is the launcher's process (child, exited,
 * logFile, stop()) with its port and url.
 */
export async function startProcess({ name, script, env, port, logDir, nodeArgs = [], readyPath = true }) {
  const logFile = join(logDir, `${name}-${port}.log`);
  // BENCH_CPU_PROF=airport-api,identity writes a .cpuprofile per process to
  // bench/results/profiles/<name>/; BENCH_CPU_PROF_US sets the sampling interval (µs, default 1000).
  const profiled = (process.env.BENCH_CPU_PROF ?? '').split(',').includes(name);
  if (profiled) {
    nodeArgs = [
      ...nodeArgs,
      '--cpu-prof',
      `--cpu-prof-dir=${join(repoRoot, 'bench', 'results', 'profiles', name)}`,
      `--cpu-prof-interval=${process.env.BENCH_CPU_PROF_US ?? '1000'}`,
    ];
  }
  const url = `http://127.0.0.1:${port}`;
  const options = { name, env: { ...env, PORT: String(port) }, nodeArgs, logFile, ...(script ? { script } : {}) };
  const launched = readyPath
    ? await stack.startService({ ...options, url, readyTimeoutMs: 60_000, stopTimeoutMs: 20_000 }).catch((err) => {
        throw new Error(`${err.message}\n--- the whole log: ${logFile}`);
      })
    : stack.spawnService(options);
  const stop = launched.stop;
  return Object.assign(launched, { port, url, stop: (timeoutMs = 20_000) => stop(timeoutMs) });
}

/** PIDs of a process and its children (a cluster primary's workers). */
export function processTree(pid) {
  const pids = [pid];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) pids.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return pids;
}

/** Resident set size of a process and its children, in MB. */
export function rssMb(pid) {
  let kb = 0;
  for (const p of processTree(pid)) {
    try {
      const match = readFileSync(`/proc/${p}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
      if (match) kb += Number(match[1]);
    } catch {
      // exited meanwhile
    }
  }
  return kb / 1024;
}

/** CPU time (user + system) of a process and its children so far, in ms. */
export function cpuMs(pid) {
  let ticks = 0;
  for (const p of processTree(pid)) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // exited meanwhile
    }
  }
  return (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
}

// USER_HZ: 100 on every Linux the benchmarks run on (getconf CLK_TCK).
const CLOCK_TICKS_PER_SECOND = 100;

/** Busy CPU time of the whole machine so far (all cores, idle and iowait excluded), in ms. */
export function machineBusyMs() {
  const [, ...values] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const [user, nice, system, idle, iowait, irq, softirq, steal] = values.map(Number);
  void idle;
  void iowait;
  return ((user + nice + system + irq + softirq + steal) * 1000) / CLOCK_TICKS_PER_SECOND;
}

/**
 * CPU time so far of the PostgreSQL backends serving `database` (told by their process title,
 * BACKEND_TITLE), in ms: the database's share of the work,
 * which belongs to neither side's process tree. Other databases' clients (a test suite running
 * meanwhile) are not counted. A backend that exits takes its time with it; the services keep
 * pooled connections through a run. 0 without a database name (PGlite: in the service's process).
 */
export function postgresCpuMs(database) {
  if (!database) return 0;
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const title = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (BACKEND_TITLE.exec(title)?.[1] !== database) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // exited meanwhile
    }
  }
  return (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
}

// "postgres: [cluster name: ]<user> <database> <client> <state>" (Debian names the cluster "15/main").
const BACKEND_TITLE = /^postgres: (?:\S+: )?\S+ (\S+) /;

/** The database name of a postgres:// URL; undefined for anything else (PGlite). */
export function postgresDatabaseOf(url) {
  return typeof url === 'string' && /^postgres(ql)?:/.test(url) ? decodeURIComponent(new URL(url).pathname.slice(1)) : undefined;
}

/**
 * Samples RSS of the named processes every intervalMs until stopped; returns, per name, the
 * peak and last RSS and the CPU time it used meanwhile, plus the machine's busy CPU time (what
 * the processes not watched, such as PostgreSQL and the load generator, used is the rest) and
 * the CPU time of the PostgreSQL backends serving `database` (postgresCpuMs).
 */
export function sampleRss(processes, intervalMs = 500, database = undefined) {
  const samples = Object.fromEntries(processes.map((p) => [p.name, []]));
  const cpuAtStart = Object.fromEntries(processes.map((p) => [p.name, cpuMs(p.child.pid)]));
  const machineAtStart = machineBusyMs();
  const postgresAtStart = postgresCpuMs(database);
  const take = () => {
    for (const p of processes) if (p.child.exitCode === null) samples[p.name].push(rssMb(p.child.pid));
  };
  take();
  const timer = setInterval(take, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      take();
      const perProcess = Object.fromEntries(
        Object.entries(samples).map(([name, values]) => {
          const p = processes.find((q) => q.name === name);
          const cpu = p.child.exitCode === null ? cpuMs(p.child.pid) - cpuAtStart[name] : null;
          return [name, { peakMb: round(Math.max(...values)), lastMb: round(values.at(-1)), cpuMs: cpu, samples: values.map(round) }];
        }),
      );
      return { processes: perProcess, machineBusyMs: machineBusyMs() - machineAtStart, postgresCpuMs: postgresCpuMs(database) - postgresAtStart };
    },
  };
}

export function round(value, digits = 1) {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

export function secret(bytes = 24) {
  return randomBytes(bytes).toString('base64url');
}

/**
 * A PostgreSQL database of its own for a benchmark (TEST_DATABASE_URL / BENCH_DATABASE_URL
 * names the server), dropped afterwards. Undefined when no URL is set.
 */
export async function createBenchDatabase() {
  const base = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (!base) return undefined;
  const { Client } = requireFrom('services/identity')('pg');
  const name = `smsauth_bench_${process.pid}_${Date.now()}`;
  const admin = new Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    async drop() {
      const client = new Client({ connectionString: base });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

export function removeDir(dir) {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * What a started stack owns: its processes (`started`, stopped newest first), a database of its
 * own (`db`, dropped) and its work directory (removed unless BENCH_KEEP_LOGS). `stop` ends them all.
 */
export function ownedResources(dir) {
  const owned = {
    started: [],
    db: undefined,
    async stop() {
      for (const p of owned.started.reverse()) await p.stop();
      if (owned.db) await owned.db.drop();
      if (!process.env.BENCH_KEEP_LOGS) removeDir(dir);
    },
  };
  return owned;
}
