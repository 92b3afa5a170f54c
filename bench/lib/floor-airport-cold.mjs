// The airport-cold benchmark's floor: the least a JWT-checking GET /airportName can do on
// Express 5 with a new token on every request. Per request exactly: split the bearer token,
// base64url-decode the header and the payload, JSON.parse both, and one RS256 crypto.verify on
// libuv's thread pool (node:crypto's verify with a callback, as the peer's jose does); the key a
// KeyObject parsed once at start from the identity service's JWKS, by kid. No structure or claim
// checks, no cache, no logs, no metrics, no request ids. Then the same Map lookup and answer as
// bare-airport.mjs. Ours vs this row is what the airport API's own work per cold token costs;
// this row vs the peer what express-oauth2-jwt-bearer adds to the same signature.
// env: PORT, AUTH_URL
import { createPublicKey, verify } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
const requireFromAirport = createRequire(join(root, 'services', 'airport-api', 'package.json'));
const express = requireFromAirport('express');
const { loadAirportNames } = requireFromAirport(join(root, 'services', 'airport-api', 'dist', 'domain', 'airports.js'));
const { answerAirportName } = requireFromAirport(join(root, 'services', 'airport-api', 'dist', 'domain', 'iata.js'));

const jwks = await (await fetch(`${process.env.AUTH_URL}/.well-known/jwks.json`)).json();
const keys = new Map(jwks.keys.map((jwk) => [jwk.kid, createPublicKey({ key: jwk, format: 'jwk' })]));

const names = loadAirportNames();
const app = express();
app.get('/readyz', (_req, res) => res.json({ status: 'ok' }));
app.get('/airportName', (req, res) => {
  const [headerSegment, payloadSegment, signatureSegment] = (req.headers.authorization ?? '').slice(7).split('.');
  let header;
  try {
    header = JSON.parse(Buffer.from(headerSegment ?? '', 'base64url').toString('utf8'));
    JSON.parse(Buffer.from(payloadSegment ?? '', 'base64url').toString('utf8'));
  } catch {
    return res.status(401).end();
  }
  const key = keys.get(header.kid);
  if (!key) return res.status(401).end();
  const input = Buffer.from(`${headerSegment}.${payloadSegment}`);
  verify('sha256', input, key, Buffer.from(signatureSegment ?? '', 'base64url'), (err, valid) => {
    if (err || !valid) return res.status(401).end();
    const { status, text } = answerAirportName(names, req.query.iataCode);
    res.status(status).type('text/plain').send(text);
  });
});
const server = app.listen(Number(process.env.PORT), '127.0.0.1');
server.keepAliveTimeout = 65_000;
process.on('SIGTERM', () => server.close(() => process.exit(0)));
