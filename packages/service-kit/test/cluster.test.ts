import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import { join } from 'node:path';
import { freePort } from '../src/ports';

const FIXTURES = join(__dirname, 'fixtures');

function request(url: string, method = 'GET'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .request(url, { method, agent: false }, (res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject)
      .end();
  });
}

interface RunningFixture {
  child: ChildProcess;
  url: string;
  lines: Array<Record<string, unknown>>;
  stderr: () => string;
  exited: Promise<number | null>;
  /** Resolves with the first output line matching. */
  waitForLine(match: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
}

const running: RunningFixture[] = [];

async function startFixture(webConcurrency: string): Promise<RunningFixture> {
  const port = await freePort();
  const child = spawn(process.execPath, ['-C', '@smsauth/source', '-r', join(FIXTURES, 'ts-register.js'), join(FIXTURES, 'cluster-service.ts')], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', WEB_CONCURRENCY: webConcurrency },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Array<Record<string, unknown>> = [];
  const waiters: Array<{ match: (line: Record<string, unknown>) => boolean; resolve: (line: Record<string, unknown>) => void }> = [];
  let partial = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop() ?? '';
    for (const text of parts) {
      let line: Record<string, unknown>;
      try {
        line = JSON.parse(text) as Record<string, unknown>;
      } catch {
        continue;
      }
      lines.push(line);
      for (const waiter of [...waiters]) {
        if (waiter.match(line)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(line);
        }
      }
    }
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const fixture: RunningFixture = {
    child,
    url: `http://127.0.0.1:${port}`,
    lines,
    stderr: () => stderr,
    exited,
    waitForLine: (match) => {
      const seen = lines.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve) => waiters.push({ match, resolve }));
    },
  };
  running.push(fixture);
  return fixture;
}

async function pidsAnswering(url: string, requests: number): Promise<Set<number>> {
  const pids = new Set<number>();
  for (let i = 0; i < requests; i++) {
    const res = await request(`${url}/pid`);
    pids.add((JSON.parse(res.body) as { pid: number }).pid);
  }
  return pids;
}

afterEach(async () => {
  for (const fixture of running.splice(0)) {
    if (fixture.child.exitCode === null && fixture.child.signalCode === null) {
      fixture.child.kill('SIGKILL');
      await fixture.exited;
    }
  }
});

describe('runService with WEB_CONCURRENCY', () => {
  jest.setTimeout(30_000);

  it('serves from two worker processes sharing one port, neither of them the primary', async () => {
    const fixture = await startFixture('2');
    await fixture.waitForLine((line) => line.msg === 'all workers listening');

    const pids = await pidsAnswering(fixture.url, 20);

    expect(pids.size).toBe(2);
    expect(pids.has(fixture.child.pid as number)).toBe(false);
  });

  it('replaces a worker that crashed with a new one on the same port', async () => {
    const fixture = await startFixture('2');
    await fixture.waitForLine((line) => line.msg === 'all workers listening');
    const before = await pidsAnswering(fixture.url, 10);

    await request(`${fixture.url}/crash`, 'POST').catch(() => undefined);
    const died = await fixture.waitForLine((line) => line.msg === 'worker died; starting a replacement');
    expect(died).toMatchObject({ code: 3, level: 50 });

    // Poll until the replacement answers; jest's timeout bounds the wait.
    let after = new Set<number>();
    while (![...after].some((pid) => !before.has(pid))) {
      after = await pidsAnswering(fixture.url, 4);
    }
    expect(after.size).toBe(2);
    expect([...after].filter((pid) => before.has(pid))).toHaveLength(1);
  });

  it('on SIGTERM lets in-flight requests finish in every worker, runs their closers and exits 0', async () => {
    const fixture = await startFixture('2');
    await fixture.waitForLine((line) => line.msg === 'all workers listening');
    const workerPids = await pidsAnswering(fixture.url, 10);

    const inFlight = request(`${fixture.url}/slow`);
    await fixture.waitForLine((line) => typeof line.slowStarted === 'number');
    fixture.child.kill('SIGTERM');

    const answer = await inFlight;
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ finished: true });
    expect(await fixture.exited).toBe(0);
    const closed = fixture.lines.filter((line) => typeof line.closed === 'number').map((line) => line.closed);
    expect(new Set(closed)).toEqual(workerPids);
    expect(fixture.lines.some((line) => line.msg === 'all workers exited' && line.failedExits === 0)).toBe(true);
  });

  it('runs a single process without a cluster when WEB_CONCURRENCY is 1', async () => {
    const fixture = await startFixture('1');
    await fixture.waitForLine((line) => line.msg === 'listening');

    expect(await pidsAnswering(fixture.url, 3)).toEqual(new Set([fixture.child.pid]));
  });

  it('refuses to start with a WEB_CONCURRENCY that is not a whole number from 1 to 64', async () => {
    const fixture = await startFixture('0');

    expect(await fixture.exited).toBe(1);
    expect(fixture.stderr()).toContain('WEB_CONCURRENCY: must be a whole number from 1 to 64');
  });
});
