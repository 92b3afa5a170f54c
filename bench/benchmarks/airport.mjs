// 1. airport: authorized GET /airportName with one repeated token (verified-token cache hit)
// vs a bare Express 5 app doing the same lookup, and vs the peer a user would install instead
// (Express 5 + Auth0's express-oauth2-jwt-bearer, lib/peer-airport.mjs, same lookup, checking the
// same token against the same identity service); same connections and duration, alternated
// twice. Then the same load on the airport API with WEB_CONCURRENCY=2 for the scaling factor.
// A middle row, bare Express + the service kit (lib/kit-airport.mjs, no gateway), separates the
// kit's per-request cost from the gateway's. BENCH_AIRPORT_BASE=<another checkout, built> adds
// that tree's airport API and kit row to every round: an A/B of a change in one run.
// BENCH_RATE=<req/s> loads every target at that fixed rate (CPU per request is then the figure).
// A second peer row gives the peer what the airport API does by default for an operator (request
// id, an access line per request, a duration histogram), added with pino-http and prom-client as
// their documentation shows (PEER_OPERATOR_DEFAULTS in lib/peer-airport.mjs): the same per-request
// record on both sides; a third, that record tuned to ours (PEER_OPERATOR_DEFAULTS=tuned: pino's
// asynchronous destination, a line with our access line's fields).
import { join } from 'node:path';
import { autocannonRun, cpuUsPerRequest } from '../lib/load.mjs';
import { API_AUDIENCE, startAirportApi, startBenchStack, startPeerAirport } from '../lib/stack.mjs';
import { repoRoot, stack, startProcess } from '../lib/services.mjs';
import { mean, median, printTable } from '../lib/table.mjs';

export const description = 'GET /airportName with one repeated valid token vs a bare Express 5 app (same lookup) and vs Express 5 + express-oauth2-jwt-bearer (peer); WEB_CONCURRENCY=2 scaling';

const PEER = 'peer: Express 5 + express-oauth2-jwt-bearer';
const PEER_WITH_DEFAULTS = 'peer + request id, access line, histogram';
const PEER_WITH_DEFAULTS_TUNED = 'peer + the same, tuned (async lines, our fields)';

export async function run(ctx) {
  const s = await startBenchStack({ airport: true });
  const extra = [];
  try {
    const { access_token: token } = await stack.clientCredentialsToken(s.authUrl, s.tenant.m2mClientId, s.tenant.m2mClientSecret, API_AUDIENCE);
    const bare = await startProcess({ name: 'bare-express', script: join(repoRoot, 'bench', 'lib', 'bare-airport.mjs'), port: await stack.freePort(), logDir: s.dir });
    extra.push(bare);
    // The peer in production mode with its documented setup, auth({ issuerBaseURL, audience }),
    // then with the per-request record (PEER_OPERATOR_DEFAULTS, lib/peer-airport.mjs).
    const peer = await startPeerAirport(s);
    const peerWithDefaults = await startPeerAirport(s, { name: 'peer-airport-defaults', operatorDefaults: '1' });
    const peerWithDefaultsTuned = await startPeerAirport(s, { name: 'peer-airport-defaults-tuned', operatorDefaults: 'tuned' });
    extra.push(peer, peerWithDefaults, peerWithDefaultsTuned);
    const clustered = await startAirportApi(s, { env: { WEB_CONCURRENCY: '2' } });
    extra.push(clustered);
    const kitEnv = { NODE_ENV: 'production', LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info' };
    const kitApp = await startProcess({ name: 'kit-express', script: join(repoRoot, 'bench', 'lib', 'kit-airport.mjs'), port: await stack.freePort(), logDir: s.dir, env: kitEnv });
    extra.push(kitApp);
    const baseTree = process.env.BENCH_AIRPORT_BASE;
    const base = [];
    if (baseTree) {
      const baseApi = await startAirportApi(s, { name: 'airport-api-base', script: join(baseTree, 'services', 'airport-api', 'dist', 'main.js') });
      const baseKit = await startProcess({ name: 'kit-express-base', script: join(repoRoot, 'bench', 'lib', 'kit-airport.mjs'), port: await stack.freePort(), logDir: s.dir, env: { ...kitEnv, KIT_TREE: baseTree } });
      extra.push(baseApi, baseKit);
      base.push(['Express 5 + service kit, base tree', baseKit, false], ['airport-api WEB_CONCURRENCY=1, base tree', baseApi, true]);
    }
    const path = '/airportName?iataCode=SFO';
    const load = (target, authorized) =>
      autocannonRun(
        {
          url: `${target.url}${path}`,
          headers: authorized ? { authorization: `Bearer ${token}` } : {},
          connections: ctx.connections,
          durationSec: ctx.durationSec,
          warmupSec: ctx.warmupSec,
          // BENCH_RATE=<req/s>: the same fixed load for every target (compare cpuUsPerReq, not rps).
          ...(process.env.BENCH_RATE ? { overallRate: Number(process.env.BENCH_RATE) } : {}),
        },
        { workDir: s.dir, watch: [target] },
      );

    const rows = [];
    for (let round = 1; round <= ctx.rounds; round++) {
      // With a base tree, its rows go first in even rounds: neither tree always runs first.
      const ours = [
        ['Express 5 + service kit (no auth)', kitApp, false],
        ['airport-api WEB_CONCURRENCY=1', s.airportApi, true],
      ];
      for (const [label, target, authorized] of [
        ['bare Express 5 (no auth)', bare, false],
        ...(round % 2 === 0 ? [...base, ...ours] : [...ours, ...base]),
        [PEER, peer, true],
        [PEER_WITH_DEFAULTS, peerWithDefaults, true],
        [PEER_WITH_DEFAULTS_TUNED, peerWithDefaultsTuned, true],
        ['airport-api WEB_CONCURRENCY=2', clustered, true],
      ]) {
        ctx.log(`airport: round ${round}, ${label}`);
        const r = await load(target, authorized);
        rows.push({ round, target: label, rps: r.rps, p50Ms: r.p50Ms, p99Ms: r.p99Ms, rssPeakMb: r.rss[target.name].peakMb, cpuUsPerReq: cpuUsPerRequest(r, target.name) });
      }
    }
    const rpsOf = (label) => mean(rows.filter((r) => r.target === label).map((r) => r.rps));
    const bareRps = rpsOf('bare Express 5 (no auth)');
    const apiRps = rpsOf('airport-api WEB_CONCURRENCY=1');
    const clusteredRps = rpsOf('airport-api WEB_CONCURRENCY=2');
    const peerRps = rpsOf(PEER);
    const kitRps = rpsOf('Express 5 + service kit (no auth)');
    const cpuOf = (label) => mean(rows.filter((r) => r.target === label).map((r) => r.cpuUsPerReq));
    // Each round's targets ran minutes apart at most: the median of the rounds' own ratios is what a
    // noisy machine (a neighbour taking the CPU for a round) moves least.
    const roundRatio = (a, b) =>
      median([...new Set(rows.map((r) => r.round))].map((round) => rows.find((r) => r.round === round && r.target === a).rps / rows.find((r) => r.round === round && r.target === b).rps));
    printTable('airport: requests per second (each row one run)', rows);
    const summary = {
      bareRps,
      apiRps,
      ratio: apiRps / bareRps,
      target: 0.85,
      met: apiRps / bareRps >= 0.85,
      ratioMedianOfRounds: roundRatio('airport-api WEB_CONCURRENCY=1', 'bare Express 5 (no auth)'),
      peerRps,
      oursPerPeer: apiRps / peerRps,
      oursPerPeerMedianOfRounds: roundRatio('airport-api WEB_CONCURRENCY=1', PEER),
      peerTarget: 1.5,
      peerMet: apiRps / peerRps >= 1.5,
      peerWithDefaultsRps: rpsOf(PEER_WITH_DEFAULTS),
      oursPerPeerWithDefaults: apiRps / rpsOf(PEER_WITH_DEFAULTS),
      oursPerPeerWithDefaultsMedianOfRounds: roundRatio('airport-api WEB_CONCURRENCY=1', PEER_WITH_DEFAULTS),
      oursPerPeerWithDefaultsTuned: apiRps / rpsOf(PEER_WITH_DEFAULTS_TUNED),
      oursPerPeerWithDefaultsTunedMedianOfRounds: roundRatio('airport-api WEB_CONCURRENCY=1', PEER_WITH_DEFAULTS_TUNED),
      kitRps,
      kitPerBare: kitRps / bareRps,
      cpuUsPerReq: { bare: cpuOf('bare Express 5 (no auth)'), kit: cpuOf('Express 5 + service kit (no auth)'), api: cpuOf('airport-api WEB_CONCURRENCY=1'), peer: cpuOf(PEER), peerWithDefaults: cpuOf(PEER_WITH_DEFAULTS), peerWithDefaultsTuned: cpuOf(PEER_WITH_DEFAULTS_TUNED) },
      ...(baseTree ? { baseApiRps: rpsOf('airport-api WEB_CONCURRENCY=1, base tree'), baseKitRps: rpsOf('Express 5 + service kit, base tree'), baseCpuUsPerReq: { kit: cpuOf('Express 5 + service kit, base tree'), api: cpuOf('airport-api WEB_CONCURRENCY=1, base tree') } } : {}),
      webConcurrency2Rps: clusteredRps,
      scalingFactor: clusteredRps / apiRps,
    };
    printTable('airport: summary', [summary]);
    return { summary, runs: rows };
  } finally {
    for (const p of extra) await p.stop();
    await s.stop();
  }
}
