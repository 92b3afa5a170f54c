// memory: each service's resident memory at idle, while and after a fixed number of logins
// (BENCH_MEMORY_LOGINS, default 100,000; --smoke: 200), and its time to ready, on PostgreSQL and
// on the embedded default (PGlite); the container images' sizes where they are built
// (`pnpm test:containers` builds them). Growth is RSS after the last tenth of the logins minus
// RSS after the first half: a service that keeps something per login grows with every batch.
// Targets (issue 49): identity on the embedded default under 250 MB, on PostgreSQL under 150 MB
// after the load; no growth (under 10 MB between the half and the end).
import { execFileSync } from 'node:child_process';
import { loginRun } from '../lib/load.mjs';
import { rssMb } from '../lib/services.mjs';
import { startBenchStack } from '../lib/stack.mjs';
import { printTable } from '../lib/table.mjs';
import { databases, loginSpec } from './login.mjs';

export const description = 'RSS per service at idle and after N logins (no growth), time to ready, image sizes';

const TARGET_MB = { pglite: 250, postgres: 150 };
const GROWTH_LIMIT_MB = 10;
const SERVICES = ['identity', 'sms-delivery-gateway', 'airport-api'];

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function rssOf(s) {
  return Object.fromEntries([s.identity, s.gateway, s.airportApi].map((p) => [p.name, Math.round(rssMb(p.child.pid))]));
}

/** Logins in batches (a tenth of the total each), RSS after each batch. */
async function loadInBatches(s, total, ctx) {
  const batch = Math.max(1, Math.round(total / 10));
  const after = [];
  for (let done = 0; done < total; done += batch) {
    const run = await loginRun({ ...loginSpec(s), concurrency: ctx.connections, durationSec: 86_400, logins: Math.min(batch, total - done) }, { workDir: s.dir });
    after.push({ logins: done + run.logins, rss: rssOf(s) });
    ctx.log(`memory: ${done + run.logins}/${total} logins; identity ${after.at(-1).rss.identity} MB`);
  }
  return after;
}

function imageSizes() {
  try {
    const out = execFileSync('podman', ['images', '--format', '{{.Repository}}:{{.Tag}} {{.Size}}'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return out
      .split('\n')
      .filter((line) => /smsauth\/(identity|sms-delivery-gateway|airport-api):/.test(line))
      .map((line) => {
        const [image, ...size] = line.split(' ');
        return { image, size: size.join(' ') };
      });
  } catch {
    return [];
  }
}

export async function run(ctx) {
  const total = Number(process.env.BENCH_MEMORY_LOGINS ?? (ctx.smoke ? 200 : 100_000));
  const rows = [];
  for (const database of databases()) {
    const began = performance.now();
    const s = await startBenchStack({ database, airport: true });
    const stackReadySeconds = Math.round((performance.now() - began) / 100) / 10;
    try {
      await sleep(ctx.smoke ? 500 : 5_000);
      const idle = rssOf(s);
      const batches = await loadInBatches(s, total, ctx);
      const half = batches[Math.floor((batches.length - 1) / 2)];
      const end = batches.at(-1);
      for (const name of SERVICES) {
        const growthMb = end.rss[name] - half.rss[name];
        const row = { database, service: name, idleMb: idle[name], afterMb: end.rss[name], peakMb: Math.max(...batches.map((b) => b.rss[name])), growthMb, logins: end.logins };
        if (name === 'identity') Object.assign(row, { stackReadySeconds, targetMb: TARGET_MB[database], met: end.rss[name] <= TARGET_MB[database] && growthMb <= GROWTH_LIMIT_MB });
        rows.push(row);
      }
    } finally {
      await s.stop();
    }
  }
  printTable(`memory: RSS per service at idle and after ${total} logins (MB; growth = after the last batch minus after the middle one; identity, gateway and airport API started and the tenant seeded in stackReadySeconds)`, rows);
  for (const row of rows.filter((r) => r.service === 'identity')) {
    console.log(`memory ${row.database}: identity ${row.afterMb} MB after ${row.logins} logins (target <= ${row.targetMb}), growth ${row.growthMb} MB, ready in ${row.stackReadySeconds} s`);
  }
  const images = imageSizes();
  if (images.length) printTable('memory: container image sizes (podman images)', images);
  else console.log('memory: no smsauth images built here (pnpm test:containers builds them)');
  return { summary: rows, images, logins: total };
}
