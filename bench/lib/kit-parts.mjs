// Variants of the airport lookup app that add the service kit's per-request work one part at a
// time, to split what the kit costs over bare Express (run by kit-parts-run.mjs). env: PORT, VARIANT:
// bare | idonly (request id) | closeonly (a 'close' listener) | plumb-warn (request id, clock,
// histogram: the kit's requestPlumbing at level warn, no access line) | plumb-info (the same with the
// access line) | plumb-noreg (plumb-info without default metrics) | full (createServiceApp) |
// full-noreg (createServiceApp without default metrics). KIT_TREE: the repository whose built kit
// to use (default: this one).
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
const root = process.env.KIT_TREE ?? join(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
const req = createRequire(`${root}/services/airport-api/package.json`);
const express = req('express');
const kit = req('@smsauth/service-kit');
const { Registry } = createRequire(`${root}/packages/service-kit/package.json`)('prom-client');
const { loadAirportNames } = req(`${root}/services/airport-api/dist/domain/airports.js`);
const { answerAirportName } = req(`${root}/services/airport-api/dist/domain/iata.js`);
const names = loadAirportNames();
const v = process.env.VARIANT;
const handler = (rq, res) => { const { status, text } = answerAirportName(names, rq.query.iataCode); res.status(status).type('text/plain').send(text); };
let app;
if (v === 'full' || v === 'full-noreg') {
  const logger = kit.createLogger({ name: 'x', level: 'info' });
  ({ app } = kit.createServiceApp({ name: 'x', logger, ...(v === 'full-noreg' ? { metrics: new Registry() } : {}), routes: (a) => a.get('/airportName', handler) }));
} else {
  app = express();
  if (v !== 'bare') { app.set('query parser', 'simple'); kit.parseQueryOnce(app); }
  if (v.startsWith('plumb')) {
    const logger = kit.createLogger({ name: 'x', level: v === 'plumb-warn' ? 'warn' : 'info' });
    const reg = v === 'plumb-noreg' ? new Registry() : kit.createMetricsRegistry('x');
    const options = { logger, redactUrl: kit.queryRedactor([]), quietPaths: ['/healthz'], recordDuration: kit.httpDurationRecorder(reg) };
    // A tree before the kit's single layer (KIT_TREE) exports the plumbing as a middleware.
    if (kit.requestPlumbing) { const begin = kit.requestPlumbing(app, options); app.use((rq, res, next) => { begin(rq, res); next(); }); }
    else app.use(kit.installRequestPlumbing(app, options));
  }
  if (v === 'idonly') app.use((rq, res, next) => { rq.id = kit.assignRequestId(rq, res); next(); });
  if (v === 'closeonly') { const f = function () {}; app.use((rq, res, next) => { res.on('close', f); next(); }); }
  app.get('/airportName', handler);
}
const server = app.listen(Number(process.env.PORT), '127.0.0.1');
server.keepAliveTimeout = 65_000;
process.on('SIGTERM', () => server.close(() => process.exit(0)));
