// The airport benchmark's baseline: a bare Express 5 app answering GET /airportName with the
// same Map lookup and the same answer function as the airport API, and nothing else (no auth,
// no logs, no metrics, no request ids).
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
const requireFromAirport = createRequire(join(root, 'services', 'airport-api', 'package.json'));
const express = requireFromAirport('express');
const { loadAirportNames } = requireFromAirport(join(root, 'services', 'airport-api', 'dist', 'domain', 'airports.js'));
const { answerAirportName } = requireFromAirport(join(root, 'services', 'airport-api', 'dist', 'domain', 'iata.js'));

const names = loadAirportNames();
const app = express();
app.get('/readyz', (_req, res) => res.json({ status: 'ok' }));
app.get('/airportName', (req, res) => {
  const { status, text } = answerAirportName(names, req.query.iataCode);
  res.status(status).type('text/plain').send(text);
});
const server = app.listen(Number(process.env.PORT), '127.0.0.1');
server.keepAliveTimeout = 65_000;
process.on('SIGTERM', () => server.close(() => process.exit(0)));
