#!/usr/bin/env node
// Runs every jest project once and closes with a plain "N passed, N failed, N skipped" line.
// Extra arguments go to jest (e.g. `pnpm test:unit -- packages/contracts`).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

if (!process.env.TEST_DATABASE_URL) {
  const bar = '!'.repeat(78);
  console.warn(`\n${bar}\n!! TEST_DATABASE_URL is not set: the PostgreSQL-backed suites are SKIPPED.\n!! Set it (e.g. postgres://postgres@127.0.0.1:5432/test) to run them.\n${bar}\n`);
}

const dir = mkdtempSync(join(tmpdir(), 'smsauth-jest-'));
const resultsFile = join(dir, 'results.json');
const args = ['--ci', '--json', `--outputFile=${resultsFile}`, ...process.argv.slice(2)];
const jest = spawnSync(process.execPath, [join('node_modules', 'jest', 'bin', 'jest.js'), ...args], { stdio: 'inherit' });

let summary = 'no results: jest did not write its report';
try {
  const results = JSON.parse(readFileSync(resultsFile, 'utf8'));
  const skipped = results.numPendingTests + results.numTodoTests;
  summary = `${results.numPassedTests} passed, ${results.numFailedTests} failed, ${skipped} skipped`;
  if (results.numTotalTests === 0) summary = '0 passed, 0 failed';
} catch {
  // keep the fallback summary
}
rmSync(dir, { recursive: true, force: true });
console.log(`\nTests: ${summary}`);
process.exit(jest.status ?? 1);
