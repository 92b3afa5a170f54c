import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const REPO = join(__dirname, '..', '..');
const DEPCRUISE = join(REPO, 'node_modules', '.bin', 'depcruise');

/** Runs the repository's import rules (as `pnpm lint` does) over a small tree of its own. */
function cruise(files: Record<string, string>): { status: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'smsauth-layering-'));
  try {
    cpSync(join(REPO, '.dependency-cruiser.cjs'), join(dir, '.dependency-cruiser.cjs'));
    cpSync(join(REPO, 'tsconfig.base.json'), join(dir, 'tsconfig.base.json'));
    for (const top of ['services', 'packages']) mkdirSync(join(dir, top));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    const run = spawnSync(DEPCRUISE, ['services', 'packages', '--config', '.dependency-cruiser.cjs', '--output-type', 'err-long'], {
      cwd: dir,
      encoding: 'utf8',
    });
    return { status: run.status, output: `${run.stdout}${run.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const layeredIdentity = {
  'services/identity/src/config.ts': "import { limit } from './domain/limits';\nexport const config = { limit };\n",
  'services/identity/src/app.ts': "import { config } from './config';\nimport { send } from './delivery/client';\nimport { route } from './routes/start';\nexport const app = [config, send, route];\n",
  'services/identity/src/routes/start.ts': "import { start } from '../domain/start';\nexport const route = start;\n",
  'services/identity/src/domain/start.ts': "import type { SmsGateway } from './sms-gateway';\nimport { save } from '../store/codes';\nexport const start = (gateway: SmsGateway) => { save(); return gateway; };\n",
  'services/identity/src/domain/sms-gateway.ts': 'export interface SmsGateway { send(): void }\n',
  'services/identity/src/domain/limits.ts': 'export const limit = 3;\n',
  'services/identity/src/delivery/client.ts': "import type { SmsGateway } from '../domain/sms-gateway';\nexport const send: SmsGateway = { send: () => undefined };\n",
  'services/identity/src/store/codes.ts': 'export const save = (maxAttempts = 3) => maxAttempts;\n',
};

describe('import rules (pnpm lint)', () => {
  it('accept a service whose arrows point down: app, routes, domain, store, with the adapter implementing a domain port', () => {
    const { status, output } = cruise(layeredIdentity);
    expect(output).toMatch(/no dependency violations found/);
    expect(status).toBe(0);
  });

  it('refuse a store that imports the domain, naming the rule and what to do instead', () => {
    const { status, output } = cruise({
      ...layeredIdentity,
      'services/identity/src/store/codes.ts': "import { limit } from '../domain/limits';\nexport const save = () => limit;\n",
    });
    expect(status).not.toBe(0);
    expect(output).toContain('identity: store stays below the domain: services/identity/src/store/codes.ts → services/identity/src/domain/limits.ts');
    expect(output).toMatch(/pass\s+limits\s+in\s+as\s+parameters/);
  });

  it('refuse a domain that imports an adapter or the configuration', () => {
    const { status, output } = cruise({
      ...layeredIdentity,
      'services/identity/src/domain/start.ts': "import { send } from '../delivery/client';\nimport { config } from '../config';\nexport const start = () => [send, config];\n",
    });
    expect(status).not.toBe(0);
    expect(output).toContain('identity: the domain declares its ports: services/identity/src/domain/start.ts → services/identity/src/delivery/client.ts');
    expect(output).toContain('identity: the domain declares its ports: services/identity/src/domain/start.ts → services/identity/src/config.ts');
  });

  it('refuse a route that calls the store itself, and accept one that only names its types to hand it to the domain', () => {
    const refused = cruise({
      ...layeredIdentity,
      'services/identity/src/routes/start.ts': "import { save } from '../store/codes';\nexport const route = save;\n",
    });
    expect(refused.status).not.toBe(0);
    expect(refused.output).toContain('identity: routes reach the store only through the domain: services/identity/src/routes/start.ts → services/identity/src/store/codes.ts');
    const accepted = cruise({
      ...layeredIdentity,
      'services/identity/src/store/index.ts': 'export interface Store { save(): void }\n',
      'services/identity/src/routes/start.ts': "import type { Store } from '../store';\nimport { start } from '../domain/start';\nexport const route = (store: Store) => [start, store];\n",
    });
    expect(accepted.output).toMatch(/no dependency violations found/);
    expect(accepted.status).toBe(0);
  });

  it('refuse a delivery gateway provider that reads the whole configuration', () => {
    const { status, output } = cruise({
      'services/sms-delivery-gateway/src/config.ts': "import { outbox } from './providers/outbox';\nexport const config = { outbox };\n",
      'services/sms-delivery-gateway/src/providers/outbox.ts': "import { config } from '../config';\nexport const outbox = () => config;\n",
    });
    expect(status).not.toBe(0);
    expect(output).toContain('sms-delivery-gateway: adapters implement ports, they do not call up');
    expect(output).toMatch(/error no-circular/);
  });

  it('refuse one service importing another, and production code importing test support', () => {
    const { status, output } = cruise({
      'services/airport-api/src/app.ts': "import { start } from '../../identity/src/domain/start';\nimport { stub } from '../../../packages/test-support/src/stub';\nexport const app = [start, stub];\n",
      'services/identity/src/domain/start.ts': 'export const start = 1;\n',
      'packages/test-support/src/stub.ts': 'export const stub = 1;\n',
    });
    expect(status).not.toBe(0);
    expect(output).toContain('error services talk only over HTTP: services/airport-api/src/app.ts → services/identity/src/domain/start.ts');
    expect(output).toContain('error no test code in production code: services/airport-api/src/app.ts → packages/test-support/src/stub.ts');
  });
});
