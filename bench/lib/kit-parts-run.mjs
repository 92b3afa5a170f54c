// node bench/lib/kit-parts-run.mjs <req/s> <seconds> <rounds> <variant...>: CPU µs per request of
// each kit-parts.mjs variant at one fixed request rate (autocannon overallRate, 16 connections,
// 2 s warm-up; a rate of 0: as fast as the variant answers), the variants alternated within every
// round; prints each round and the median.
// A variant written `<variant>@<path>` runs that variant with the kit built in another checkout
// (KIT_TREE), e.g. `full full@/tmp/before` for a same-run A/B of the kit.
import { spawn } from 'node:child_process';
import { readFileSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './table.mjs';
const here = fileURLToPath(new URL('.', import.meta.url));
const autocannon = createRequire(join(here, '..', '..', 'package.json'))('autocannon');
const [rate, secs, rounds, ...variants] = process.argv.slice(2);
const cpu = (pid) => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
const res = Object.fromEntries(variants.map((v) => [v, []]));
// A port the system says is free (a fixed range collides with other processes on a shared machine).
const freePort = () => new Promise((resolve) => { const probe = createServer().listen(0, '127.0.0.1', () => { const { port } = probe.address(); probe.close(() => resolve(port)); }); });
let port;
for (let r = 0; r < Number(rounds); r++) for (const v of variants) {
  port = await freePort();
  // Logs go to a file, as in the benchmarks.
  const out = openSync(join(tmpdir(), `kit-parts-${v.replace(/[@/]/g, '_')}.log`), 'w');
  const [variant, tree] = v.split('@');
  const child = spawn(process.execPath, [...(process.env.KIT_PARTS_PROF ? ['--cpu-prof', '--cpu-prof-interval', process.env.KIT_PARTS_PROF_US ?? '1000', '--cpu-prof-dir', join(here, '..', 'results', 'profiles', v.replace(/[@/]/g, '_'))] : []), join(here, 'kit-parts.mjs')], { env: { ...process.env, PORT: String(port), VARIANT: variant, NODE_ENV: 'production', ...(tree ? { KIT_TREE: tree } : {}) }, stdio: ['ignore', out, 'inherit'] });
  child.on('exit', (c, s) => c && console.error('exit', v, c, s));
  await new Promise((r) => setTimeout(r, 700));
  const url = `http://127.0.0.1:${port}/airportName?iataCode=SFO`;
  const pace = Number(rate) > 0 ? { overallRate: Number(rate) } : {};
  await autocannon({ url, connections: 16, duration: 2, ...pace });
  const c0 = cpu(child.pid);
  const result = await autocannon({ url, connections: 16, duration: Number(secs), ...pace });
  const used = cpu(child.pid) - c0;
  res[v].push(Math.round((used * 1000) / result.requests.total));
  child.kill('SIGTERM');
  await new Promise((r) => child.on('exit', r));
}
for (const v of variants) console.log(v.padEnd(32), res[v].join(' '), 'median', median(res[v]));
