import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { managementOperations, managementRouter, managementRoutesOf, type ManagementDependencies } from '../../services/identity/src/routes/management';
import { buildIdentityOpenApiDocument } from '../../services/identity/src/routes/openapi';

const REPO = join(__dirname, '..', '..');
const CONSOLE = join(REPO, 'packages', 'console');

describe("the console's API client, generated from identity's OpenAPI document", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'console-api-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is what `pnpm console:api` generates from the operations today (run `pnpm console:api` after changing an operation)', () => {
    // The document as identity builds it, from the source (as the docs test does), every optional route on.
    const operations = managementOperations({} as ManagementDependencies);
    const document = buildIdentityOpenApiDocument({ version: '0', managementRoutes: managementRoutesOf(managementRouter({} as ManagementDependencies, operations)), managementOperations: operations });
    const file = join(dir, 'identity-openapi.json');
    writeFileSync(file, JSON.stringify(document));
    // Exits 1 (and the test fails) when the committed packages/console/src/generated/identity-api.ts differs.
    expect(() => execFileSync(process.execPath, [join(CONSOLE, 'scripts', 'generate-api.mjs'), '--check', '--document', file], { stdio: 'pipe' })).not.toThrow();
  });

  it('makes the type check fail on an operation, method or parameter the document does not have', () => {
    const api = join(CONSOLE, 'src', 'api').replace(/\\/g, '/');
    const lines = [
      `import { identityApi, ok } from '${api}';`,
      `const api = identityApi('https://identity.example.com');`,
      `export const known = ok(api.GET('/api/v2/logs', { params: { query: { q: 'type:fp', page: 0, per_page: 50, include_totals: 'true' } } }));`,
      `export const unknownPath = api.GET('/api/v2/no-such-operation');`,
      `export const unknownMethod = api.DELETE('/api/v2/stats/sms');`,
      `export const unknownParameter = api.GET('/api/v2/logs', { params: { query: { per_pages: 50 } } });`,
      `export const missingPathParameter = api.GET('/api/v2/users/{id}');`,
    ];
    const probe = join(dir, 'probe.ts');
    writeFileSync(probe, lines.join('\n'));
    const config = ts.getParsedCommandLineOfConfigFile(join(CONSOLE, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined })!;
    const program = ts.createProgram([probe], { ...config.options, types: [] });
    const errorLines = ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file?.fileName === probe)
      .map((d) => d.file!.getLineAndCharacterOfPosition(d.start!).line + 1);
    // Lines 4 to 7 are each refused; line 3, an operation the document has, is not.
    expect([...new Set(errorLines)].sort()).toEqual([4, 5, 6, 7]);
  }, 60_000);
});
