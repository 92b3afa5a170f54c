import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/*
 * Ports for services a test or a script starts as child processes (their URL, AUTH_URL included,
 * is configured before they listen, so they cannot listen on port 0 and report it).
 *
 * A port the OS hands out for `listen(0)` comes from the ephemeral range, the same range every
 * outgoing connection's local port comes from: between closing the probe and the child's
 * listen, a connection of any process (a PostgreSQL client, a browser) may take it, and the
 * child fails with EADDRINUSE. So the ports come from below that range, each jest worker from a
 * block of its own, so two workers (separate processes) never pick the same port either.
 */

const BLOCK_SIZE = 400;
const BLOCKS = 24;

/** The first port of the OS's ephemeral range (Linux: net.ipv4.ip_local_port_range; else IANA's 49152). */
function ephemeralRangeStart(): number {
  try {
    const first = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(first) && first > BLOCK_SIZE * BLOCKS + 1024) return first;
  } catch {
    // not Linux
  }
  return 49152;
}

const rangeEnd = ephemeralRangeStart();
const rangeStart = rangeEnd - BLOCK_SIZE * BLOCKS;
// JEST_WORKER_ID is 1, 2, ... in each worker; a script outside jest uses block 0. Where in its
// block a process starts is random, so runs one after another do not reuse the same ports.
const block = Number(process.env.JEST_WORKER_ID ?? 0) % BLOCKS;
let offset = Math.floor(Math.random() * BLOCK_SIZE);

/** A port nothing listens on right now, below the ephemeral range, in this process's own block. */
export async function freePort(): Promise<number> {
  for (let tried = 0; tried < BLOCK_SIZE; tried += 1) {
    const port = rangeStart + block * BLOCK_SIZE + offset;
    offset = (offset + 1) % BLOCK_SIZE;
    if (!(await isPortInUse(port))) return port;
  }
  throw new Error(`no free port in ${rangeStart + block * BLOCK_SIZE}-${rangeStart + (block + 1) * BLOCK_SIZE - 1}`);
}

/** Whether something already listens on a port of this machine. */
export function isPortInUse(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(true));
    server.listen(port, host, () => server.close(() => resolve(false)));
  });
}
