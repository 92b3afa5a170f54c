#!/usr/bin/env node
// Writes THIRD-PARTY-NOTICES.md: every third-party package the three service images ship (the
// production dependencies of each service and of the workspace packages it depends on, as
// `pnpm deploy --prod` copies them into deploy/Dockerfile.*), with its version, licence and
// repository, and the NOTICE files those packages carry. The licences come from
// `pnpm licenses list --prod --json`, which reads the installed packages (no network).
//   node scripts/licenses/third-party-notices.mjs            write THIRD-PARTY-NOTICES.md
//   node scripts/licenses/third-party-notices.mjs --check    exit 1 when the committed file is stale
//   node scripts/licenses/third-party-notices.mjs --stdout   print what it would write
// test-architecture/test/third-party-notices.test.ts fails while the committed file is stale.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const OUTPUT = 'THIRD-PARTY-NOTICES.md';
const SCRIPT = 'node scripts/licenses/third-party-notices.mjs';
/** The services that become images (deploy/Dockerfile.<name>). */
const IMAGES = ['identity', 'sms-delivery-gateway', 'airport-api'];

const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));

/** The workspace packages a service may depend on, by name: packages/* and services/*. */
function workspacePackages() {
  const byName = new Map();
  for (const parent of ['packages', 'services']) {
    for (const entry of readdirSync(join(root, parent), { withFileTypes: true })) {
      const manifest = join(root, parent, entry.name, 'package.json');
      if (entry.isDirectory() && existsSync(manifest)) byName.set(readJson(manifest).name, readJson(manifest));
    }
  }
  return byName;
}

/** A service and the workspace packages it depends on in production, transitively (what `pnpm deploy --prod` injects). */
function productionClosure(service, workspace) {
  const names = new Set();
  const visit = (name) => {
    if (names.has(name)) return;
    names.add(name);
    const manifest = workspace.get(name);
    for (const [dependency, spec] of Object.entries({ ...manifest.dependencies, ...manifest.optionalDependencies })) {
      if (String(spec).startsWith('workspace:')) visit(dependency);
    }
  };
  visit(service);
  return [...names];
}

/** `pnpm licenses list --prod --json` for these workspace packages: licence -> [{name, versions, paths}]. */
function pnpmLicenses(packageNames) {
  const filters = packageNames.flatMap((name) => ['--filter', name]);
  try {
    const output = execFileSync('pnpm', [...filters, 'licenses', 'list', '--prod', '--json'], {
      cwd: root,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return JSON.parse(output);
  } catch (err) {
    const detail = err.stderr ? String(err.stderr).trim() : err.message;
    throw new Error(`pnpm licenses list failed (is pnpm on PATH, through corepack, and the workspace installed?): ${detail}`);
  }
}

/** A package.json `repository` as a browsable https URL, when it says where the code is. */
export function repositoryUrl(repository) {
  const raw = typeof repository === 'string' ? repository : repository?.url;
  if (typeof raw !== 'string' || raw.trim() === '') return undefined;
  let url = raw.trim();
  const hosts = { github: 'github.com', gitlab: 'gitlab.com', bitbucket: 'bitbucket.org' };
  const shorthand = /^(?:(github|gitlab|bitbucket):)?([\w.-]+\/[\w.-]+)$/.exec(url);
  if (shorthand) return `https://${hosts[shorthand[1] ?? 'github']}/${shorthand[2].replace(/\.git$/, '')}`;
  url = url.replace(/^git\+/, '').replace(/^git:\/\//, 'https://').replace(/^ssh:\/\/git@/, 'https://').replace(/^git@([^:]+):/, 'https://$1/');
  url = url.replace(/^http:\/\//, 'https://').replace(/\.git$/, '').replace(/\/$/, '');
  return /^https:\/\//.test(url) ? url : undefined;
}

const versionKey = (version) => version.split(/[.+-]/).map((part) => (/^\d+$/.test(part) ? part.padStart(8, '0') : part)).join('.');

/** Every third-party package of the images: one row per name and version, with the images that ship it. */
export function collectPackages() {
  const workspace = workspacePackages();
  const rows = new Map();
  for (const image of IMAGES) {
    const listed = pnpmLicenses(productionClosure(`@smsauth/${image}`, workspace));
    for (const [licence, packages] of Object.entries(listed)) {
      for (const pkg of packages) {
        pkg.versions.forEach((version, index) => {
          const key = `${pkg.name}@${version}`;
          if (!rows.has(key)) {
            const path = pkg.paths[index];
            const manifest = readJson(join(path, 'package.json'));
            const notices = readdirSync(path)
              .filter((file) => /^notice(\.(md|txt))?$/i.test(file))
              .map((file) => readFileSync(join(path, file), 'utf8').trim());
            rows.set(key, {
              name: pkg.name,
              version,
              licence: pkg.license ?? licence,
              repository: repositoryUrl(manifest.repository) ?? (typeof manifest.homepage === 'string' ? manifest.homepage : undefined),
              notices,
              images: new Set(),
            });
          }
          rows.get(key).images.add(image);
        });
      }
    }
  }
  return [...rows.values()].sort((a, b) => (a.name === b.name ? versionKey(a.version).localeCompare(versionKey(b.version)) : a.name < b.name ? -1 : 1));
}

const cell = (text) => String(text).replace(/\|/g, '\\|');

/** THIRD-PARTY-NOTICES.md for these packages. */
export function renderNotices(packages) {
  const withNotices = packages.filter((pkg) => pkg.notices.length > 0);
  return [
    '# Third-party notices',
    '',
    `<!-- Generated by \`${SCRIPT}\` from the production dependencies of the three services;`,
    '     do not edit. test-architecture/test/third-party-notices.test.ts fails while it is stale. -->',
    '',
    'smsauth itself is licensed under the Apache License 2.0: [LICENSE](LICENSE), [NOTICE](NOTICE).',
    '',
    `Its container images (\`deploy/Dockerfile.*\`) also ship these ${packages.length} third-party packages, the production`,
    'dependencies of the service and of the workspace packages (`@smsauth/*`, smsauth\'s own) it uses, each',
    'under its own licence. Each package\'s full licence text is in its directory under `/app/node_modules`',
    'in the image. The base image (`node:20-bookworm-slim`: Node.js and Debian) carries its own notices.',
    '',
    '| Package | Version | Licence | Repository | Images |',
    '|---|---|---|---|---|',
    ...packages.map(
      (pkg) =>
        `| ${cell(pkg.name)} | ${cell(pkg.version)} | ${cell(pkg.licence)} | ${pkg.repository ? `<${pkg.repository}>` : '(none given)'} | ${IMAGES.filter((image) => pkg.images.has(image)).join(', ')} |`,
    ),
    '',
    '## NOTICE files of these packages',
    '',
    withNotices.length === 0 ? 'None of them ships a NOTICE file.' : 'Reproduced as the packages ship them (Apache License 2.0, section 4(d)).',
    ...withNotices.flatMap((pkg) => ['', `### ${pkg.name} ${pkg.version}`, '', '```', ...pkg.notices, '```']),
    '',
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = renderNotices(collectPackages());
  const file = join(root, OUTPUT);
  if (process.argv.includes('--stdout')) {
    process.stdout.write(text);
  } else if (process.argv.includes('--check')) {
    const current = existsSync(file) ? readFileSync(file, 'utf8') : '';
    if (current !== text) {
      console.error(`${OUTPUT} is stale: run ${SCRIPT}`);
      process.exit(1);
    }
  } else {
    writeFileSync(file, text);
    console.log(`wrote ${OUTPUT}`);
  }
}
