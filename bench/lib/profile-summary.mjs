#!/usr/bin/env node
// node bench/lib/profile-summary.mjs <file.cpuprofile> [top]: self time by function and by package.
import { readFileSync } from 'node:fs';

const [file, topText] = process.argv.slice(2);
const top = Number(topText ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map();
const deltas = profile.timeDeltas;
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (deltas[i] ?? 0)));
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);

const byFunction = new Map();
const byPackage = new Map();
for (const [id, us] of selfUs) {
  const { callFrame } = byId.get(id);
  const url = callFrame.url || '(native)';
  const short = url.replace(/^file:\/\//, '').replace(/.*node_modules\/\.pnpm\/[^/]+\/node_modules\//, '').replace(/.*\/work\/main\//, '');
  const key = `${callFrame.functionName || '(anonymous)'} ${short}:${callFrame.lineNumber + 1}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + us);
  const pkg = url.includes('node_modules')
    ? url.match(/node_modules\/\.pnpm\/[^/]+\/node_modules\/((?:@[^/]+\/)?[^/]+)/)?.[1] ?? 'node_modules'
    : url.startsWith('node:') ? `node:${url.slice(5).split('/')[0]}` : url.includes('/work/main/') ? short.split('/').slice(0, 2).join('/') : callFrame.functionName || '(native)';
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + us);
}
const print = (title, map) => {
  console.log(`\n${title}`);
  for (const [key, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${((us / total) * 100).toFixed(1).padStart(5)}%  ${key}`);
  }
};
print('self time by package', byPackage);
print('self time by function', byFunction);
