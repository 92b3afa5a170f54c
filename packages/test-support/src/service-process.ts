import { existsSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { freePort, freshGet, type ProcessExit, type ServiceProcess as LaunchedProcess, startService } from '@smsauth/stack';

// One launcher and one freePort for the whole repository: both live in @smsauth/stack.
export { freePort, freshGet } from '@smsauth/stack';

export interface ServiceProcess extends LaunchedProcess {
  url: string;
  port: number;
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
  const url = `http://127.0.0.1:${port}`;
  const service = await startService({
    name: basename(resolve(entry, '..', '..')),
    script: entry,
    inheritEnv: false,
    env: { HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', ...env },
    keepLines: Number.POSITIVE_INFINITY,
    url,
    readyTimeoutMs,
    // A service that never got ready is not worth a graceful stop.
    stopTimeoutMs: 0,
  });
  return Object.assign(service, { url, port });
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
export async function exitWithin(service: LaunchedProcess, timeoutMs: number): Promise<ProcessExit> {
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
