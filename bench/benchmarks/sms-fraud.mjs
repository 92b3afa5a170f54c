// 8. sms-fraud: what the SMS fraud guard costs a start, and what it lets through.
// (a) POST /passwordless/start per second on two connections of one identity, alternated A/B:
//     `on` with a new connection's defaults (number types MOBILE + FIXED_LINE_OR_MOBILE, fraud
//     guard in block mode) and `off` (sms_fraud_guard.mode off, every number type). Legitimate
//     traffic: valid GB mobiles spread over the +447400..+447999 prefixes, each number once.
// (b) Attacks of 10,000 starts against a fresh connection with the defaults, never verifying:
//     one premium range (+1900555xxxx), one mobile range (+447400xxxxxx), and the same mobile
//     volume spread over 100 prefixes; how many SMS each got through.
// PGlite, or PostgreSQL with BENCH_SMS_FRAUD_DATABASE=postgres (needs TEST_DATABASE_URL).
// BENCH_SMS_FRAUD_PARTS=cost or =attacks runs only one part; BENCH_SMS_FRAUD_ROUNDS (4) A/B rounds.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startBenchStack } from '../lib/stack.mjs';
import { cpuMs, requireFrom } from '../lib/services.mjs';
import { runJsonChild } from '../lib/load.mjs';
import { postJson } from '../lib/tokens.mjs';
import { mean, printTable } from '../lib/table.mjs';

export const description = 'passwordless starts/s with the SMS fraud guard on vs off (alternated), and SMS let through by attacks of 10,000 starts';

const ATTACK_STARTS = 10_000;

/** Valid GB mobile numbers over many prefixes (libphonenumber's metadata decides), distinct. */
function legitimateNumbers(count) {
  const { parsePhoneNumberFromString } = requireFrom('services/identity')('libphonenumber-js/max');
  const prefixes = [];
  for (let p = 7400; p <= 7999; p++) {
    const sample = parsePhoneNumberFromString(`+44${p}123456`);
    if (sample?.isValid() && sample.getType() === 'MOBILE') prefixes.push(p);
  }
  const numbers = [];
  for (let i = 0; numbers.length < count; i++) {
    numbers.push(`+44${prefixes[i % prefixes.length]}${String(100_000 + Math.floor(i / prefixes.length)).padStart(6, '0')}`);
  }
  return { numbers, prefixes: prefixes.length };
}

const attacks = {
  'one premium range (+1900555xxxx)': (i) => `+1900555${String(i % 10_000).padStart(4, '0')}`,
  'one mobile range (+447400xxxxxx)': (i) => `+447400${String(i).padStart(6, '0')}`,
  'mobile, spread over 100 prefixes': (i) => `+4474${String(i % 100).padStart(2, '0')}${String(Math.floor(i / 100)).padStart(6, '0')}`,
};

async function management(s, method, path, body) {
  const { access_token: token } = await postJson(`${s.authUrl}/oauth/token`, {
    grant_type: 'client_credentials', client_id: s.adminClientId, client_secret: s.adminClientSecret, audience: `${s.authUrl}/api/v2/`,
  });
  const res = await fetch(`${s.authUrl}/api/v2${path}`, {
    method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined,
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** A connection like the demo one (same gateway and its authentication), with `options` on top. */
async function connectionLike(s, name, options) {
  const demo = (await management(s, 'GET', `/connections?name=${s.tenant.connectionName}`))[0];
  const { name: _n, ...demoOptions } = demo.options;
  for (const key of ['allowed_number_types', 'sms_prefix_digits', 'sms_fraud_guard']) delete demoOptions[key];
  // Records never show the secret; the stack knows it.
  const gateway_authentication = { ...demoOptions.gateway_authentication, secret: s.gatewayAuthSecret };
  return management(s, 'POST', '/connections', {
    options: { ...demoOptions, gateway_authentication, name, ...options },
    enabled_clients: [s.tenant.demoClientId],
  });
}

export async function run(ctx) {
  const database = process.env.BENCH_SMS_FRAUD_DATABASE === 'postgres' ? 'postgres' : 'pglite';
  const s = await startBenchStack({ database });
  try {
    const every = ['MOBILE', 'FIXED_LINE_OR_MOBILE', 'FIXED_LINE', 'PREMIUM_RATE', 'TOLL_FREE', 'SHARED_COST', 'VOIP', 'PERSONAL_NUMBER', 'PAGER', 'UAN', 'VOICEMAIL', 'UNKNOWN'];
    const on = await connectionLike(s, 'sms-guard-on', {});
    const off = await connectionLike(s, 'sms-guard-off', { sms_fraud_guard: { mode: 'off' }, allowed_number_types: every });
    const { numbers, prefixes } = legitimateNumbers(100_000);
    const numbersFile = join(s.dir, 'numbers.json');
    writeFileSync(numbersFile, JSON.stringify(numbers));
    ctx.log(`sms-fraud (${database}): ${numbers.length} legitimate numbers over ${prefixes} prefixes`);

    const parts = (process.env.BENCH_SMS_FRAUD_PARTS ?? 'cost,attacks').split(',');
    const result = { database };
    // (a) alternated A/B rounds; every start a new number.
    let offset = 0;
    const drive = async (connection, durationSec) => {
      const specFile = join(s.dir, `start-${process.hrtime.bigint()}.json`);
      writeFileSync(specFile, JSON.stringify({ authUrl: s.authUrl, clientId: s.tenant.demoClientId, connection, numbersFile, offset, concurrency: Math.min(ctx.connections, 16), durationSec }));
      const cpuBefore = cpuMs(s.identity.child.pid);
      const r = await runJsonChild('start-driver.mjs', [specFile]);
      r.identityCpuUsPerStart = ((cpuMs(s.identity.child.pid) - cpuBefore) * 1000) / r.total;
      offset = r.next;
      if (r.ok !== r.total) throw new Error(`${connection}: ${r.total - r.ok} starts refused: ${JSON.stringify(r.statuses)}`);
      return r;
    };
    if (parts.includes('cost')) {
      // Long enough for the JIT to settle: CPU per start falls by a third over the first seconds.
      const warmupSec = ctx.smoke ? 1 : Math.max(ctx.warmupSec, 10);
      await drive(on.name, warmupSec);
      await drive(off.name, warmupSec);
      const rounds = ctx.smoke ? 1 : Number(process.env.BENCH_SMS_FRAUD_ROUNDS ?? 4);
      const rows = [];
      for (let round = 1; round <= rounds; round++) {
        for (const [label, connection] of round % 2 ? [['on', on], ['off', off]] : [['off', off], ['on', on]]) {
          const r = await drive(connection.name, ctx.durationSec);
          rows.push({ round, guard: label, startsPerSec: r.rps, starts: r.total, identityCpuUsPerStart: Math.round(r.identityCpuUsPerStart) });
          ctx.log(`sms-fraud: round ${round} guard ${label}: ${r.rps.toFixed(0)} starts/s, identity ${Math.round(r.identityCpuUsPerStart)} µs CPU per start`);
        }
      }
      const onRps = mean(rows.filter((r) => r.guard === 'on').map((r) => r.startsPerSec));
      const offRps = mean(rows.filter((r) => r.guard === 'off').map((r) => r.startsPerSec));
      printTable(`sms-fraud (${database}): POST /passwordless/start, ${Math.min(ctx.connections, 16)} concurrent, alternated`, rows);
      const costPercent = ((offRps - onRps) / offRps) * 100;
      console.log(`guard on ${onRps.toFixed(0)}/s vs off ${offRps.toFixed(0)}/s: ${costPercent.toFixed(1)}% fewer starts/s with the guard (target <= 10%)`);
      // CPU per start is steadier than starts/s on a shared machine (on PostgreSQL it leaves out the server's share).
      const onCpu = mean(rows.filter((r) => r.guard === 'on').map((r) => r.identityCpuUsPerStart));
      const offCpu = mean(rows.filter((r) => r.guard === 'off').map((r) => r.identityCpuUsPerStart));
      const cpuCostPercent = ((onCpu - offCpu) / offCpu) * 100;
      console.log(`identity CPU per start: on ${onCpu.toFixed(0)} µs vs off ${offCpu.toFixed(0)} µs: ${cpuCostPercent.toFixed(1)}% more with the guard`);
      Object.assign(result, { guardOnStartsPerSec: onRps, guardOffStartsPerSec: offRps, costPercent, identityCpuUsPerStartOn: onCpu, identityCpuUsPerStartOff: offCpu, cpuCostPercent, rounds: rows });
    }

    // (b) attacks against fresh connections with the defaults.
    const attackRows = [];
    for (const [name, numberOf] of parts.includes('attacks') ? Object.entries(attacks) : []) {
      const target = await connectionLike(s, `sms-attack-${attackRows.length}`, {});
      const attackFile = join(s.dir, `attack-${attackRows.length}.json`);
      const count = ctx.smoke ? 500 : ATTACK_STARTS;
      writeFileSync(attackFile, JSON.stringify(Array.from({ length: count }, (_, i) => numberOf(i))));
      const specFile = join(s.dir, `attack-spec-${attackRows.length}.json`);
      writeFileSync(specFile, JSON.stringify({ authUrl: s.authUrl, clientId: s.tenant.demoClientId, connection: target.name, numbersFile: attackFile, concurrency: 8, count }));
      const r = await runJsonChild('start-driver.mjs', [specFile]);
      const blocks = (await management(s, 'GET', `/connections/${target.id}/sms-fraud-blocks`)).blocks.length;
      attackRows.push({ attack: name, starts: r.total, smsSent: r.ok, sentPercent: (r.ok / r.total) * 100, refused: JSON.stringify(r.statuses), blockedPrefixes: blocks });
      ctx.log(`sms-fraud: attack "${name}": ${r.ok} of ${r.total} SMS sent`);
    }
    if (attackRows.length) printTable(`sms-fraud (${database}): attacks of ${ctx.smoke ? 500 : ATTACK_STARTS} starts, default settings, codes never verified`, attackRows);
    if (attackRows.length) result.attacks = attackRows;
    return result;
  } finally {
    await s.stop();
  }
}
