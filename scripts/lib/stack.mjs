// Launches the three built services as child processes, prefixes their logs, waits for
// /readyz, and stops them together. Used by `pnpm start` and the e2e suite's global setup.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

const COLORS = { identity: 36, 'sms-delivery-gateway': 35, 'airport-api': 33 };

export function startService(name, env, { quiet = false } = {}) {
  const child = spawn(process.execPath, [join(repoRoot, 'services', name, 'dist', 'main.js')], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const prefix = process.stdout.isTTY ? `\x1b[${COLORS[name] ?? 37}m${name.padEnd(20)}\x1b[0m| ` : `${name.padEnd(20)}| `;
  const output = [];
  for (const stream of [child.stdout, child.stderr]) {
    let buffered = '';
    stream.on('data', (chunk) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop();
      for (const line of lines) {
        output.push(line);
        if (output.length > 200) output.shift();
        if (!quiet) process.stdout.write(`${prefix}${line}\n`);
      }
    });
  }
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return { name, child, exited, output };
}

export async function waitForReady(url, { timeoutMs = 60_000, service } = {}) {
  const deadline = Date.now() + timeoutMs;
  let lastError = 'no answer';
  while (Date.now() < deadline) {
    if (service && service.child.exitCode !== null) {
      throw new Error(`${service.name} exited with code ${service.child.exitCode} before it was ready:\n${service.output.slice(-20).join('\n')}`);
    }
    try {
      const res = await fetch(`${url}/readyz`);
      if (res.ok) return;
      lastError = `readyz answered ${res.status}: ${await res.text()}`;
    } catch (err) {
      lastError = err.message;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${url} was not ready after ${timeoutMs} ms (${lastError})`);
}

export async function stopService(service, timeoutMs = 15_000) {
  if (service.child.exitCode !== null || service.child.signalCode !== null) return service.exited;
  service.child.kill('SIGTERM');
  const timer = setTimeout(() => service.child.kill('SIGKILL'), timeoutMs);
  const result = await service.exited;
  clearTimeout(timer);
  return result;
}
