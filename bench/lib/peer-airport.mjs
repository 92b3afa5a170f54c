// The airport benchmarks' peer: what a user would install instead of the airport API's gateway.
// Express 5 with Auth0's express-oauth2-jwt-bearer (`auth({ issuerBaseURL, audience })`, its
// documented setup) in front of the same Map lookup and answer function as the airport API
// (as in bare-airport.mjs), checking the same tokens against the identity service the
// benchmark started: discovery and JWKS come from AUTH_URL.
// env: PORT, AUTH_URL, API_AUDIENCE (comma-separated audiences, as the airport API takes them),
// PEER_AUTH_MODE=discovery (issuerBaseURL, the default) or jwks (jwksUri + issuer).
// PEER_OPERATOR_DEFAULTS=1: the peer with what the airport API gives an operator by default, added
// the way their documentation shows (lib/request-record.mjs), /metrics serving the histogram.
// PEER_OPERATOR_DEFAULTS=tuned: the same, tuned to ours (request-record.mjs says how).
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { auth } from 'express-oauth2-jwt-bearer';
import { requestRecord } from './request-record.mjs';

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
  const { record, metrics, contentType } = requestRecord({ tuned: process.env.PEER_OPERATOR_DEFAULTS === 'tuned', routeOf: (req) => req.route?.path ?? 'unmatched' });
  app.get('/metrics', async (_req, res) => res.type(contentType).send(await metrics()));
  app.use(record);
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
