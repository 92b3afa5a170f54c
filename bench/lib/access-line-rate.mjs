// node bench/lib/access-line-rate.mjs [lines] [rounds]: the cost of one access line in process,
// the service kit's way (accessLineWriter: JSON text with pre-serialised constant parts) against
// pino given the line's object (what the kit did before), through the same logger (createLogger:
// the redaction hook included): into a sink that drops it (formatting alone), and into a file
// the way a service writes to stdout: before, pino's asynchronous destination (sonic-boom) given
// each line; after, the same destination given the lines in batches (batchedDestination). CPU µs
// per line (process.cpuUsage, every thread: the file writes run on the thread pool), alternated;
// the lines come 16 per event-loop turn, as 16 connections' answers do.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireFrom } from './services.mjs';

const requireFromAirport = requireFrom('services/airport-api');
const kit = requireFromAirport('@smsauth/service-kit');
const pino = requireFrom('packages/service-kit')('pino');

const LINES = Number(process.argv[2] ?? 200_000);
const ROUNDS = Number(process.argv[3] ?? 4);
const dir = mkdtempSync(join(tmpdir(), 'access-line-'));

function loggers(kind) {
  if (kind === 'sink') {
    const destination = { write: () => {} };
    return kit.createLogger({ name: 'airport-api', destination });
  }
  const file = pino.destination({ dest: join(dir, `${kind}-${process.hrtime.bigint()}.log`), sync: false });
  return kit.createLogger({ name: 'airport-api', destination: kind === 'batched file' ? kit.batchedDestination(file) : file, format: 'json' });
}

const fields = (i) => ['info', 'request completed', `0f8fad5b-d9cb-469f-a165-70867728${String(i % 10_000).padStart(4, '0')}`, 'GET', '/airportName?iataCode=SFO', '::ffff:127.0.0.1', 200, i % 7];

async function run(way, kind) {
  const logger = loggers(kind);
  const writer = kit.accessLineWriter(logger);
  const write =
    way === 'kit'
      ? (f) => writer(...f)
      : ([level, message, id, method, url, remoteAddress, statusCode, responseTime]) =>
          logger[level]({ req: { id, method, url, remoteAddress }, res: { statusCode }, responseTime }, message);
  const cpu = process.cpuUsage();
  // Bursts of 16 lines per turn, as 16 connections answer, so the asynchronous destination batches as it does under load.
  for (let i = 0; i < LINES; i += 16) {
    for (let j = i; j < i + 16; j++) write(fields(j));
    if (kind !== 'sink') await new Promise((resolve) => setImmediate(resolve));
  }
  if (kind !== 'sink') await new Promise((resolve) => logger.flush(resolve));
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / LINES;
}

const variants = [
  ['format only, before (pino given the object)', 'pino', 'sink'],
  ['format only, after (accessLineWriter)', 'kit', 'sink'],
  ['to a file, before (pino, a write per line)', 'pino', 'file'],
  ['to a file, after (accessLineWriter, batched)', 'kit', 'batched file'],
];
const results = Object.fromEntries(variants.map(([name]) => [name, []]));
for (let round = 1; round <= ROUNDS; round++) {
  for (const [name, way, kind] of round % 2 ? variants : [...variants].reverse()) results[name].push(await run(way, kind));
}
rmSync(dir, { recursive: true, force: true });
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
for (const [name, values] of Object.entries(results)) {
  console.log(`${name.padEnd(46)} median ${median(values).toFixed(2)} µs per line (rounds ${values.map((v) => v.toFixed(2)).join(', ')})`);
}
