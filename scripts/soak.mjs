#!/usr/bin/env node
// Hunts flaky tests: runs the property, fault and OpenAPI fuzz suites SOAK_ROUNDS times, each
// round with a fresh fast-check seed (FC_SEED) and FC_NUM_RUNS runs per property (default 5x the
// suites' own counts; the fuzz suites take both as FUZZ_SEED and a scaled FUZZ_RUNS), and prints
// the seed of every round and the replay line of every failure.
// Closes with a plain "N passed, N failed" line counting rounds.
//   SOAK_ROUNDS=10 FC_NUM_RUNS=600 pnpm test:soak
//   pnpm test:soak -- services/sms-delivery-gateway/test/property   (only these paths)
// Fault suites run the built services (dist/): run `pnpm build` first.
import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const DEFAULT_RUNS = 60; // RUNS in packages/test-support/src/property.ts
const rounds = positiveInt('SOAK_ROUNDS', 5);
const numRuns = positiveInt('FC_NUM_RUNS', DEFAULT_RUNS * 5);
const fixedSeed = process.env.FC_SEED?.trim() || undefined;

const paths = process.argv.slice(2).filter((arg) => arg !== '--');
if (paths.length === 0) {
  for (const service of readdirSync('services')) {
    for (const dir of ['property', 'faults', 'fuzz']) {
      if (existsSync(join('services', service, 'test', dir))) paths.push(join('services', service, 'test', dir));
    }
  }
}
if (!process.env.TEST_DATABASE_URL) console.warn('TEST_DATABASE_URL is not set: the PostgreSQL-backed suites are skipped, so they are not soaked.');

let current; // the round's run-tests.mjs, which ends its jest process group when signalled
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    current?.kill(signal);
    process.exit(130);
  });
}

console.log(`soak: ${rounds} round(s) of ${paths.join(' ')} with FC_NUM_RUNS=${numRuns}`);
const started = Date.now();
const results = [];
for (let round = 1; round <= rounds; round++) {
  const seed = fixedSeed ?? String(randomInt(0, 2 ** 31 - 1));
  console.log(`\n=== soak round ${round}/${rounds}: FC_SEED=${seed} FC_NUM_RUNS=${numRuns}`);
  const roundStarted = Date.now();
  const { status, failedFiles, replays } = await runRound(seed);
  const seconds = ((Date.now() - roundStarted) / 1000).toFixed(0);
  results.push({ round, seed, ok: status === 0, failedFiles, replays });
  console.log(`=== soak round ${round}/${rounds}: ${status === 0 ? 'passed' : 'FAILED'} in ${seconds} s (FC_SEED=${seed})`);
  for (const file of failedFiles) {
    console.log(`    replay: FC_SEED=${seed} FC_NUM_RUNS=${numRuns} node scripts/run-tests.mjs ${file}`);
  }
  for (const line of replays) console.log(`    ${line}`);
}

const failed = results.filter((r) => !r.ok);
console.log(`\nsoak: ${rounds} round(s) in ${((Date.now() - started) / 1000).toFixed(0)} s, seeds ${results.map((r) => r.seed).join(', ')}`);
for (const r of failed) console.log(`  round ${r.round} (FC_SEED=${r.seed}) failed: ${r.failedFiles.join(', ') || 'see its output'}`);
console.log(`${results.length - failed.length} passed, ${failed.length} failed`);
process.exit(failed.length === 0 ? 0 : 1);

/** One run of the suites through run-tests.mjs; its output is passed through and scanned for failures. */
function runRound(seed) {
  const env = { ...process.env, FC_SEED: seed, FC_NUM_RUNS: String(numRuns) };
  delete env.FC_PATH;
  const child = spawn(process.execPath, ['scripts/run-tests.mjs', ...paths], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const failedFiles = new Set();
  const replays = [];
  const scan = (chunk, out) => {
    out.write(chunk);
    for (const line of chunk.toString().split('\n')) {
      const file = /^\s*FAIL\s+(?:\S+\s+)?(\S+\.test\.ts)/.exec(line);
      if (file) failedFiles.add(file[1]);
      if (/^\s*property ".*" failed: replay with/.test(line)) replays.push(line.trim());
    }
  };
  child.stdout.on('data', (chunk) => scan(chunk, process.stdout));
  child.stderr.on('data', (chunk) => scan(chunk, process.stderr));
  current = child;
  return new Promise((resolve) =>
    child.on('exit', (code, signal) => resolve({ status: code ?? (signal ? 1 : 0), failedFiles: [...failedFiles], replays })),
  );
}

function positiveInt(name, fallback) {
  const text = process.env[name]?.trim();
  if (!text) return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 1) {
    console.error(`${name} must be a positive integer, got "${text}"`);
    process.exit(2);
  }
  return value;
}
