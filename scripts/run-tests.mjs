#!/usr/bin/env node
// Runs every jest project once and closes with a plain "N passed, N failed, N skipped" line.
// Extra arguments go to jest (e.g. `pnpm test:unit -- packages/contracts`).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { join, relative } from 'node:path';

// Once jest has written its report it should exit; if a test leaked a server or child process it
// would wait forever, so end it (and everything it started) and say so.
const EXIT_GRACE_MS = 20_000;

// PostgreSQL where it usually is (and where CI has it) is used without being asked for.
const USUAL_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';
if (!process.env.TEST_DATABASE_URL) {
  if (await answers('127.0.0.1', 5432)) {
    process.env.TEST_DATABASE_URL = USUAL_DATABASE_URL;
    console.log(`PostgreSQL answers at 127.0.0.1:5432: the PostgreSQL suites run against ${USUAL_DATABASE_URL} (set TEST_DATABASE_URL to use another).`);
  } else {
    const bar = '!'.repeat(78);
    console.warn(`\n${bar}\n!! No PostgreSQL at 127.0.0.1:5432 and TEST_DATABASE_URL is not set: the PostgreSQL-backed suites are SKIPPED.\n!! Start PostgreSQL there, or set TEST_DATABASE_URL (e.g. ${USUAL_DATABASE_URL}), to run them.\n${bar}\n`);
  }
}

// One worker per core unless told otherwise: most suites wait on I/O (HTTP, PostgreSQL, a
// browser), and each is isolated (free ports, its own schema, its own stack), so two share a
// 2-core machine well. The run prints where its time went, so a regression shows.
// `--typecheck` (pnpm test): `pnpm typecheck` runs beside jest, niced, on the CPU the suites
// leave idle while they wait on I/O, instead of before them; its output is printed at the end.
const typecheckToo = process.argv.includes('--typecheck');
const userArgs = process.argv.slice(2).filter((arg) => arg !== '--typecheck');
const typecheck = typecheckToo ? startTypecheck() : undefined;
const workers = userArgs.some((arg) => /^(-w|--maxWorkers|-i|--runInBand)(=|$)/.test(arg)) ? [] : [`--maxWorkers=${availableParallelism()}`];

const dir = mkdtempSync(join(tmpdir(), 'smsauth-jest-'));
const resultsFile = join(dir, 'results.json');
const args = ['--ci', '--json', `--outputFile=${resultsFile}`, ...workers, ...userArgs];
const started = Date.now();
// Its own process group, so a hang can be ended together with what the tests spawned.
const jest = spawn(process.execPath, [join('node_modules', 'jest', 'bin', 'jest.js'), ...args], { stdio: 'inherit', detached: true });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => killGroup(signal));

let hung = false;
const watchdog = setInterval(() => {
  if (!existsSync(resultsFile)) return;
  clearInterval(watchdog);
  setTimeout(() => {
    hung = true;
    console.error(`\njest wrote its results but had not exited ${EXIT_GRACE_MS / 1000} s later: a test leaked a server, timer or child process. Ending it.`);
    killGroup('SIGKILL');
  }, EXIT_GRACE_MS).unref();
}, 500);

const status = await new Promise((resolve) => jest.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
clearInterval(watchdog);

let summary = 'no results: jest did not write its report';
try {
  const results = JSON.parse(readFileSync(resultsFile, 'utf8'));
  const skipped = results.numPendingTests + results.numTodoTests;
  // A suite that fails outside its tests (a throwing beforeAll/afterAll, a syntax error) fails no
  // test; count it as one failure so the summary never reads "0 failed" for a failed run.
  const suitesFailedOutsideTests = results.testResults.filter(
    (suite) => suite.status === 'failed' && !suite.assertionResults.some((test) => test.status === 'failed'),
  ).length;
  summary = `${results.numPassedTests} passed, ${results.numFailedTests + suitesFailedOutsideTests} failed, ${skipped} skipped`;
  if (results.numTotalTests === 0) summary = '0 passed, 0 failed';
  printSlowest(results.testResults);
} catch {
  // keep the fallback summary
}
rmSync(dir, { recursive: true, force: true });
const typechecked = typecheck ? await typecheck : true;
console.log(`\nTests: ${summary}${typechecked ? '' : '; typecheck FAILED'}`);
process.exit(hung || !typechecked ? 1 : status);

/** `pnpm typecheck` in the background; resolves to whether it passed, once it has said so. */
function startTypecheck() {
  const began = Date.now();
  const child = spawn('nice', ['-n', '10', 'pnpm', 'typecheck'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const output = [];
  child.stdout.on('data', (chunk) => output.push(chunk));
  child.stderr.on('data', (chunk) => output.push(chunk));
  return new Promise((resolve) => {
    child.on('error', (err) => {
      console.error(`\ntypecheck could not start: ${err.message}`);
      resolve(false);
    });
    child.on('exit', (code) => {
      const seconds = ((Date.now() - began) / 1000).toFixed(0);
      if (code === 0) console.log(`\ntypecheck passed (${seconds} s, beside jest)`);
      else console.error(`\n${Buffer.concat(output).toString('utf8')}\ntypecheck FAILED (exit ${code}, ${seconds} s)`);
      resolve(code === 0);
    });
  });
}

/** The ten slowest suites and the run's wall-clock time, so every run shows where its time goes. */
function printSlowest(suites) {
  const timed = suites
    .map((suite) => ({ file: relative(process.cwd(), suite.name), seconds: (suite.endTime - suite.startTime) / 1000 }))
    .filter((suite) => Number.isFinite(suite.seconds))
    .sort((a, b) => b.seconds - a.seconds);
  const total = timed.reduce((sum, suite) => sum + suite.seconds, 0);
  console.log(`\n${timed.length} suites in ${((Date.now() - started) / 1000).toFixed(0)} s (${total.toFixed(0)} s of suite time, ${workers[0] ?? 'workers as given'}); the slowest:`);
  for (const suite of timed.slice(0, 10)) console.log(`  ${suite.seconds.toFixed(1).padStart(6)} s  ${suite.file}`);
}

/** Whether something accepts TCP connections at host:port within a second. */
function answers(host, port) {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 1000 });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
}

function killGroup(signal) {
  try {
    process.kill(-jest.pid, signal);
  } catch {
    // already gone
  }
}
