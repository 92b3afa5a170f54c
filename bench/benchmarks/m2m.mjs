// 3. m2m: client_credentials tokens per second at /oauth/token vs the node:crypto RS256 sign
// rate on one core (same key size, a real token's signing input), measured in the same run, and
// vs the peer a user would run instead: panva's oidc-provider (lib/peer-oidc-provider.mjs) with
// the same client id and secret, sent the same way (client_secret_post), for the same audience
// (a resource indicator), RS256 JWTs with a 2048-bit key; alternated with ours. With PostgreSQL
// (TEST_DATABASE_URL or BENCH_DATABASE_URL), the peer also runs given the record ours keeps per
// token (PEER_RECORD: an awaited audit INSERT and an access line), and the line
// `m2m ours/peer-with-record=<median of per-round ratios>` compares CPU per token, PostgreSQL's
// included on both sides.
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { autocannonRun, cpuUsPerRequest, cryptoRate, servedCpuUsPerRequest } from '../lib/load.mjs';
import { API_AUDIENCE, startBenchStack } from '../lib/stack.mjs';
import { createBenchDatabase, postgresDatabaseOf, repoRoot, stack, startProcess } from '../lib/services.mjs';
import { keyMaterialFromToken, postJson } from '../lib/tokens.mjs';
import { mean, median, printTable } from '../lib/table.mjs';

export const description = 'client_credentials tokens/s vs node:crypto RS256 sign rate on one core and vs oidc-provider (peer)';

const PEER_SCOPE = 'read:airports';

export async function run(ctx) {
  const database = process.env.BENCH_M2M_DATABASE ?? 'pglite';
  // BENCH_M2M_WORKERS=2: identity with WEB_CONCURRENCY=2 (PostgreSQL only); the baseline stays one core.
  const workers = Number(process.env.BENCH_M2M_WORKERS ?? 1);
  // BENCH_M2M_CACHE_TTL_MS=0: identity without its client_credentials lookup cache (the A/B of issue 18 step 4).
  const cacheTtl = process.env.BENCH_M2M_CACHE_TTL_MS;
  // BENCH_M2M_TENANT_LOGS=false: without the `seccft` record per token (what recording costs here).
  const tenantLogs = process.env.BENCH_M2M_TENANT_LOGS;
  const s = await startBenchStack({
    database,
    identityEnv: {
      WEB_CONCURRENCY: String(workers),
      ...(cacheTtl === undefined ? {} : { M2M_CACHE_TTL_MS: cacheTtl }),
      ...(tenantLogs === undefined ? {} : { TENANT_LOG_RECORDING: tenantLogs }),
    },
  });
  let peer;
  let peerWithRecord;
  let peerDatabase;
  let floor;
  try {
    const body = { grant_type: 'client_credentials', client_id: s.tenant.m2mClientId, client_secret: s.tenant.m2mClientSecret, audience: API_AUDIENCE };
    const sample = await postJson(`${s.authUrl}/oauth/token`, body);
    const { file: keyFile, modulusLength } = await keyMaterialFromToken(s.authUrl, sample.access_token, s.dir);
    // The peer, in production mode with debug logging off (DEBUG empty); one client with our
    // m2m client's id and secret, the audience as its resource indicator.
    peer = await startProcess({
      name: 'peer-oidc-provider',
      script: join(repoRoot, 'bench', 'lib', 'peer-oidc-provider.mjs'),
      port: await stack.freePort(),
      logDir: s.dir,
      env: { NODE_ENV: 'production', DEBUG: '', PEER_CLIENT_ID: s.tenant.m2mClientId, PEER_CLIENT_SECRET: s.tenant.m2mClientSecret, PEER_AUDIENCE: API_AUDIENCE, PEER_SCOPE },
    });
    // Its token endpoint takes only form bodies: the same parameters, form-encoded, with
    // `resource` for `audience` and the scope named (it grants none unless asked).
    const peerBody = new URLSearchParams({ grant_type: 'client_credentials', client_id: s.tenant.m2mClientId, client_secret: s.tenant.m2mClientSecret, resource: API_AUDIENCE, scope: PEER_SCOPE }).toString();
    const peerTokenUrl = `${peer.url}/token`;
    const peerSample = await fetch(peerTokenUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: peerBody });
    const peerToken = (await peerSample.json()).access_token;
    if (peerSample.status !== 200 || !peerToken) throw new Error(`peer token endpoint answered ${peerSample.status}`);
    peerDatabase = await createBenchDatabase();
    if (peerDatabase) {
      peerWithRecord = await startProcess({
        name: 'peer-oidc-provider-record',
        script: join(repoRoot, 'bench', 'lib', 'peer-oidc-provider.mjs'),
        port: await stack.freePort(),
        logDir: s.dir,
        env: { NODE_ENV: 'production', DEBUG: '', PEER_CLIENT_ID: s.tenant.m2mClientId, PEER_CLIENT_SECRET: s.tenant.m2mClientSecret, PEER_AUDIENCE: API_AUDIENCE, PEER_SCOPE, PEER_RECORD: '1', DATABASE_URL: peerDatabase.url },
      });
    } else console.warn('!! m2m peer with the record SKIPPED: it needs PostgreSQL (TEST_DATABASE_URL or BENCH_DATABASE_URL)');
    const peerKeyBits = Buffer.from((await (await fetch(`${peer.url}/jwks`)).json()).keys[0].n, 'base64url').length * 8;
    // The floor: Express 5 and the signature with nothing else (lib/floor-m2m.mjs), same request as ours.
    floor = await startProcess({
      name: 'floor-m2m',
      script: join(repoRoot, 'bench', 'lib', 'floor-m2m.mjs'),
      port: await stack.freePort(),
      logDir: s.dir,
      env: { NODE_ENV: 'production', KEY_FILE: keyFile, FLOOR_CLIENT_ID: s.tenant.m2mClientId, FLOOR_CLIENT_SECRET: s.tenant.m2mClientSecret, FLOOR_AUDIENCE: API_AUDIENCE, FLOOR_SCOPE: sample.scope ?? '', FLOOR_ISSUER: `${s.authUrl}/` },
    });
    if ((await postJson(`${floor.url}/oauth/token`, body)).token_type !== 'Bearer') throw new Error('the m2m floor issued no token');
    // Ours and the floor take the same JSON request.
    const loadJson = (url, watched) =>
      autocannonRun(
        { url, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), connections: ctx.connections, durationSec: ctx.durationSec, warmupSec: ctx.warmupSec },
        { workDir: s.dir, watch: [watched], database: watched === s.identity ? postgresDatabaseOf(s.databaseUrl) : undefined },
      );
    const rows = [];
    for (let round = 1; round <= ctx.rounds; round++) {
      const sign = await cryptoRate('sign', { keyFile, durationMs: ctx.smoke ? 500 : 3000 });
      ctx.log(`m2m: round ${round}, sign ${Math.round(sign.perSecond)}/s; load`);
      const r = await loadJson(`${s.authUrl}/oauth/token`, s.identity);
      const loadPeer = (target) =>
        autocannonRun(
          {
            url: `${target.url}/token`,
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: peerBody,
            connections: ctx.connections,
            durationSec: ctx.durationSec,
            warmupSec: ctx.warmupSec,
          },
          { workDir: s.dir, watch: [target], database: target === peerWithRecord ? peerDatabase.name : undefined },
        );
      ctx.log(`m2m: round ${round}, peer (oidc-provider)`);
      const p = await loadPeer(peer);
      let pr;
      if (peerWithRecord) {
        ctx.log(`m2m: round ${round}, peer with the record (oidc-provider + audit INSERT + access line)`);
        pr = await loadPeer(peerWithRecord);
      }
      ctx.log(`m2m: round ${round}, floor (Express 5 + an RS256 signature on the thread pool, nothing else)`);
      const f = await loadJson(`${floor.url}/oauth/token`, floor);
      rows.push({ round, signPerSec: sign.perSecond, tokensPerSec: r.rps, ratio: r.rps / sign.perSecond, p50Ms: r.p50Ms, p99Ms: r.p99Ms, identityRssPeakMb: r.rss.identity.peakMb, peerTokensPerSec: p.rps, oursPerPeer: r.rps / p.rps, cpuUsPerToken: cpuUsPerRequest(r, 'identity'), peerCpuUsPerToken: cpuUsPerRequest(p, 'peer-oidc-provider'), peerP50Ms: p.p50Ms, peerP99Ms: p.p99Ms, peerRssPeakMb: p.rss['peer-oidc-provider'].peakMb, floorTokensPerSec: f.rps, floorPerPeer: f.rps / p.rps, floorCpuUsPerToken: cpuUsPerRequest(f, 'floor-m2m'), servedCpuUsPerToken: servedCpuUsPerRequest(r, 'identity'), ...(pr ? { peerWithRecordTokensPerSec: pr.rps, peerWithRecordServedCpuUsPerToken: servedCpuUsPerRequest(pr, 'peer-oidc-provider-record'), oursPerPeerWithRecord: servedCpuUsPerRequest(pr, 'peer-oidc-provider-record') / servedCpuUsPerRequest(r, 'identity') } : {}) });
    }
    printTable('m2m: each row one run', rows);
    const tokensPerSec = mean(rows.map((r) => r.tokensPerSec));
    const signPerSec = mean(rows.map((r) => r.signPerSec));
    const peerTokensPerSec = mean(rows.map((r) => r.peerTokensPerSec));
    const cpuUsPerToken = mean(rows.map((r) => r.cpuUsPerToken));
    const peerCpuUsPerToken = mean(rows.map((r) => r.peerCpuUsPerToken));
    const floorCpuUsPerToken = mean(rows.map((r) => r.floorCpuUsPerToken));
    // CPU per token does not depend on how much of the shared machine each side got in its phase.
    const summary = { database, workers, cacheTtlMs: cacheTtl ?? 'default', cpuUsPerToken, peerCpuUsPerToken, peerCpuPerOursCpu: peerCpuUsPerToken / cpuUsPerToken, floorCpuUsPerToken, floorTokensPerSec: mean(rows.map((r) => r.floorTokensPerSec)), keyBits: modulusLength, tokensPerSec, signPerSec, ratio: tokensPerSec / signPerSec, target: 0.6, met: tokensPerSec / signPerSec >= 0.6, peerKeyBits, peerTokensPerSec, oursPerPeer: tokensPerSec / peerTokensPerSec, oursPerPeerMedianOfRounds: median(rows.map((r) => r.oursPerPeer)), peerTarget: 1.0, peerMet: tokensPerSec / peerTokensPerSec >= 1.0 };
    printTable('m2m: summary', [summary]);
    if (peerWithRecord) {
      // Tokens per CPU second (identity or the peer, plus PostgreSQL), ours over the peer's, per round.
      summary.oursPerPeerWithRecord = Math.round(median(rows.map((r) => r.oursPerPeerWithRecord)) * 100) / 100;
      console.log(`\nm2m ours/peer-with-record=${summary.oursPerPeerWithRecord} (tokens per CPU second of the service and PostgreSQL, ours (${database}) over oidc-provider with an awaited audit INSERT and an access line; median of ${rows.length} alternated round(s) at ${ctx.connections} connections; target >= 1.0; load ${loadavg().map((l) => l.toFixed(2)).join(' ')})`);
    }
    return { summary, runs: rows };
  } finally {
    if (floor) await floor.stop();
    if (peer) await peer.stop();
    if (peerWithRecord) await peerWithRecord.stop();
    if (peerDatabase) await peerDatabase.drop();
    await s.stop();
  }
}
