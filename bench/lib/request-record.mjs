// The per-request record ours keeps by default, added to a peer the way the libraries'
// documentation shows: pino-http (its README's request id recipe: the caller's x-request-id or a
// new UUID, echoed; one access line per request at info, the Authorization header redacted) and
// a prom-client histogram of request durations by method, route and status (its `startTimer`).
// pino-http's default line is richer than ours (request and response headers) and pino's default
// stdout writes each line synchronously (ours batches them); `tuned` gives it pino's asynchronous
// destination and our access line's fields only (id, method, URL, address, status, time).
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pinoHttp from 'pino-http';

// Not services.mjs's repoRoot: that module loads the stack launcher, which a peer must not carry.
const repoRoot = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..');

// prom-client and pino as the repository has them (the service kit's dependencies).
const requireFromKit = createRequire(join(repoRoot, 'packages', 'service-kit', 'package.json'));

/**
 * `record(req, res, next)`, a Node/Express middleware, and `metrics()` (the registry's text).
 * `routeOf(req)` names the route for the histogram once the answer is sent.
 */
export function requestRecord({ tuned = false, routeOf = (req) => req.url.split('?')[0] } = {}) {
  const { Histogram, Registry, collectDefaultMetrics } = requireFromKit('prom-client');
  const pino = requireFromKit('pino');
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration in seconds',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const log = pinoHttp({
    ...(tuned
      ? {
          logger: pino(pino.destination({ dest: 1, sync: false })),
          serializers: {
            req: (req) => ({ id: req.id, method: req.method, url: req.url, remoteAddress: req.remoteAddress }),
            res: (res) => ({ statusCode: res.statusCode }),
          },
        }
      : // pino-http logs the request's headers: credentials stay out (pino's redact), as ours never logs them.
        { redact: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'] }),
    genReqId(req, res) {
      const existing = req.id ?? req.headers['x-request-id'];
      if (existing) return existing;
      const id = randomUUID();
      res.setHeader('X-Request-Id', id);
      return id;
    },
  });
  const record = (req, res, next) => {
    const end = duration.startTimer();
    res.on('finish', () => end({ method: req.method, route: routeOf(req), status_code: res.statusCode }));
    log(req, res, next);
  };
  return { record, metrics: () => registry.metrics(), contentType: registry.contentType };
}
