#!/usr/bin/env node
// `pnpm start`'s build step: runs `pnpm build` only when a source, tsconfig, package manifest or
// the lockfile changed since the last build this script ran (or a package's dist/ is missing), so
// a second start on an unchanged tree skips the ten tsc runs that cost most of a warm start.
// `pnpm build` itself always builds; this script is only the shortcut for starting.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const stamp = join(root, 'node_modules', '.cache', 'smsauth-build-stamp');

/** Newest modification time below `dir` (every file, recursively), 0 when it does not exist. */
function newestBelow(dir) {
  if (!existsSync(dir)) return 0;
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestBelow(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function mtime(path) {
  return existsSync(path) ? statSync(path).mtimeMs : 0;
}

/** The packages `pnpm build` compiles: those built by tsc (tsconfig.build.json) or by Vite (the console). */
function builtPackages() {
  return ['packages', 'services'].flatMap((group) =>
    readdirSync(join(root, group), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && ['tsconfig.build.json', 'vite.config.ts'].some((file) => existsSync(join(root, group, entry.name, file))))
      .map((entry) => join(root, group, entry.name)),
  );
}

function staleReason() {
  const built = mtime(stamp);
  if (built === 0) return 'no build recorded yet';
  for (const file of ['pnpm-lock.yaml', 'tsconfig.base.json', 'package.json']) {
    if (mtime(join(root, file)) > built) return `${file} changed`;
  }
  for (const dir of builtPackages()) {
    const name = dir.slice(root.length + 1);
    if (!existsSync(join(dir, 'dist'))) return `${name}/dist is missing`;
    const inputs = Math.max(
      newestBelow(join(dir, 'src')),
      ...['package.json', 'tsconfig.build.json', 'tsconfig.json', 'vite.config.ts', 'index.html'].map((file) => mtime(join(dir, file))),
    );
    if (inputs > built) return `${name} changed`;
  }
  return undefined;
}

const reason = staleReason();
if (reason === undefined) {
  console.log('build: nothing changed since the last build, skipping it (pnpm build forces one)');
  process.exit(0);
}
console.log(`build: ${reason}, building`);
// The stamp is taken before the build starts: a file saved while it runs counts as changed next time.
const startedAt = new Date();
const result = spawnSync('pnpm', ['build'], { cwd: root, stdio: 'inherit' });
if (result.status !== 0) process.exit(result.status ?? 1);
mkdirSync(dirname(stamp), { recursive: true });
writeFileSync(stamp, `${startedAt.toISOString()}\n`);
utimesSync(stamp, startedAt, startedAt);
