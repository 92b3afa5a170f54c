import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';

/** The repository root, from either src/ (tests) or dist/ (built). */
export const repoRoot = resolve(__dirname, '..', '..', '..');

export type ServiceName = 'identity' | 'sms-delivery-gateway' | 'airport-api';

const COLORS: Record<string, number> = { identity: 36, 'sms-delivery-gateway': 35, 'airport-api': 33 };

export interface RunningService {
  name: string;
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The last lines it printed, for error reports. */
  recentOutput: string[];
}

export interface StartOptions {
  /** Print the service's lines, prefixed with its name (otherwise only kept in memory). */
  echo?: boolean;
  label?: string;
}

/** Starts a built service (`services/<name>/dist/main.js`) as a child process. */
export function startService(name: ServiceName, env: Record<string, string>, options: StartOptions = {}): RunningService {
  const child = spawn(process.execPath, [resolve(repoRoot, 'services', name, 'dist', 'main.js')], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const label = (options.label ?? name).padEnd(20);
  const prefix = process.stdout.isTTY ? `\x1b[${COLORS[name] ?? 37}m${label}\x1b[0m| ` : `${label}| `;
  const recentOutput: string[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    let partial = '';
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        recentOutput.push(line);
        if (recentOutput.length > 200) recentOutput.shift();
        if (options.echo) process.stdout.write(`${prefix}${line}\n`);
      }
    });
  }
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.on('exit', (code, signal) => done({ code, signal })),
  );
  return { name, child, exited, recentOutput };
}

/** Polls `/readyz` until it answers 200; fails early when the process dies. */
export async function waitForReady(url: string, service?: RunningService, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastProblem = 'no answer yet';
  while (Date.now() < deadline) {
    if (service && service.child.exitCode !== null) {
      const tail = service.recentOutput.slice(-20).join('\n');
      throw new Error(`${service.name} exited with code ${service.child.exitCode} before it was ready:\n${tail}`);
    }
    try {
      const res = await fetch(`${url}/readyz`);
      if (res.ok) return;
      lastProblem = `readyz answered ${res.status}: ${await res.text()}`;
    } catch (err) {
      lastProblem = (err as Error).message;
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`${url} was not ready after ${timeoutMs} ms (${lastProblem})`);
}

/** SIGTERM, then SIGKILL if it has not exited in time. */
export async function stopService(service: RunningService, timeoutMs = 15_000): Promise<void> {
  if (service.child.exitCode !== null || service.child.signalCode !== null) return;
  service.child.kill('SIGTERM');
  const timer = setTimeout(() => service.child.kill('SIGKILL'), timeoutMs);
  await service.exited;
  clearTimeout(timer);
}
