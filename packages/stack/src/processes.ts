// The one launcher of built services: `pnpm start` (launcher.ts), the suites that run a service
// as a real process (@smsauth/test-support) and the benchmarks (bench/lib/services.mjs) all
// spawn, wait for and stop their processes here.
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { resolve } from 'node:path';

/** The repository root, from either src/ (tests) or dist/ (built). */
export const repoRoot = resolve(__dirname, '..', '..', '..');

export type ServiceName = 'identity' | 'sms-delivery-gateway' | 'airport-api';

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface SpawnOptions {
  /** Names the process in messages; `services/<name>/dist/main.js` is the default script. */
  name: string;
  /** What node runs (default: the built service `services/<name>/dist/main.js`). */
  script?: string;
  /** Set on top of the base environment. */
  env?: Record<string, string | undefined>;
  /** Base environment: this process's (default), or only PATH and HOME (tests want nothing else leaking in). */
  inheritEnv?: boolean;
  /** Arguments for node before the script (--cpu-prof ...). */
  nodeArgs?: string[];
  cwd?: string;
  /**
   * Append stdout and stderr to this file instead of piping them through this process (a
   * benchmark must not pay for its services' logs); output() then reads the file's tail.
   */
  logFile?: string;
  /** Called with every line the process prints (piped output only). */
  onLine?: (line: string) => void;
  /** How many of the last lines output() keeps (piped output only; default 200). */
  keepLines?: number;
}

export interface ServiceProcess {
  name: string;
  child: ChildProcess;
  exited: Promise<ProcessExit>;
  logFile?: string;
  /** What it printed last (stdout and stderr), for error reports. */
  output(lines?: number): string;
  /** SIGTERM, then SIGKILL if it has not exited within `timeoutMs`; resolves on its exit. */
  stop(timeoutMs?: number): Promise<void>;
  /** SIGKILL if still running (for afterAll), then waits for the exit. */
  kill(): Promise<void>;
}

/** Backwards-compatible name of a process that `pnpm start` supervises. */
export type RunningService = ServiceProcess;

const hasExited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

/** Spawns `node [nodeArgs] <script>` with the environment asked for; does not wait for anything. */
export function spawnService(options: SpawnOptions): ServiceProcess {
  const script = options.script ?? resolve(repoRoot, 'services', options.name, 'dist', 'main.js');
  const base: Record<string, string | undefined> = options.inheritEnv === false ? { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' } : process.env;
  const env = Object.fromEntries(Object.entries({ ...base, ...options.env }).filter((entry): entry is [string, string] => entry[1] !== undefined));
  const fd = options.logFile === undefined ? undefined : openSync(options.logFile, 'a');
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), script], {
    cwd: options.cwd ?? repoRoot,
    env,
    stdio: fd === undefined ? ['ignore', 'pipe', 'pipe'] : ['ignore', fd, fd],
  });
  if (fd !== undefined) closeSync(fd);

  const keep = options.keepLines ?? 200;
  const lines: string[] = [];
  const partials = new Map<unknown, string>();
  for (const stream of [child.stdout, child.stderr]) {
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => {
      const split = ((partials.get(stream) ?? '') + chunk).split('\n');
      partials.set(stream, split.pop() ?? '');
      for (const line of split) {
        lines.push(line);
        if (lines.length > keep) lines.shift();
        options.onLine?.(line);
      }
    });
  }
  const exited = new Promise<ProcessExit>((done) => child.once('exit', (code, signal) => done({ code, signal })));

  return {
    name: options.name,
    child,
    exited,
    ...(options.logFile === undefined ? {} : { logFile: options.logFile }),
    output(count = keep) {
      if (options.logFile !== undefined) return tailOfFile(options.logFile, count);
      const partial = [...partials.values()].filter((p) => p !== '');
      return [...lines, ...partial].slice(-count).join('\n');
    },
    async stop(timeoutMs = 15_000) {
      if (hasExited(child)) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      await exited;
      clearTimeout(timer);
    },
    async kill() {
      if (!hasExited(child)) child.kill('SIGKILL');
      await exited;
    },
  };
}

function tailOfFile(file: string, count: number): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-count).join('\n');
  } catch {
    return '';
  }
}

/**
 * Polls `<url>/readyz` (a connection of its own each time) until it answers 200; fails early,
 * with what the process printed last, when the process dies.
 */
export async function waitForReady(url: string, service?: ServiceProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastProblem = 'no answer yet';
  while (Date.now() < deadline) {
    if (service && hasExited(service.child)) {
      const how = service.child.exitCode !== null ? `code ${service.child.exitCode}` : `signal ${service.child.signalCode}`;
      throw new Error(`${service.name} exited with ${how} before it was ready:\n${service.output(30)}`);
    }
    try {
      const res = await freshGet(`${url}/readyz`);
      if (res.status === 200) return;
      lastProblem = `readyz answered ${res.status}: ${res.body}`;
    } catch (err) {
      lastProblem = (err as Error).message;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const tail = service ? `:\n${service.output(30)}` : '';
  throw new Error(`${service?.name ?? url} was not ready at ${url} after ${timeoutMs} ms (${lastProblem})${tail}`);
}

/** Spawns a service and waits until `<url>/readyz` answers 200; stops it again if it never does. */
export async function startService(options: SpawnOptions & { url: string; readyTimeoutMs?: number; stopTimeoutMs?: number }): Promise<ServiceProcess> {
  const service = spawnService(options);
  try {
    await waitForReady(options.url, service, options.readyTimeoutMs);
  } catch (err) {
    await service.stop(options.stopTimeoutMs);
    throw err;
  }
  return service;
}

/**
 * GET on a connection of its own (no keep-alive pool), so "is a new connection accepted?"
 * is really what it asks. Rejects with the socket error (ECONNREFUSED) when it is not.
 */
export function freshGet(url: string): Promise<{ status: number; body: string }> {
  return new Promise((done, reject) => {
    const req = http.get(url, { agent: false, headers: { connection: 'close' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => done({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(5_000, () => req.destroy(new Error('timed out')));
  });
}

const COLORS: Record<string, number> = { identity: 36, 'sms-delivery-gateway': 35, 'airport-api': 33 };

/** Prints a child's lines prefixed with its label (in its colour when stdout is a terminal). */
export function echoWithPrefix(label: string, colorKey: string = label): (line: string) => void {
  const padded = label.padEnd(20);
  const prefix = process.stdout.isTTY ? `\x1b[${COLORS[colorKey] ?? 37}m${padded}\x1b[0m| ` : `${padded}| `;
  return (line) => process.stdout.write(`${prefix}${line}\n`);
}
