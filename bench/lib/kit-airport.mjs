// The airport benchmark's middle row: the same lookup as bare-airport.mjs, served through the
// service kit's createServiceApp (request id, access line at LOG_LEVEL, metrics histogram,
// probes, body parser, error plumbing) but with no API gateway (no token check). Bare Express
// vs this row is the kit's per-request cost; this row vs the airport API is the gateway's.
// env: PORT, LOG_LEVEL; KIT_TREE: the repository whose built kit to use (default: this one).
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = process.env.KIT_TREE ?? join(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
const requireFromAirport = createRequire(join(root, 'services', 'airport-api', 'package.json'));
const kit = requireFromAirport('@smsauth/service-kit');
const { loadAirportNames } = requireFromAirport(join(root, 'services', 'airport-api', 'dist', 'domain', 'airports.js'));
const { answerAirportName } = requireFromAirport(join(root, 'services', 'airport-api', 'dist', 'domain', 'iata.js'));

const names = loadAirportNames();
const logger = kit.createLogger({ name: 'kit-airport', level: process.env.LOG_LEVEL ?? 'info' });
const { app } = kit.createServiceApp({
  name: 'kit-airport',
  logger,
  routes: (a) => {
    a.get('/airportName', (req, res) => {
      const { status, text } = answerAirportName(names, req.query.iataCode);
      res.status(status).type('text/plain').send(text);
    });
  },
});
const server = app.listen(Number(process.env.PORT), '127.0.0.1');
server.keepAliveTimeout = 65_000;
process.on('SIGTERM', () => server.close(() => process.exit(0)));
