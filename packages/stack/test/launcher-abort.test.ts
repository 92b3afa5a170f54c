import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, isPortInUse } from '../src/ports';
import { launchStack } from '../src/launcher';

jest.setTimeout(120_000);

async function portsInUse(ports: number[]): Promise<number[]> {
  const used = await Promise.all(ports.map((port) => isPortInUse(port)));
  return ports.filter((_, i) => used[i]);
}

describe('a stack aborted while it starts', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'smsauth-launcher-abort-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('stops the services already up, starts no more, and rejects', async () => {
    const ports = { identity: await freePort(), gateway: await freePort(), airport: await freePort(), demoApp: await freePort() };
    const launching = new AbortController();
    const launch = launchStack({ ports, dataDir, signal: launching.signal });
    // The gateway answers within a second; identity (PGlite, migrations) takes longer, and the
    // airport API waits for it: abort once the gateway listens, with identity still starting.
    while (!(await isPortInUse(ports.gateway))) await new Promise((resolve) => setTimeout(resolve, 50));
    launching.abort();

    await expect(launch).rejects.toThrow('the stack was stopped while it started');
    const all = [ports.identity, ports.gateway, ports.airport, ports.demoApp];
    expect(await portsInUse(all)).toEqual([]);
    // Nothing spawned late (the airport API would have followed identity).
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(await portsInUse(all)).toEqual([]);
  });
});
