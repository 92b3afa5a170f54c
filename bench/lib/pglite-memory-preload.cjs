// Loaded into identity with `node --require` by pglite-memory.mjs (never by the service itself).
// PGLITE_MEMORY_START_PARAMS (a JSON array, e.g. ["-c","shared_buffers=16MB"]) is added to the
// start parameters the service's own openPglite passes, so settings can be compared on the
// built service without rebuilding it; "replace" in PGLITE_MEMORY_MODE drops the service's own
// startParams first (to measure PGlite's defaults after a setting has landed in src).
// PGLITE_MEMORY_LOG names a JSON-lines file that gets, every 500 ms, the size of the WebAssembly
// memory and the process's own memory figures, and once the settings in effect.
const { appendFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const { join } = require('node:path');

const identityRequire = createRequire(join(__dirname, '..', '..', 'services', 'identity', 'package.json'));
const { PGlite } = identityRequire('@electric-sql/pglite');
const extra = JSON.parse(process.env.PGLITE_MEMORY_START_PARAMS || '[]');
const replace = process.env.PGLITE_MEMORY_MODE === 'replace';
const logFile = process.env.PGLITE_MEMORY_LOG;
const log = (entry) => logFile && appendFileSync(logFile, `${JSON.stringify({ t: Date.now(), ...entry })}\n`);
const SHOWN = ['shared_buffers', 'wal_buffers', 'temp_buffers', 'work_mem', 'maintenance_work_mem', 'max_connections'];

const create = PGlite.create.bind(PGlite);
PGlite.create = async (dataDirOrOptions, maybeOptions) => {
  const options = typeof dataDirOrOptions === 'string' || dataDirOrOptions === undefined ? { dataDir: dataDirOrOptions, ...(maybeOptions ?? {}) } : { ...dataDirOrOptions };
  // PGlite itself calls create() for the initdb instance (noInitDb): leave that one alone.
  if (options.noInitDb) return create(options);
  const base = replace ? PGlite.defaultStartParams : options.startParams ?? PGlite.defaultStartParams;
  const db = await create({ ...options, startParams: [...base, ...extra] });
  const settings = {};
  for (const name of SHOWN) settings[name] = (await db.query(`SHOW ${name}`)).rows[0][name];
  log({ settings, startParams: [...base, ...extra] });
  const timer = setInterval(() => {
    const m = process.memoryUsage();
    const mb = (n) => Math.round((n / 2 ** 20) * 10) / 10;
    log({ wasmMb: mb(db.mod.HEAPU8.byteLength), rssMb: mb(m.rss), heapUsedMb: mb(m.heapUsed), externalMb: mb(m.external), arrayBuffersMb: mb(m.arrayBuffers) });
  }, 500);
  timer.unref();
  return db;
};
