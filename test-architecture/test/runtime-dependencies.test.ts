import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';

/**
 * What a service's or package's production code imports is in its own `dependencies`: the
 * images are built with `pnpm deploy --prod`, which installs nothing else, while the workspace
 * hoists every package, so a module missing there (a devDependency, another package's) passes
 * every other test and only the container fails to start. Type-only imports are left out.
 */

const ROOT = join(__dirname, '..', '..');
const SHIPPED = ['services/identity', 'services/sms-delivery-gateway', 'services/airport-api', 'packages/contracts', 'packages/service-kit', 'packages/api-gateway', 'packages/jose-rules'];
const BUILTIN = new Set(builtinModules);

/** The bare module names `text` loads at run time: import/export from, require(), import(). */
function runtimeImports(text: string): string[] {
  const patterns = [/^\s*(?:import|export)\s(?!type\b)[^'";]*?from\s+'([^'.][^']*)'/gm, /^\s*import\s+'([^'.][^']*)'/gm, /\brequire\('([^'.][^']*)'\)/g, /\bimport\('([^'.][^']*)'\)/g];
  return patterns.flatMap((pattern) => [...text.matchAll(pattern)].map((match) => match[1]!));
}

function packageName(specifier: string): string {
  return specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

describe('runtime dependencies of what the images ship', () => {
  it.each(SHIPPED)('%s imports at run time only what its package.json lists in dependencies', (dir) => {
    const pkg = JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    const declared = new Set(Object.keys(pkg.dependencies ?? {}));
    const missing = sourceFiles(join(ROOT, dir, 'src')).flatMap((file) =>
      runtimeImports(readFileSync(file, 'utf8'))
        .filter((specifier) => !specifier.startsWith('node:') && !BUILTIN.has(specifier) && !declared.has(packageName(specifier)))
        .map((specifier) => `${file.slice(ROOT.length + 1)}: ${specifier}`),
    );
    expect(missing).toEqual([]);
  });

  it('finds a module the dependencies do not list (the check can fail)', () => {
    expect(runtimeImports("import jwt from 'jsonwebtoken';\nimport type { X } from 'zod';\nconst a = require('ioredis');\nimport './local';").map(packageName)).toEqual(['jsonwebtoken', 'ioredis']);
  });
});
