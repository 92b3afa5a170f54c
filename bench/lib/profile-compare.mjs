#!/usr/bin/env node
// node bench/lib/profile-compare.mjs <a.cpuprofile>:<requests> <b.cpuprofile>:<requests> ...
// Self time of each profile's main thread by part (the signature hand-off, socket writes, log
// writes, Express, body parsing, the service kit, pino, prom-client, the service's own code, pg,
// zod, GC, Node's HTTP and streams, the rest), idle and start-up (module loading) left out,
// divided by the requests the process answered: µs per request side by side, so a service and
// its floor can be itemised against each other.
import { readFileSync } from 'node:fs';

const PARTS = [
  ['signature hand-off to the thread pool', (fn, url) => /^(signOneShot|verifyOneShot)$/.test(fn)],
  ['socket writes (writev)', (fn) => fn === 'writev' || fn === 'writeBuffer' || fn === 'writeUtf8String' || fn === 'writeLatin1String'],
  ['log writes (fs writeString)', (fn) => fn === 'writeString'],
  ['garbage collection', (fn) => fn === '(garbage collector)'],
  ['Express and its router', (_fn, url) => /node_modules\/\.pnpm\/(express|router)@/.test(url)],
  ['body parsing (body-parser, raw-body, type-is)', (_fn, url) => /node_modules\/\.pnpm\/(body-parser|raw-body|type-is|content-type|iconv-lite|media-typer|mime-types|qs)@/.test(url)],
  ['service kit', (_fn, url) => url.includes('/packages/service-kit/')],
  ['pino, sonic-boom', (_fn, url) => /node_modules\/\.pnpm\/(pino|sonic-boom|thread-stream|fast-redact|quick-format-unescaped|safe-stable-stringify)[@-]/.test(url)],
  ['prom-client', (_fn, url) => url.includes('prom-client')],
  ['pg', (_fn, url) => /node_modules\/\.pnpm\/pg(-protocol|-pool|-types)?@/.test(url)],
  ['zod', (_fn, url) => url.includes('/zod@')],
  ["the service's own code", (_fn, url) => /\/services\/[^/]+\/dist\/|\/bench\/lib\/floor-/.test(url)],
  ['Node HTTP, net, streams, events, timers', (_fn, url) => /^node:(_http|http|net|stream|internal\/streams|events|internal\/http|timers|internal\/timers|internal\/process|buffer|internal\/buffer)/.test(url)],
  ['crypto other than the signature', (_fn, url) => url.startsWith('node:internal/crypto')],
];
const SKIP = (fn, url) => fn === '(idle)' || fn === '(program)' || /modules\/(cjs|esm)|compileFunction|wrapSafe|readFileUtf8|internalModule/.test(`${fn} ${url}`);

const columns = process.argv.slice(2).map((arg) => {
  const [file, requests] = arg.split(':');
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const totals = new Map(PARTS.map(([name]) => [name, 0]));
  totals.set('the rest', 0);
  profile.samples.forEach((id, i) => {
    const { functionName: fn, url } = byId.get(id).callFrame;
    const us = profile.timeDeltas[i] ?? 0;
    if (SKIP(fn, url)) return;
    const part = PARTS.find(([, test]) => test(fn, url))?.[0] ?? 'the rest';
    totals.set(part, totals.get(part) + us);
  });
  return { file, requests: Number(requests), totals };
});
const names = [...columns[0].totals.keys()];
console.log(['µs per request', ...columns.map((c) => c.file.split('/').at(-1))].join(' | '));
for (const name of [...names, 'total']) {
  const cells = columns.map((c) => {
    const us = name === 'total' ? [...c.totals.values()].reduce((a, b) => a + b, 0) : c.totals.get(name);
    return (us / c.requests).toFixed(1);
  });
  console.log([name, ...cells].join(' | '));
}
