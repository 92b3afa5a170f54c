import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const REPO = join(__dirname, '..', '..');
const SCRIPT = 'scripts/licenses/third-party-notices.mjs';

/** What the script would write today: it lists the installed production dependencies with `pnpm licenses list` (offline). */
function regenerate(): string {
  const run = spawnSync(process.execPath, [join(REPO, SCRIPT), '--stdout'], { cwd: REPO, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`${SCRIPT} failed (${run.status ?? run.signal}): ${run.stderr}`);
  return run.stdout;
}

/** The licence column of the package table. */
const licencesOf = (text: string) =>
  text
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| Package '))
    .map((line) => line.split(' | ')[2] ?? '');

describe('THIRD-PARTY-NOTICES.md, generated from what the images ship', () => {
  const generated = regenerate();

  it(`is what ${SCRIPT} writes today (after a dependency change, run \`node ${SCRIPT}\` and commit the file)`, () => {
    const committed = readFileSync(join(REPO, 'THIRD-PARTY-NOTICES.md'), 'utf8');
    if (committed !== generated) {
      const lines = { committed: committed.split('\n'), generated: generated.split('\n') };
      const differing = lines.generated.findIndex((line, index) => line !== lines.committed[index]);
      const first = differing === -1 ? lines.generated.length : differing;
      throw new Error(
        `THIRD-PARTY-NOTICES.md is stale: run \`node ${SCRIPT}\` and commit the result.\n` +
          `First difference, line ${first + 1}:\n  committed: ${lines.committed[first] ?? '(end of file)'}\n  generated: ${lines.generated[first] ?? '(end of file)'}`,
      );
    }
  });

  it('lists the dependencies of each image, those of the workspace packages it uses included', () => {
    expect(generated).toMatch(/^\| express \| [\d.]+ \| MIT \| <https:\/\/github\.com\/expressjs\/express> \| identity, sms-delivery-gateway, airport-api \|$/m);
    expect(generated).toMatch(/^\| @electric-sql\/pglite \| [\d.]+ \| Apache-2\.0 \| .* \| identity \|$/m); // identity's own
    expect(generated).toMatch(/^\| pino \| /m); // through @smsauth/service-kit
    expect(generated).toMatch(/^\| jwks-rsa \| .* \| airport-api \|$/m); // through @smsauth/api-gateway
    expect(generated).toMatch(/^\| preact \| .* \| identity \|$/m); // through @smsauth/console
    expect(generated).not.toMatch(/^\| (jest|typescript|fast-check|@smsauth\/[\w-]+) \|/m); // dev and test tools, the workspace itself
  });

  it('holds only licences that let the images be distributed under Apache-2.0 (a new one needs a look before it is added here)', () => {
    const allowed = ['MIT', 'ISC', 'Apache-2.0', 'BSD-2-Clause', 'BSD-3-Clause', '0BSD', 'BlueOak-1.0.0', '(BSD-3-Clause OR GPL-2.0)'];
    expect([...new Set(licencesOf(generated))].filter((licence) => !allowed.includes(licence))).toEqual([]);
  });
});
