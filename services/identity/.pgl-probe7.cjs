const { PGlite } = require('@electric-sql/pglite');
const fs = require('fs');
function report(label, db) {
  const wasmSize = db ? db.mod.HEAPU8.byteLength : -1;
  let cur, wasm = 0, anon = 0, other = 0;
  for (const l of fs.readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    const h = l.match(/^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/);
    if (h) cur = { size: parseInt(h[2],16)-parseInt(h[1],16), anon: !h[4] || h[4] === '[heap]' };
    else if (l.startsWith('Rss:')) { const kb = parseInt(l.split(/\s+/)[1]); if (cur.size === wasmSize) wasm += kb; else if (cur.anon) anon += kb; else other += kb; }
  }
  const m = process.memoryUsage();
  console.log(label.padEnd(28), 'rss', (m.rss/1048576|0), 'wasmResident', wasm/1024|0, 'of', wasmSize/1048576, 'otherAnon', anon/1024|0, 'files', other/1024|0, 'jsHeapTotal', m.heapTotal/1048576|0);
}
(async () => {
  const dir = process.argv[2];
  const db = await PGlite.create({ dataDir: dir, startParams: [...PGlite.defaultStartParams, ...JSON.parse(process.argv[3] || '[]')] });
  global.gc(); report('created', db);
  await db.exec('create table if not exists t (id serial primary key, a text, b timestamptz default now())');
  for (let i = 0; i < 20000; i++) await db.query('insert into t (a) values ($1)', ['x'.repeat(64) + i]);
  global.gc(); report('20k inserts', db);
  for (let i = 0; i < 20000; i++) await db.query('select * from t where id = $1', [i]);
  global.gc(); report('20k selects', db);
  await db.close(); global.gc(); report('closed');
})();
