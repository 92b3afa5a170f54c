import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const REPO = join(__dirname, '..', '..');
const read = (path: string) => readFileSync(join(REPO, path), 'utf8');

describe('the licence', () => {
  it('LICENSE is the Apache License 2.0, word for word as apache.org publishes it (LICENSE-2.0.txt)', () => {
    const sha256 = createHash('sha256').update(readFileSync(join(REPO, 'LICENSE'))).digest('hex');
    expect(sha256).toBe('cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30');
  });

  it('NOTICE carries the copyright line', () => {
    expect(read('NOTICE')).toContain('Copyright 2026 The smsauth authors');
  });

  it('every package.json of the workspace says Apache-2.0', () => {
    // The `packages:` list of pnpm-workspace.yaml: its indented `- glob` lines up to the next key.
    const block = /^packages:\n((?: +- .*\n)+)/m.exec(read('pnpm-workspace.yaml'))?.[1] ?? '';
    const globs = [...block.matchAll(/- (\S+)/g)].map((match) => match[1]!);
    const manifests = ['package.json'];
    for (const glob of globs) {
      if (glob.endsWith('/*')) {
        const parent = glob.slice(0, -2);
        for (const entry of readdirSync(join(REPO, parent), { withFileTypes: true })) {
          if (entry.isDirectory()) manifests.push(`${parent}/${entry.name}/package.json`);
        }
      } else {
        manifests.push(`${glob}/package.json`);
      }
    }
    const licences = Object.fromEntries(manifests.map((path) => [path, (JSON.parse(read(path)) as { license?: string }).license]));
    expect(manifests.length).toBeGreaterThanOrEqual(16);
    for (const [path, licence] of Object.entries(licences)) expect([path, licence]).toEqual([path, 'Apache-2.0']);
  });
});
