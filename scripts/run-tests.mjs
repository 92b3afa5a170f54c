#!/usr/bin/env node
// Runs every jest project once and closes with a plain "N passed, N failed, N skipped" line.
// Extra arguments go to jest (e.g. `pnpm test:unit -- packages/contracts`).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Once jest has written its report it should exit; if a test leaked a server or child process it
// would wait forever, so end it (and everything it started) and say so.
const EXIT_GRACE_MS = 20_000;

if (!process.env.TEST_DATABASE_URL) {
  const bar = '!'.repeat(78);
  console.warn(`\n${bar}\n!! TEST_DATABASE_URL is not set: the PostgreSQL-backed suites are SKIPPED.\n!! Set it (e.g. postgres://postgres@127.0.0.1:5432/test) to run them.\n${bar}\n`);
}

const dir = mkdtempSync(join(tmpdir(), 'smsauth-jest-'));
const resultsFile = join(dir, 'results.json');
const args = ['--ci', '--json', `--outputFile=${resultsFile}`, ...process.argv.slice(2)];
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
} catch {
  // keep the fallback summary
}
rmSync(dir, { recursive: true, force: true });
console.log(`\nTests: ${summary}`);
process.exit(hung ? 1 : status);

function killGroup(signal) {
  try {
    process.kill(-jest.pid, signal);
  } catch {
    // already gone
  }
}
