import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';

/** A port nothing listens on right now (the OS picks it, then it is released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface ServiceProcess {
  child: ChildProcess;
  url: string;
  port: number;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** What the process printed so far (stdout and stderr), for failure messages. */
  output(): string;
  /** SIGKILL if still running (for afterAll), then waits for the exit. */
  kill(): Promise<void>;
}

/**
 * Whether a built entry point exists. Suites that run a service as a real process call
 * this and skip loudly, naming the build command, when it does not.
 */
export function builtEntryPoint(entry: string, suite: string, buildCommand: string): boolean {
  if (existsSync(entry)) return true;
  console.warn(`SKIPPED: "${suite}" runs the built service (${entry}), which is missing; run \`${buildCommand}\` first (pnpm test does)`);
  return false;
}

/**
 * Runs `node <entry>` on a free port of 127.0.0.1 with `env` and waits until its /readyz
 * answers 200. The child inherits nothing but PATH-like basics and what `env` sets.
 */
export async function startServiceProcess(entry: string, env: Record<string, string>, readyTimeoutMs = 30_000): Promise<ServiceProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [entry], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const service: ServiceProcess = {
    child,
    port,
    url: `http://127.0.0.1:${port}`,
    exited,
    output: () => output,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
  try {
    await waitForReady(service, readyTimeoutMs);
  } catch (err) {
    await service.kill();
    throw err;
  }
  return service;
}

async function waitForReady(service: ServiceProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    if (service.child.exitCode !== null) throw new Error(`service exited with ${service.child.exitCode} before it was ready:\n${service.output()}`);
    const res = await freshGet(`${service.url}/readyz`).catch((err: Error) => ({ status: 0, body: err.message }));
    if (res.status === 200) return;
    last = `${res.status} ${res.body}`;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`service not ready after ${timeoutMs} ms (${last}):\n${service.output()}`);
}

/**
 * GET on a connection of its own (no keep-alive pool), so "is a new connection accepted?"
 * is really what it asks. Rejects with the socket error (ECONNREFUSED) when it is not.
 */
export function freshGet(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false, headers: { connection: 'close' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(5_000, () => req.destroy(new Error('timed out')));
  });
}

/**
 * Polls until the service turns new work away: a new connection is refused, or /readyz
 * answers 503. Resolves with which of the two it saw.
 */
export async function untilNewRequestsRefused(url: string, timeoutMs = 5_000): Promise<'connection refused' | 'readyz 503'> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const res = await freshGet(`${url}/readyz`);
      if (res.status === 503) return 'readyz 503';
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ECONNREFUSED') return 'connection refused';
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`${url} still accepted new requests ${timeoutMs} ms later`);
}

/** The process's exit, or an error once `timeoutMs` passed without one. */
export async function exitWithin(service: ServiceProcess, timeoutMs: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no exit within ${timeoutMs} ms:\n${service.output()}`)), timeoutMs);
  });
  try {
    return await Promise.race([service.exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
