// The previous release, built beside this checkout, so the upgrade scenario can run its replicas.
// Which commit it is: UPGRADE_FROM, else scripts/chaos/previous-release (a commit id, updated when
// a release ships). Built once per commit into node_modules/.cache/smsauth/releases/<commit>/
// (only the packages the services need: no console, no tests).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const SERVICES = ['@smsauth/identity', '@smsauth/sms-delivery-gateway'];

export function previousReleaseCommit(repoRoot) {
  const named = process.env.UPGRADE_FROM ?? readFileSync(join(repoRoot, 'scripts', 'chaos', 'previous-release'), 'utf8').split('\n').find((line) => line.trim() && !line.startsWith('#'));
  const git = (...args) => execFileSync('git', ['-C', repoRoot, ...args], { encoding: 'utf8' }).trim();
  try {
    return git('rev-parse', '--verify', `${named.trim()}^{commit}`);
  } catch {
    // A shallow clone lacks it: fetch that one commit from where this clone came from.
    try {
      git('fetch', '--quiet', '--depth=1', 'origin', named.trim());
      return git('rev-parse', '--verify', `${named.trim()}^{commit}`);
    } catch (err) {
      throw new Error(`the previous release ${named.trim()} is not in this clone and could not be fetched from origin (${err.message.split('\n')[0]})`);
    }
  }
}

/** Builds `commit`'s identity and gateway (once); returns the tree's root. Logs to `log`. */
export function buildRelease(repoRoot, commit, log) {
  const root = join(repoRoot, 'node_modules', '.cache', 'smsauth', 'releases', commit);
  const done = join(root, '.built');
  if (existsSync(done)) return root;
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  const run = (command, args, cwd = root) => execFileSync(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  log(`building the previous release ${commit.slice(0, 12)} (identity and gateway) in ${root}`);
  execFileSync('bash', ['-c', `git -C "${repoRoot}" archive --format=tar ${commit} | tar -x -C "${root}"`]);
  const filters = SERVICES.flatMap((name) => ['--filter', `${name}...`]);
  try {
    // The store usually holds every package already; the registry only when it does not.
    run('pnpm', ['install', '--frozen-lockfile', '--offline', '--ignore-scripts', ...filters]);
  } catch {
    run('pnpm', ['install', '--frozen-lockfile', '--ignore-scripts', ...filters]);
  }
  run('pnpm', [...filters, '--filter', '!@smsauth/console', 'run', 'build']);
  writeFileSync(done, `${new Date().toISOString()}\n`);
  return root;
}
