import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sampleRss } from './services.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));

/** Runs a child script that prints one JSON line last; resolves with it. */
export function runJsonChild(script, args, { env } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(here, script), ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (c) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c) => (err += c));
    child.on('exit', (code) => {
      const last = out.trim().split('\n').at(-1);
      if (code !== 0 || !last) return reject(new Error(`${script} exited with ${code}: ${err.slice(-2000)}`));
      try {
        resolve(JSON.parse(last));
      } catch {
        reject(new Error(`${script} printed no JSON: ${out.slice(-500)} ${err.slice(-500)}`));
      }
    });
  });
}

/**
 * One autocannon run in its own process; RSS of `watch` processes sampled meanwhile.
 * Fails when any response was not 2xx (a benchmark of errors measures nothing).
 */
export async function autocannonRun(spec, { workDir, watch = [], allowNon2xx = false, database } = {}) {
  const file = join(workDir, `spec-${process.hrtime.bigint()}.json`);
  writeFileSync(file, JSON.stringify(spec));
  const sampler = sampleRss(watch, 500, database);
  let result;
  try {
    result = await runJsonChild('autocannon-child.mjs', [file]);
  } finally {
    const sampled = sampler.stop();
    result = { ...(result ?? {}), rss: sampled.processes, machineBusyMs: sampled.machineBusyMs, postgresCpuMs: sampled.postgresCpuMs };
  }
  if (!allowNon2xx && (result.non2xx > 0 || result.errors > 0)) {
    const states = watch.map((p) => `${p.name}: ${p.child.exitCode === null && p.child.signalCode === null ? 'running' : `exited (${p.child.exitCode ?? p.child.signalCode})`}, log ${p.logFile}:\n${tailOf(p.logFile)}`);
    throw new Error(`load run against ${spec.url} had ${result.non2xx} non-2xx answers and ${result.errors} errors: ${JSON.stringify(result.statusCodes)}\n${states.join('\n')}`);
  }
  return result;
}

/**
 * CPU time (µs) the watched process `name` used per request it answered in an autocannonRun
 * (warm-up included on both sides of the division): steadier than req/s on a shared machine.
 */
export function cpuUsPerRequest(result, name) {
  const cpuMs = result.rss[name]?.cpuMs;
  return typeof cpuMs === 'number' ? Math.round((cpuMs * 1000) / (result.total + (result.warmupTotal ?? 0))) : null;
}

/**
 * CPU time (µs) per request of the process `name` and of PostgreSQL together: what serving the
 * request cost the machine where part of the work is the database's (a peer that writes to
 * PostgreSQL against ours on its embedded database, say).
 */
export function servedCpuUsPerRequest(result, name) {
  const cpuMs = result.rss[name]?.cpuMs;
  if (typeof cpuMs !== 'number' || typeof result.postgresCpuMs !== 'number') return null;
  return Math.round(((cpuMs + result.postgresCpuMs) * 1000) / (result.total + (result.warmupTotal ?? 0)));
}

/** RS256 sign or verify rate of node:crypto on one core (a child process, nothing else running in it). */
export function cryptoRate(operation, { workDir, keyFile, durationMs }) {
  return runJsonChild('crypto-rate-child.mjs', [operation, keyFile, String(durationMs)]);
}

/** One run of the login driver (its own process); RSS of `watch` sampled meanwhile. */
export async function loginRun(spec, { workDir, watch = [], rssIntervalMs = 500, database } = {}) {
  const file = join(workDir, `login-${process.hrtime.bigint()}.json`);
  writeFileSync(file, JSON.stringify(spec));
  const sampler = sampleRss(watch, rssIntervalMs, database);
  let result;
  try {
    result = await runJsonChild('login-driver.mjs', [file]);
  } finally {
    const sampled = sampler.stop();
    result = { ...(result ?? {}), rss: sampled.processes, machineBusyMs: sampled.machineBusyMs, postgresCpuMs: sampled.postgresCpuMs };
  }
  if (result.errors > 0) throw new Error(`${result.errors} logins failed; first: ${result.firstError}`);
  return result;
}

function tailOf(file) {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-15).join('\n');
  } catch {
    return '(no log)';
  }
}
