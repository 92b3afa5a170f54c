// The load generator, in its own process: autocannon driven by a JSON spec file.
// spec: {url, method, headers, body, connections, durationSec, warmupSec?, tokensFile?, tokenOffset?, overallRate?}
// overallRate (requests/s over all connections) turns the closed loop into a fixed rate: every
// target then answers the same load, so CPU time per request compares without the batching
// that a saturated server gets (more requests per event-loop turn) and a contended one does not.
// With tokensFile, each request takes the next token of the file (round robin across all
// connections), sent as `authorization: Bearer <token>`.
// With bodiesFile (a JSON array of request bodies, e.g. one per single-use code), each request
// takes the next body, each used once; `amount` then stops after that many requests (instead
// of `durationSec`), and `rps` is that total over the run's duration as measured here (to the
// millisecond: autocannon's own `duration` counts whole seconds, which made a 1.4 s run of 1,000
// requests read as 1,000/s and a 1.6 s one as 500/s).
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

const spec = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const tokens = spec.tokensFile ? JSON.parse(readFileSync(spec.tokensFile, 'utf8')) : undefined;
const bodies = spec.bodiesFile ? JSON.parse(readFileSync(spec.bodiesFile, 'utf8')) : undefined;
let nextBody = 0;
// tokenOffset: where the previous run stopped, so a second run does not start on tokens still cached.
let next = spec.tokenOffset ?? 0;

function options(durationSec) {
  const base = {
    url: spec.url,
    method: spec.method ?? 'GET',
    headers: spec.headers ?? {},
    body: spec.body,
    connections: spec.connections ?? 16,
    pipelining: 1,
    ...(spec.amount ? { amount: spec.amount } : { duration: durationSec }),
    ...(spec.overallRate ? { overallRate: spec.overallRate } : {}),
  };
  if (tokens) {
    base.requests = [
      {
        setupRequest: (req) => {
          const token = tokens[next];
          next = (next + 1) % tokens.length;
          return { ...req, headers: { ...req.headers, authorization: `Bearer ${token}` } };
        },
      },
    ];
  }
  if (bodies) {
    base.requests = [{ setupRequest: (req) => ({ ...req, body: bodies[nextBody++] }) }];
  }
  return base;
}

const warmup = spec.warmupSec ? await autocannon(options(spec.warmupSec)) : undefined;
const started = performance.now();
const result = await autocannon(options(spec.durationSec));
const measuredSec = (performance.now() - started) / 1000;
process.stdout.write(
  `${JSON.stringify({
    rps: spec.amount ? result.requests.total / measuredSec : result.requests.average,
    total: result.requests.total,
    // With `total`: every request the server answered while its CPU time was sampled.
    warmupTotal: warmup?.requests.total ?? 0,
    durationSec: spec.amount ? measuredSec : result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    meanMs: result.latency.average,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes: result.statusCodeStats,
    nextTokenOffset: tokens ? next : undefined,
  })}\n`,
);
