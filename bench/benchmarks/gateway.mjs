// 5. gateway: POST /sms deliveries per second (outbox provider) with bearer authentication on
// (a distinct HS256 token per request, as the identity service sends) vs off; alternated twice.
import { createHmac, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { autocannonRun } from '../lib/load.mjs';
import { removeDir, secret, stack, startProcess, workDir } from '../lib/services.mjs';
import { mean, printTable } from '../lib/table.mjs';

export const description = 'POST /sms deliveries/s with authentication on vs off';

const b64 = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');

function hs256(claims, key) {
  const input = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(claims)}`;
  return `${input}.${createHmac('sha256', key).update(input).digest('base64url')}`;
}

export async function run(ctx) {
  const dir = workDir();
  const started = [];
  try {
    const authSecret = secret(32);
    const common = { HOST: '127.0.0.1', NODE_ENV: 'production', LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info', SMS_PROVIDER: 'outbox', OUTBOX_TOKEN: secret(24) };
    const onPort = await stack.freePort();
    const audience = `http://127.0.0.1:${onPort}/sms`;
    const on = await startProcess({ name: 'gateway-auth-on', script: join(stack.repoRoot, 'services', 'sms-delivery-gateway', 'dist', 'main.js'), port: onPort, logDir: dir, env: { ...common, GATEWAY_AUTH_SECRET: authSecret, GATEWAY_AUTH_AUDIENCE: audience, GATEWAY_AUTH_SUBJECT: 'smsauth-identity' } });
    started.push(on);
    const off = await startProcess({ name: 'gateway-auth-off', script: join(stack.repoRoot, 'services', 'sms-delivery-gateway', 'dist', 'main.js'), port: await stack.freePort(), logDir: dir, env: common });
    started.push(off);

    const now = Math.floor(Date.now() / 1000);
    const tokens = Array.from({ length: 5000 }, () => hs256({ sub: 'smsauth-identity', aud: audience, iat: now, exp: now + 600, jti: randomUUID() }, authSecret));
    const tokensFile = join(dir, 'tokens.json');
    writeFileSync(tokensFile, JSON.stringify(tokens));
    const body = JSON.stringify({ recipient: '+14155550123', body: 'Your verification code is: 123456', sender: '+14155550100' });

    const rows = [];
    for (let round = 1; round <= 2; round++) {
      for (const [label, target, auth] of [['authentication off', off, false], ['authentication on', on, true]]) {
        ctx.log(`gateway: round ${round}, ${label}`);
        const r = await autocannonRun(
          { url: `${target.url}/sms`, method: 'POST', headers: { 'content-type': 'application/json' }, body, ...(auth ? { tokensFile } : {}), connections: ctx.connections, durationSec: ctx.durationSec, warmupSec: ctx.warmupSec },
          { workDir: dir, watch: [target] },
        );
        rows.push({ round, gateway: label, deliveriesPerSec: r.rps, p50Ms: r.p50Ms, p99Ms: r.p99Ms, rssPeakMb: r.rss[target.name].peakMb });
      }
    }
    printTable('gateway: each row one run', rows);
    const rate = (label) => mean(rows.filter((r) => r.gateway === label).map((r) => r.deliveriesPerSec));
    const summary = { offPerSec: rate('authentication off'), onPerSec: rate('authentication on'), ratio: rate('authentication on') / rate('authentication off'), target: 0.8, met: rate('authentication on') / rate('authentication off') >= 0.8 };
    printTable('gateway: summary', [summary]);
    return { summary, runs: rows };
  } finally {
    for (const p of started) await p.stop();
    removeDir(dir);
  }
}
