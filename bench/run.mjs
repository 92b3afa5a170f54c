#!/usr/bin/env node
// pnpm bench [name ...] [--smoke] [--duration <s>] [--connections <n>] [--rounds <n>]
// Runs the named benchmarks (all when none is named), prints a table for each and writes
// bench/results/latest.json (each benchmark's entry replaced, the others kept; --smoke writes
// bench/results/smoke.json instead).
// Needs built services: run `pnpm build` first.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BENCHMARKS = ['airport', 'airport-cold', 'm2m', 'code-exchange', 'login', 'login-logs', 'gateway', 'soak', 'users', 'sms-fraud', 'stats', 'user-import', 'memory'];
const here = fileURLToPath(new URL('.', import.meta.url));

function parseArgs(argv) {
  const args = { names: [], smoke: false, duration: undefined, connections: 16, soakSec: 300, rounds: 2 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--smoke') args.smoke = true;
    else if (arg === '--duration') args.duration = Number(argv[++i]);
    else if (arg === '--connections') args.connections = Number(argv[++i]);
    else if (arg === '--rounds') args.rounds = Number(argv[++i]);
    else if (arg === '--soak-seconds') args.soakSec = Number(argv[++i]);
    else if (arg === '--') continue;
    else if (BENCHMARKS.includes(arg)) args.names.push(arg);
    else {
      console.error(`unknown argument ${arg}; benchmarks: ${BENCHMARKS.join(', ')}; options: --smoke, --duration <s>, --connections <n>, --rounds <n>, --soak-seconds <s>`);
      process.exit(2);
    }
  }
  return args;
}

const args = parseArgs(process.argv.slice(2));
for (const name of ['services/identity', 'services/sms-delivery-gateway', 'services/airport-api', 'packages/stack']) {
  const main = join(here, '..', name, 'dist', name.startsWith('packages') ? 'index.js' : 'main.js');
  if (!existsSync(main)) {
    console.error(`${main} is missing: run \`pnpm build\` first`);
    process.exit(2);
  }
}

const ctx = {
  smoke: args.smoke,
  durationSec: args.duration ?? (args.smoke ? 1 : 10),
  warmupSec: args.smoke ? 0 : 2,
  connections: args.connections,
  // Rounds of the alternated benchmarks (airport, airport-cold, m2m): on a noisy machine more rounds give a steadier median.
  rounds: args.rounds,
  soakSec: args.smoke ? 2 : args.soakSec,
  log: (text) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${text}`),
};

const machine = {
  cores: cpus().length,
  cpuModel: cpus()[0]?.model,
  memoryGb: Math.round(totalmem() / 2 ** 30),
  node: process.version,
  platform: `${process.platform}-${process.arch}`,
};
// A smoke run proves the harness and measures nothing: it never replaces recorded figures.
const resultsFile = join(here, 'results', ctx.smoke ? 'smoke.json' : 'latest.json');
mkdirSync(join(here, 'results'), { recursive: true });

const names = args.names.length > 0 ? args.names : BENCHMARKS;
let failed = 0;
for (const name of names) {
  const module = await import(join(here, 'benchmarks', `${name}.mjs`));
  ctx.log(`${name}: ${module.description}`);
  const startedAt = new Date().toISOString();
  let entry;
  try {
    const result = await module.run(ctx);
    entry = { ...result, ok: true };
  } catch (err) {
    failed += 1;
    console.error(`\n${name} FAILED: ${err.stack ?? err}`);
    entry = { ok: false, error: String(err.message ?? err) };
  }
  const previous = existsSync(resultsFile) ? JSON.parse(readFileSync(resultsFile, 'utf8')) : { benchmarks: {} };
  previous.benchmarks[name] = {
    ...entry,
    date: startedAt,
    mode: ctx.smoke ? 'smoke' : 'full',
    durationSec: ctx.durationSec,
    connections: ctx.connections,
    machine,
    loadAverageAtStart: (await import('node:os')).loadavg(),
  };
  writeFileSync(resultsFile, `${JSON.stringify(previous, null, 2)}\n`);
}
ctx.log(`results in ${resultsFile}`);
process.exit(failed > 0 ? 1 : 0);
