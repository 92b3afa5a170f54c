// 6. soak: the login benchmark (closed loop, 4 at once) for 5 minutes (--soak-seconds to
// change), RSS of identity and the gateway sampled every 5 s: the target is <= 200 MB and not
// growing (last fifth of the run vs the fifth after the first 30 s).
import { loginRun } from '../lib/load.mjs';
import { startBenchStack } from '../lib/stack.mjs';
import { mean, printTable } from '../lib/table.mjs';
import { databases, loginSpec } from './login.mjs';

export const description = 'login soak (default 5 minutes): RSS of identity and the gateway, growth';

export async function run(ctx) {
  const database = databases()[0];
  const s = await startBenchStack({ database });
  try {
    ctx.log(`soak on ${database} for ${ctx.soakSec} s`);
    const intervalMs = ctx.smoke ? 250 : 5000;
    const r = await loginRun({ ...loginSpec(s), concurrency: 4, durationSec: ctx.soakSec }, { workDir: s.dir, watch: [s.identity, s.gateway], rssIntervalMs: intervalMs });
    const skip = Math.ceil(30_000 / intervalMs);
    const rows = Object.entries(r.rss).map(([service, { samples, peakMb, lastMb }]) => {
      const steady = samples.length > skip + 5 ? samples.slice(skip) : samples;
      const fifth = Math.max(1, Math.floor(steady.length / 5));
      const early = mean(steady.slice(0, fifth));
      const late = mean(steady.slice(-fifth));
      return { service, startMb: samples[0], peakMb, endMb: lastMb, earlyMeanMb: early, lateMeanMb: late, growthMb: late - early, under200Mb: peakMb <= 200 };
    });
    printTable(`soak: ${r.logins} logins on ${database} in ${ctx.soakSec} s (${r.loginsPerSec.toFixed(1)}/s, p99 ${r.p99Ms?.toFixed(0)} ms)`, rows);
    return { summary: { database, soakSec: ctx.soakSec, logins: r.logins, loginsPerSec: r.loginsPerSec, p50Ms: r.p50Ms, p99Ms: r.p99Ms, services: rows }, samplesMb: Object.fromEntries(Object.entries(r.rss).map(([k, v]) => [k, v.samples])) };
  } finally {
    await s.stop();
  }
}
