#!/usr/bin/env node
// The rolling-upgrade scenario of `pnpm test:chaos`: 3 identity and 2 gateway replicas of the
// previous release (scripts/chaos/previous-release) behind HAProxy, clients logging in
// continuously; each replica is replaced in turn by this build (SIGTERM, drain, the new one
// started on its port and ready). The first new identity migrates the schema while the old
// replicas keep serving on it. Asserts: no login lost; no SMS without its code-sent record; no 5xx
// answer outside a replacement's window; a login run entirely on an old replica after the
// migration, and one started on an old replica and completed on a new one, both succeed.
// Needs `pnpm build`, PostgreSQL (TEST_DATABASE_URL), Redis and haproxy, like run.mjs.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createBenchDatabase, ownedResources, repoRoot, requireFrom, secret, stack, startProcess, workDir } from '../../bench/lib/services.mjs';
import { call, cleanUpRun, topologySettings, haproxyConfig, percentile, recordingProvider, sleep, smsAgainstRecords, smsLogin, reportRun } from './lib.mjs';
import { buildRelease, previousReleaseCommit } from './previous-release.mjs';

const { Client } = requireFrom('services/identity')('pg');

const CLIENTS = Number(process.env.CHAOS_CLIENTS ?? 4);
/** Calm seconds before the first replacement, between replacements and after the last. */
const PAUSE_SECONDS = Number(process.env.UPGRADE_PAUSE_SECONDS ?? 4);
const REDIS = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const runName = `upgrade-${new Date().toISOString().replace(/[:.]/g, '-')}`;
const resultsDir = join(repoRoot, 'chaos-results', runName);
mkdirSync(resultsDir, { recursive: true });

let t0 = Date.now();
const log = (message) => console.log(`[upgrade ${((Date.now() - t0) / 1000).toFixed(1).padStart(5)}s] ${message}`);

const dir = workDir('smsauth-upgrade-');
const owned = ownedResources(dir);
const extra = [];
const failures = [];
try {
  const from = previousReleaseCommit(repoRoot);
  const previous = buildRelease(repoRoot, from, log);
  const builds = {
    previous: { identity: join(previous, 'services/identity/dist/main.js'), gateway: join(previous, 'services/sms-delivery-gateway/dist/main.js') },
    current: { identity: join(repoRoot, 'services/identity/dist/main.js'), gateway: join(repoRoot, 'services/sms-delivery-gateway/dist/main.js') },
  };

  const provider = await recordingProvider();
  const { sms } = provider;
  extra.push(() => provider.server.close());
  const db = (owned.db = await createBenchDatabase());
  if (!db) throw new Error('the upgrade scenario needs PostgreSQL: set TEST_DATABASE_URL');

  const ports = { identity: [], gateway: [] };
  for (let i = 0; i < 3; i += 1) ports.identity.push(await stack.freePort());
  for (let i = 0; i < 2; i += 1) ports.gateway.push(await stack.freePort());
  const lbIdentity = await stack.freePort();
  const lbGateway = await stack.freePort();
  const authUrl = `http://127.0.0.1:${lbIdentity}`;
  const deliveryUrl = `http://127.0.0.1:${lbGateway}/sms`;
  writeFileSync(join(dir, 'haproxy.cfg'), haproxyConfig({ identity: { port: lbIdentity, servers: ports.identity }, gateway: { port: lbGateway, servers: ports.gateway } }));
  const haproxy = spawn('haproxy', ['-db', '-f', join(dir, 'haproxy.cfg')], { stdio: ['ignore', 'ignore', 'inherit'] });
  extra.push(() => haproxy.kill('SIGTERM'));

  const settings = topologySettings({
    stack,
    secret,
    authUrl,
    deliveryUrl,
    databaseUrl: db.url,
    redisUrl: REDIS.toString(),
    redisKeyPrefix: `chaos:${runName}:`,
    providerPort: provider.port,
    adminPrefix: 'upgrade-admin',
  });
  const env = { identity: settings.identity, gateway: settings.gateway };
  /** The running replica per service and slot, and which build it runs. */
  const replicas = { identity: [], gateway: [] };
  const start = async (service, i, build) => {
    replicas[service][i] = await startProcess({ name: `${service}-${i + 1}-${build}`, script: builds[build][service], port: ports[service][i], logDir: dir, env: env[service] });
    replicas[service][i].build = build;
  };
  owned.started.push({ stop: async () => Promise.all([...replicas.identity, ...replicas.gateway].map((p) => p?.stop())) });

  log(`previous release ${from.slice(0, 12)}: 3 identity and 2 gateway replicas behind HAProxy`);
  await start('identity', 0, 'previous');
  await Promise.all([start('identity', 1, 'previous'), start('identity', 2, 'previous'), start('gateway', 0, 'previous'), start('gateway', 1, 'previous')]);
  const tenant = await settings.seed('https://airport-api.example.com');
  const pg = new Client({ connectionString: db.url });
  await pg.connect();
  extra.push(() => pg.end());
  const schemaVersion = async () => (await pg.query('SELECT max(version) AS version FROM schema_migrations')).rows[0].version;
  const versionBefore = await schemaVersion();

  // ---- clients logging in through the balancer; every answer kept with its time
  let phoneSeq = 0;
  const nextPhone = () => `+1415556${String((phoneSeq += 1)).padStart(4, '0')}`;
  const answers = [];
  const seen = (res, at, step) => answers.push({ at, end: Date.now(), step, status: res.status, body: res.body });
  const logins = [];
  let running = true;
  const client = async () => {
    while (running) {
      const phone = nextPhone();
      const began = Date.now();
      const { outcome } = await smsLogin({ startUrl: authUrl, roUrl: authUrl, tenant, phone, sms, key: randomUUID(), seen });
      logins.push({ phone, began, ms: Date.now() - began, outcome });
    }
  };

  // ---- the rollout: gateways first, then identities, one at a time
  const windows = [];
  const replace = async (service, i) => {
    const from = Date.now();
    log(`replacing ${service}-${i + 1}: SIGTERM to the previous release, then this build on its port`);
    await replicas[service][i].stop();
    await start(service, i, 'current');
    // HAProxy sees it ready after two health checks (300 ms apart).
    windows.push({ name: `${service}-${i + 1}`, from, to: Date.now() + 1000 });
  };
  /** Direct logins on the replicas themselves, not through the balancer. */
  const probes = {};

  t0 = Date.now();
  log(`load: ${CLIENTS} clients; replicas replaced every ${PAUSE_SECONDS} s`);
  const clients = Array.from({ length: CLIENTS }, () => client());
  await sleep(PAUSE_SECONDS * 1000);
  for (const i of [0, 1]) {
    await replace('gateway', i);
    await sleep(PAUSE_SECONDS * 1000);
  }
  await replace('identity', 0);
  const versionAfter = await schemaVersion();
  log(`schema version ${versionBefore} → ${versionAfter}; identity-2 and -3 still run the previous release on it`);
  const oldUrl = replicas.identity[1].url;
  const newUrl = replicas.identity[0].url;
  probes.loginOnPreviousReleaseAfterMigration = (await smsLogin({ startUrl: oldUrl, roUrl: oldUrl, tenant, phone: nextPhone(), sms, key: randomUUID() })).outcome;
  probes.startedOnPreviousCompletedOnCurrent = (await smsLogin({ startUrl: oldUrl, roUrl: newUrl, tenant, phone: nextPhone(), sms, key: randomUUID() })).outcome;
  probes.startedOnCurrentCompletedOnPrevious = (await smsLogin({ startUrl: newUrl, roUrl: oldUrl, tenant, phone: nextPhone(), sms, key: randomUUID() })).outcome;
  await sleep(PAUSE_SECONDS * 1000);
  for (const i of [1, 2]) {
    await replace('identity', i);
    await sleep(PAUSE_SECONDS * 1000);
  }
  running = false;
  await Promise.all(clients);
  log('load stopped');

  // ---- what was sent against what was recorded
  const codeSent = (await pg.query("SELECT details->>'start_id' AS start_id FROM tenant_logs WHERE type = 'cs'")).rows;
  const { smsWithoutRecord, smsWithSeveralRecords, duplicateSms } = smsAgainstRecords(sms, codeSent);
  const readiness = {};
  for (const service of ['identity', 'gateway']) {
    for (const [i, replica] of replicas[service].entries()) readiness[`${service}-${i + 1} (${replica.build})`] = (await call(`${replica.url}/readyz`, { method: 'GET' })).status;
  }
  // A request in flight when a replica is stopped belongs to that replacement (the drain).
  const duringReplacement = (a) => windows.some((w) => a.at <= w.to && a.end >= w.from);
  const serverErrors = answers.filter((a) => a.status >= 500);
  const serverErrorsOutsideWindows = serverErrors.filter((a) => !duringReplacement(a));
  const ok = logins.filter((l) => l.outcome === 'ok');
  const lost = logins.filter((l) => l.outcome !== 'ok');
  const figures = {
    from: from.slice(0, 12),
    schemaVersion: { before: versionBefore, after: versionAfter },
    logins: logins.length,
    succeeded: ok.length,
    lost: lost.length,
    sms: sms.length,
    smsWithoutRecord: smsWithoutRecord.length,
    smsWithSeveralRecords: smsWithSeveralRecords.length,
    duplicateSmsSameKey: duplicateSms.length,
    answers5xx: serverErrors.length,
    answers5xxOutsideReplacements: serverErrorsOutsideWindows.length,
    probes,
    readiness,
    latencyMs: { p50: percentile(ok, 50), p99: percentile(ok, 99) },
    replacements: windows.map((w) => `${w.name} ${((w.to - w.from) / 1000).toFixed(1)} s`),
  };
  console.log('\nupgrade figures:');
  console.log(JSON.stringify(figures, null, 2));
  writeFileSync(join(resultsDir, 'figures.json'), JSON.stringify({ figures, lost, serverErrors, duplicateSms, smsWithoutRecord }, null, 2));

  // ---- what must hold
  if (ok.length === 0) failures.push('no login succeeded');
  if (lost.length) failures.push(`${lost.length} logins lost (of ${logins.length}): ${lost.slice(0, 3).map((l) => l.outcome).join('; ')}`);
  if (smsWithoutRecord.length) failures.push(`${smsWithoutRecord.length} SMS without a code-sent record`);
  if (smsWithSeveralRecords.length) failures.push(`${smsWithSeveralRecords.length} SMS with more than one code-sent record`);
  if (duplicateSms.length) failures.push(`${duplicateSms.length} keys sent twice`);
  if (serverErrorsOutsideWindows.length) failures.push(`${serverErrorsOutsideWindows.length} 5xx answers outside a replacement: ${JSON.stringify(serverErrorsOutsideWindows.slice(0, 3))}`);
  for (const [name, outcome] of Object.entries(probes)) if (outcome !== 'ok') failures.push(`${name}: ${outcome}`);
  for (const [name, status] of Object.entries(readiness)) if (status !== 200) failures.push(`${name} not ready at the end (${status})`);
} catch (err) {
  failures.push(`the run failed: ${err?.stack ?? err}`);
} finally {
  await cleanUpRun({ extra, owned, dir, resultsDir });
}
reportRun('upgrade', resultsDir, failures);
