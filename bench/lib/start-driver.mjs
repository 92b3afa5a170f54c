// POST /passwordless/start load in its own process. spec (JSON file): {authUrl, clientId,
// connection, numbersFile, offset, concurrency, durationSec?, count?}. Each start takes the next
// number of the file (from `offset`), so no number repeats within a run (the per-number start
// limit would refuse repeats). Closed loop: `concurrency` workers, each starting its next call
// when the last answered, for `durationSec` or until `count` starts. Prints one JSON line:
// {total, ok, statuses, durationSec, rps, next}.
import { readFileSync } from 'node:fs';

const spec = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const numbers = JSON.parse(readFileSync(spec.numbersFile, 'utf8'));
let next = spec.offset ?? 0;
const statuses = {};
let total = 0;
const startedAt = performance.now();
const endAt = spec.durationSec ? startedAt + spec.durationSec * 1000 : Infinity;
const limit = spec.count ?? Infinity;

async function worker() {
  while (performance.now() < endAt && total < limit) {
    total += 1;
    const phone = numbers[next++ % numbers.length];
    const res = await fetch(`${spec.authUrl}/passwordless/start`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: spec.clientId, connection: spec.connection, phone_number: phone, send: 'code' }),
    });
    await res.arrayBuffer();
    statuses[res.status] = (statuses[res.status] ?? 0) + 1;
  }
}

await Promise.all(Array.from({ length: spec.concurrency ?? 8 }, worker));
const durationSec = (performance.now() - startedAt) / 1000;
process.stdout.write(`${JSON.stringify({ total, ok: statuses[200] ?? 0, statuses, durationSec, rps: total / durationSec, next })}\n`);
