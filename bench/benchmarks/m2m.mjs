// 3. m2m: client_credentials tokens per second at /oauth/token vs the node:crypto RS256 sign
// rate on one core (same key size, a real token's signing input), measured in the same run.
import { autocannonRun, cryptoRate } from '../lib/load.mjs';
import { API_AUDIENCE, startBenchStack } from '../lib/stack.mjs';
import { keyMaterialFromToken, postJson } from '../lib/tokens.mjs';
import { mean, printTable } from '../lib/table.mjs';

export const description = 'client_credentials tokens/s vs node:crypto RS256 sign rate on one core';

export async function run(ctx) {
  const database = process.env.BENCH_M2M_DATABASE ?? 'pglite';
  // BENCH_M2M_WORKERS=2: identity with WEB_CONCURRENCY=2 (PostgreSQL only); the baseline stays one core.
  const workers = Number(process.env.BENCH_M2M_WORKERS ?? 1);
  const s = await startBenchStack({ database, identityEnv: { WEB_CONCURRENCY: String(workers) } });
  try {
    const body = { grant_type: 'client_credentials', client_id: s.tenant.m2mClientId, client_secret: s.tenant.m2mClientSecret, audience: API_AUDIENCE };
    const sample = await postJson(`${s.authUrl}/oauth/token`, body);
    const { file: keyFile, modulusLength } = await keyMaterialFromToken(s.authUrl, sample.access_token, s.dir);
    const rows = [];
    for (let round = 1; round <= 2; round++) {
      const sign = await cryptoRate('sign', { keyFile, durationMs: ctx.smoke ? 500 : 3000 });
      ctx.log(`m2m: round ${round}, sign ${Math.round(sign.perSecond)}/s; load`);
      const r = await autocannonRun(
        {
          url: `${s.authUrl}/oauth/token`,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
          connections: ctx.connections,
          durationSec: ctx.durationSec,
          warmupSec: ctx.warmupSec,
        },
        { workDir: s.dir, watch: [s.identity] },
      );
      rows.push({ round, signPerSec: sign.perSecond, tokensPerSec: r.rps, ratio: r.rps / sign.perSecond, p50Ms: r.p50Ms, p99Ms: r.p99Ms, identityRssPeakMb: r.rss.identity.peakMb });
    }
    printTable('m2m: each row one run', rows);
    const tokensPerSec = mean(rows.map((r) => r.tokensPerSec));
    const signPerSec = mean(rows.map((r) => r.signPerSec));
    const summary = { database, workers, keyBits: modulusLength, tokensPerSec, signPerSec, ratio: tokensPerSec / signPerSec, target: 0.6, met: tokensPerSec / signPerSec >= 0.6 };
    printTable('m2m: summary', [summary]);
    return { summary, runs: rows };
  } finally {
    await s.stop();
  }
}
