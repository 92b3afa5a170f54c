// 2. airport-cold: thousands of distinct pre-minted tokens cycled round robin, more than the
// verified-token cache holds (10,000), so every request pays a signature check; compared with
// the raw node:crypto RS256 verify rate on one core measured in the same run. A bare Express 5
// app serving the same lookup without auth, under the same load, gives the HTTP ceiling: the
// ratio no server could pass on this stack, however cheap its verification. The peer a user
// would install instead (Express 5 + Auth0's express-oauth2-jwt-bearer, lib/peer-airport.mjs,
// same lookup, same identity service) takes the same token sequence right after ours, and the
// floor (lib/floor-airport-cold.mjs: split, base64url-decode, JSON.parse, one crypto.verify on the
// thread pool, nothing else) after it; between them the peer given the airport API's per-request
// defaults (PEER_OPERATOR_DEFAULTS, as in airport.mjs). BENCH_AIRPORT_BASE=<another built
// checkout> adds that tree's airport API to every round (a same-run A/B).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { autocannonRun, cpuUsPerRequest, cryptoRate } from '../lib/load.mjs';
import { API_AUDIENCE, startAirportApi, startBenchStack, startPeerAirport } from '../lib/stack.mjs';
import { repoRoot, stack, startProcess } from '../lib/services.mjs';
import { keyMaterialFromToken, pool, postJson, scrapeCounter } from '../lib/tokens.mjs';
import { mean, median, printTable } from '../lib/table.mjs';

export const description = 'GET /airportName with distinct tokens (cache misses) vs node:crypto RS256 verify rate on one core and vs Express 5 + express-oauth2-jwt-bearer (peer)';

const COLD_AUDIENCE = 'https://airport-cold.bench.example.com';
const SCOPES = Array.from({ length: 14 }, (_, i) => `s${i}`);
const GATEWAY_CACHE_ENTRIES = 10_000;

export async function run(ctx) {
  const s = await startBenchStack();
  let airport;
  let bare;
  let peer;
  let peerWithDefaults;
  let floor;
  let base;
  try {
    // Tokens of one client differ only when a claim does: each asks for a different subset of
    // the API's 14 scopes (16,383 possible), so every token is distinct.
    await s.management.createResourceServer({ name: 'Airport cold bench', identifier: COLD_AUDIENCE, scopes: SCOPES.map((value) => ({ value, description: value })) });
    await s.management.createClientGrant({ client_id: s.tenant.m2mClientId, audience: COLD_AUDIENCE, scope: SCOPES });
    airport = await startAirportApi(s, { apiAudiences: [API_AUDIENCE, COLD_AUDIENCE] });
    bare = await startProcess({ name: 'bare-express', script: join(repoRoot, 'bench', 'lib', 'bare-airport.mjs'), port: await stack.freePort(), logDir: s.dir });
    // The peer in production mode with its documented setup, auth({ issuerBaseURL, audience }),
    // and the peer given the airport API's per-request defaults (as airport.mjs's second peer row).
    const audiences = [API_AUDIENCE, COLD_AUDIENCE];
    peer = await startPeerAirport(s, { apiAudiences: audiences });
    peerWithDefaults = await startPeerAirport(s, { name: 'peer-airport-defaults', apiAudiences: audiences, operatorDefaults: '1' });
    floor = await startProcess({
      name: 'floor-airport-cold',
      script: join(repoRoot, 'bench', 'lib', 'floor-airport-cold.mjs'),
      port: await stack.freePort(),
      logDir: s.dir,
      env: { NODE_ENV: 'production', AUTH_URL: s.authUrl },
    });
    const baseTree = process.env.BENCH_AIRPORT_BASE;
    if (baseTree) {
      base = await startAirportApi(s, { name: 'airport-api-base', apiAudiences: [API_AUDIENCE, COLD_AUDIENCE], script: join(baseTree, 'services', 'airport-api', 'dist', 'main.js') });
    }
    const count = ctx.smoke ? 300 : 12_000;
    ctx.log(`airport-cold: minting ${count} distinct tokens`);
    const tokens = await pool(count, 8, (i) =>
      postJson(`${s.authUrl}/oauth/token`, {
        grant_type: 'client_credentials',
        client_id: s.tenant.m2mClientId,
        client_secret: s.tenant.m2mClientSecret,
        audience: COLD_AUDIENCE,
        scope: SCOPES.filter((_, bit) => ((i + 1) >> bit) & 1).join(' '),
      }).then((body) => body.access_token),
    );
    const distinct = new Set(tokens).size;
    if (distinct !== count) throw new Error(`only ${distinct} of ${count} tokens are distinct`);
    const tokensFile = join(s.dir, 'tokens.json');
    writeFileSync(tokensFile, JSON.stringify(tokens));
    const { file: keyFile, modulusLength } = await keyMaterialFromToken(s.authUrl, tokens[0], s.dir);

    const rows = [];
    const verifyRates = [];
    const baselineMs = ctx.smoke ? 500 : 3000;
    let tokenOffset = 0;
    // The base tree's API keeps a cache of its own: it continues from where it stopped, so it too misses every time.
    let baseTokenOffset = 0;
    for (let round = 1; round <= ctx.rounds; round++) {
      const verify = await cryptoRate('verify', { keyFile, durationMs: baselineMs });
      verifyRates.push(verify.perSecond);
      ctx.log(`airport-cold: round ${round}, verify ${Math.round(verify.perSecond)}/s; load`);
      const missesBefore = await scrapeCounter(airport.url, 'gateway_token_cache_total{result="miss"');
      const hitsBefore = await scrapeCounter(airport.url, 'gateway_token_cache_total{result="hit"');
      // The base tree's airport API when given (first in even rounds, so neither tree always runs first).
      const loadBase = () =>
        base
          ? autocannonRun(
              { url: `${base.url}/airportName?iataCode=SFO`, tokensFile, tokenOffset: baseTokenOffset, connections: ctx.connections, durationSec: ctx.durationSec },
              { workDir: s.dir, watch: [base] },
            )
          : undefined;
      const baseFirst = round % 2 === 0 ? await loadBase() : undefined;
      const r = await autocannonRun(
        { url: `${airport.url}/airportName?iataCode=SFO`, tokensFile, tokenOffset, connections: ctx.connections, durationSec: ctx.durationSec },
        { workDir: s.dir, watch: [airport] },
      );
      const b = baseFirst ?? (await loadBase());
      // The peer: the same token sequence from the same offset (it keeps no verified-token cache).
      const p = await autocannonRun(
        { url: `${peer.url}/airportName?iataCode=SFO`, tokensFile, tokenOffset, connections: ctx.connections, durationSec: ctx.durationSec },
        { workDir: s.dir, watch: [peer] },
      );
      const pd = await autocannonRun(
        { url: `${peerWithDefaults.url}/airportName?iataCode=SFO`, tokensFile, tokenOffset, connections: ctx.connections, durationSec: ctx.durationSec },
        { workDir: s.dir, watch: [peerWithDefaults] },
      );
      // The floor: the same token sequence again.
      const f = await autocannonRun(
        { url: `${floor.url}/airportName?iataCode=SFO`, tokensFile, tokenOffset, connections: ctx.connections, durationSec: ctx.durationSec },
        { workDir: s.dir, watch: [floor] },
      );

      tokenOffset = r.nextTokenOffset;
      baseTokenOffset = b?.nextTokenOffset ?? 0;
      // Same requests, tokens included (ignored there), against the app with no auth at all.
      const ceiling = await autocannonRun(
        { url: `${bare.url}/airportName?iataCode=SFO`, tokensFile, tokenOffset: 0, connections: ctx.connections, durationSec: ctx.durationSec },
        { workDir: s.dir, watch: [bare] },
      );
      const misses = (await scrapeCounter(airport.url, 'gateway_token_cache_total{result="miss"')) - missesBefore;
      const hits = (await scrapeCounter(airport.url, 'gateway_token_cache_total{result="hit"')) - hitsBefore;
      rows.push({ round, verifyPerSec: verify.perSecond, rps: r.rps, ratio: r.rps / verify.perSecond, bareRps: ceiling.rps, httpCeilingRatio: ceiling.rps / verify.perSecond, shareOfCeiling: r.rps / ceiling.rps, cacheMissShare: misses / Math.max(1, misses + hits), p50Ms: r.p50Ms, p99Ms: r.p99Ms, rssPeakMb: r.rss['airport-api'].peakMb, peerRps: p.rps, oursPerPeer: r.rps / p.rps, cpuUsPerReq: cpuUsPerRequest(r, 'airport-api'), peerCpuUsPerReq: cpuUsPerRequest(p, 'peer-airport'), peerP50Ms: p.p50Ms, peerP99Ms: p.p99Ms, peerRssPeakMb: p.rss['peer-airport'].peakMb, peerWithDefaultsRps: pd.rps, oursPerPeerWithDefaults: r.rps / pd.rps, peerWithDefaultsCpuUsPerReq: cpuUsPerRequest(pd, 'peer-airport-defaults'), floorRps: f.rps, floorPerPeer: f.rps / p.rps, floorCpuUsPerReq: cpuUsPerRequest(f, 'floor-airport-cold'), ...(b ? { baseRps: b.rps, basePerPeer: b.rps / p.rps, baseCpuUsPerReq: cpuUsPerRequest(b, 'airport-api-base') } : {}) });
    }
    printTable('airport-cold: each row one run', rows);
    const rps = mean(rows.map((r) => r.rps));
    const verifyPerSec = mean(verifyRates);
    const summary = {
      distinctTokens: count,
      cacheEntries: GATEWAY_CACHE_ENTRIES,
      keyBits: modulusLength,
      rps,
      verifyPerSec,
      ratio: rps / verifyPerSec,
      target: 0.7,
      met: rps / verifyPerSec >= 0.7,
      cacheMissShare: mean(rows.map((r) => r.cacheMissShare)),
      bareRps: mean(rows.map((r) => r.bareRps)),
      httpCeilingRatio: mean(rows.map((r) => r.httpCeilingRatio)),
      shareOfCeiling: rps / mean(rows.map((r) => r.bareRps)),
      peerRps: mean(rows.map((r) => r.peerRps)),
      oursPerPeer: rps / mean(rows.map((r) => r.peerRps)),
      // The median of each round's own ratio: what a noisy round moves least.
      oursPerPeerMedianOfRounds: median(rows.map((r) => r.oursPerPeer)),
      peerTarget: 1.2,
      peerMet: rps / mean(rows.map((r) => r.peerRps)) >= 1.2,
      peerWithDefaultsRps: mean(rows.map((r) => r.peerWithDefaultsRps)),
      oursPerPeerWithDefaults: rps / mean(rows.map((r) => r.peerWithDefaultsRps)),
      oursPerPeerWithDefaultsMedianOfRounds: median(rows.map((r) => r.oursPerPeerWithDefaults)),
      cpuUsPerReq: mean(rows.map((r) => r.cpuUsPerReq)),
      peerWithDefaultsCpuUsPerReq: mean(rows.map((r) => r.peerWithDefaultsCpuUsPerReq)),
      peerCpuUsPerReq: mean(rows.map((r) => r.peerCpuUsPerReq)),
      floorRps: mean(rows.map((r) => r.floorRps)),
      floorPerPeer: mean(rows.map((r) => r.floorRps)) / mean(rows.map((r) => r.peerRps)),
      floorCpuUsPerReq: mean(rows.map((r) => r.floorCpuUsPerReq)),
      ...(base ? { baseRps: mean(rows.map((r) => r.baseRps)), basePerPeerMedianOfRounds: median(rows.map((r) => r.basePerPeer)), basePerPeer: mean(rows.map((r) => r.baseRps)) / mean(rows.map((r) => r.peerRps)), baseCpuUsPerReq: mean(rows.map((r) => r.baseCpuUsPerReq)) } : {}),
    };
    printTable('airport-cold: summary', [summary]);
    return { summary, runs: rows };
  } finally {
    if (base) await base.stop();
    if (floor) await floor.stop();
    if (peer) await peer.stop();
    if (peerWithDefaults) await peerWithDefaults.stop();
    if (bare) await bare.stop();
    if (airport) await airport.stop();
    await s.stop();
  }
}
