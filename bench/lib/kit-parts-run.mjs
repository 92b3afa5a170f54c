// node bench/lib/kit-parts-run.mjs <req/s> <seconds> <rounds> <variant...>: CPU µs per request of
// each kit-parts.mjs variant at one fixed request rate (autocannon overallRate, 16 connections,
// 2 s warm-up), the variants alternated within every round; prints each round and the median.
import { spawn } from 'node:child_process';
import { readFileSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './table.mjs';
const here = fileURLToPath(new URL('.', import.meta.url));
const autocannon = createRequire(join(here, '..', '..', 'package.json'))('autocannon');
const [rate, secs, rounds, ...variants] = process.argv.slice(2);
const cpu = (pid) => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
const res = Object.fromEntries(variants.map((v) => [v, []]));
let port = 43000 + Math.floor(Math.random() * 1000);
for (let r = 0; r < Number(rounds); r++) for (const v of variants) {
  port++;
  // Logs go to a file, as in the benchmarks.
  const out = openSync(join(tmpdir(), `kit-parts-${v}.log`), 'w');
  const child = spawn(process.execPath, [...(process.env.KIT_PARTS_PROF ? ['--cpu-prof', '--cpu-prof-dir', join(here, '..', 'results', 'profiles', v)] : []), join(here, 'kit-parts.mjs')], { env: { ...process.env, PORT: String(port), VARIANT: v, NODE_ENV: 'production' }, stdio: ['ignore', out, 'inherit'] });
  child.on('exit', (c, s) => c && console.error('exit', v, c, s));
  await new Promise((r) => setTimeout(r, 700));
  const url = `http://127.0.0.1:${port}/airportName?iataCode=SFO`;
  await autocannon({ url, connections: 16, duration: 2, overallRate: Number(rate) });
  const c0 = cpu(child.pid);
  const result = await autocannon({ url, connections: 16, duration: Number(secs), overallRate: Number(rate) });
  const used = cpu(child.pid) - c0;
  res[v].push(Math.round((used * 1000) / result.requests.total));
  child.kill('SIGTERM');
  await new Promise((r) => child.on('exit', r));
}
for (const v of variants) console.log(v.padEnd(12), res[v].join(' '), 'median', median(res[v]));
