// The airport benchmarks' peer: what a user would install instead of the airport API's gateway.
// Express 5 with Auth0's express-oauth2-jwt-bearer (`auth({ issuerBaseURL, audience })`, its
// documented setup) in front of the same Map lookup and answer function as the airport API
// (as in bare-airport.mjs), checking the same tokens against the identity service the
// benchmark started: discovery and JWKS come from AUTH_URL.
// env: PORT, AUTH_URL, API_AUDIENCE (comma-separated audiences, as the airport API takes them),
// PEER_AUTH_MODE=discovery (issuerBaseURL, the default) or jwks (jwksUri + issuer).
// PEER_OPERATOR_DEFAULTS=1: the peer with what the airport API gives an operator by default, added
// the way their documentation shows: pino-http (its README's request id recipe: the caller's
// x-request-id or a new UUID, echoed; one access line per request at info, the Authorization
// header redacted) and a prom-client histogram of request durations by method, route and status
// (its `startTimer`), /metrics serving it. What a user of the peer would add to get the same
// per-request record; pino-http's line is richer than ours (request and response headers) and
// pino's default stdout writes each line synchronously (ours batches them).
// PEER_OPERATOR_DEFAULTS=tuned: the same, tuned to ours: pino's asynchronous destination and a line
// with our access line's fields only (id, method, URL, address, status, time).
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { auth } from 'express-oauth2-jwt-bearer';
import pinoHttp from 'pino-http';

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
const requireFromAirport = createRequire(join(root, 'services', 'airport-api', 'package.json'));
const express = requireFromAirport('express');
const { loadAirportNames } = requireFromAirport(join(root, 'services', 'airport-api', 'dist', 'domain', 'airports.js'));
const { answerAirportName } = requireFromAirport(join(root, 'services', 'airport-api', 'dist', 'domain', 'iata.js'));

const authUrl = process.env.AUTH_URL;
const audience = process.env.API_AUDIENCE.split(',');
const options =
  process.env.PEER_AUTH_MODE === 'jwks'
    ? { jwksUri: `${authUrl}/.well-known/jwks.json`, issuer: process.env.PEER_ISSUER ?? `${authUrl}/`, audience, tokenSigningAlg: 'RS256' }
    : { issuerBaseURL: authUrl, audience };

const names = loadAirportNames();
const app = express();
app.get('/readyz', (_req, res) => res.json({ status: 'ok' }));
if (process.env.PEER_OPERATOR_DEFAULTS === '1' || process.env.PEER_OPERATOR_DEFAULTS === 'tuned') {
  // prom-client and pino as the repository has them (the service kit's dependencies).
  const requireFromKit = createRequire(join(root, 'packages', 'service-kit', 'package.json'));
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
  app.get('/metrics', async (_req, res) => res.type(registry.contentType).send(await registry.metrics()));
  const tuned = process.env.PEER_OPERATOR_DEFAULTS === 'tuned';
  app.use(
    pinoHttp({
      ...(tuned
        ? {
            logger: pino(pino.destination({ dest: 1, sync: false })),
            serializers: {
              req: (req) => ({ id: req.id, method: req.method, url: req.url, remoteAddress: req.remoteAddress }),
              res: (res) => ({ statusCode: res.statusCode }),
            },
          }
        : // pino-http logs the request's headers: the bearer token stays out (pino's redact), as ours never logs it.
          { redact: ['req.headers.authorization'] }),
      genReqId(req, res) {
        const existing = req.id ?? req.headers['x-request-id'];
        if (existing) return existing;
        const id = randomUUID();
        res.setHeader('X-Request-Id', id);
        return id;
      },
    }),
  );
  app.use((req, res, next) => {
    const end = duration.startTimer();
    res.on('finish', () => end({ method: req.method, route: req.route?.path ?? 'unmatched', status_code: res.statusCode }));
    next();
  });
}
app.get('/airportName', auth(options), (req, res) => {
  const { status, text } = answerAirportName(names, req.query.iataCode);
  res.status(status).type('text/plain').send(text);
});
// Errors (401 and the like) as the library raises them, without Express's HTML page.
app.use((err, _req, res, _next) => {
  res.status(err.status ?? 500).set(err.headers ?? {}).json({ error: err.code ?? 'server_error', message: err.message });
});
const server = app.listen(Number(process.env.PORT), '127.0.0.1');
server.keepAliveTimeout = 65_000;
process.on('SIGTERM', () => server.close(() => process.exit(0)));
