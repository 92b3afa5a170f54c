// code-exchange (issue 28): POST /oauth/token with grant_type=authorization_code and a PKCE
// code_verifier, for a public client (token_endpoint_auth_method none), vs the peer a user would
// run instead: panva's oidc-provider (lib/peer-oidc-provider-code.mjs) with the same kind of
// client, the same form-encoded request and the same output (an RS256 JWT access token for the
// API audience and an RS256 ID token, 2048-bit keys, no refresh token).
// Public client + PKCE because that is what the SPA libraries of the issue send, both sides
// require PKCE of it, and both then do the same request work (one SHA-256 of the verifier):
// a confidential client would add each side's own secret check to what is compared.
// Codes are single-use: each timed run sends exactly as many requests as it was given codes
// (autocannon `amount`, each body used once), minted just before it (between rounds):
// ours through /authorize with a live login session (one SMS login through the gateway's outbox
// first, then response_type=code requests with the session cookie, redirects read by hand);
// the peer's through its model API (a Grant and an AuthorizationCode, what its interaction ends
// with). Only the exchange is timed. Identity's AUTHORIZATION_CODE_LIFETIME_SECONDS and the
// peer's code TTL are both 600 s (the most identity allows), so a batch cannot expire while it
// waits for its turn; the lifetime changes nothing in the exchange's work.
// Ours on PGlite and, with TEST_DATABASE_URL/BENCH_DATABASE_URL, on PostgreSQL, both in the
// same run as the peer, alternated (the order turns each round). BENCH_CODE_DATABASES=pglite
// (or postgres) runs one; BENCH_CODE_ROUNDS (default 3); BENCH_CODE_EXCHANGES (codes per run,
// default 1000; 100 with --smoke).
import { createHash, randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { autocannonRun, cpuUsPerRequest } from '../lib/load.mjs';
import { API_AUDIENCE, startBenchStack } from '../lib/stack.mjs';
import { repoRoot, stack, startProcess } from '../lib/services.mjs';
import { pool } from '../lib/tokens.mjs';
import { mean, printTable } from '../lib/table.mjs';

export const description = 'authorization_code + PKCE exchanges/s at /oauth/token (public client) vs oidc-provider (peer), PGlite and PostgreSQL';

const CALLBACK = 'https://app.example.com/callback';
const CODE_LIFETIME_SECONDS = 600;
const PEER_SCOPE = 'read:airports';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** Cookies a response sets, merged into `jar` (name -> value). */
function absorbCookies(res, jar) {
  for (const line of res.headers.getSetCookie()) {
    const pair = line.split(';')[0];
    const name = pair.slice(0, pair.indexOf('='));
    if (/max-age=0/i.test(line)) jar.delete(name);
    else jar.set(name, pair.slice(pair.indexOf('=') + 1));
  }
}
const cookieHeader = (jar) => [...jar].map(([n, v]) => `${n}=${v}`).join('; ');

/** The code of an authorization response redirect (response_mode query). */
function codeOf(res) {
  const location = res.headers.get('location');
  const code = location && new URL(location).searchParams.get('code');
  if (res.status !== 302 || !code) throw new Error(`/authorize answered ${res.status} ${location ?? ''}`);
  return code;
}

/**
 * Our side: a SPA client (public, authorization_code) enabled on the SMS connection, and a login
 * session made by one hosted login (phone page, code from the gateway's outbox, code page).
 * Returns `mint(count)`: that many fresh codes from /authorize with the session cookie.
 */
async function prepareOurs(s, challenge) {
  const client = await s.management.createClient({ name: 'Bench SPA', app_type: 'spa', token_endpoint_auth_method: 'none', grant_types: ['authorization_code'], callbacks: [CALLBACK] });
  const connection = (await s.management.listConnections()).find((c) => c.id === s.tenant.connectionId);
  await s.management.updateConnection(connection.id, { enabled_clients: [...connection.enabled_clients, client.client_id] });
  const query = new URLSearchParams({ client_id: client.client_id, redirect_uri: CALLBACK, response_type: 'code', response_mode: 'query', scope: 'openid', audience: API_AUDIENCE, connection: s.tenant.connectionName, code_challenge: challenge, code_challenge_method: 'S256', state: 'bench', nonce: 'bench' });
  const authorizeUrl = `${s.authUrl}/authorize?${query}`;

  const jar = new Map();
  const page = await fetch(authorizeUrl, { redirect: 'manual' });
  absorbCookies(page, jar);
  const html = await page.text();
  const fields = { transaction: /name="transaction" value="([^"]+)"/.exec(html)?.[1], csrf_token: /name="csrf_token" value="([^"]+)"/.exec(html)?.[1] };
  if (!fields.transaction || !fields.csrf_token) throw new Error(`/authorize answered ${page.status} without the phone form`);
  const phone = `+1415${5_000_000 + Math.floor(Math.random() * 1_000_000)}`;
  const phonePost = await fetch(`${s.authUrl}/authorize/phone`, { method: 'POST', redirect: 'manual', headers: { ...FORM, cookie: cookieHeader(jar) }, body: new URLSearchParams({ ...fields, phone_number: phone }) });
  if (phonePost.status !== 303) throw new Error(`/authorize/phone answered ${phonePost.status}: ${await phonePost.text()}`);
  let otp;
  for (let attempt = 0; !otp && attempt < 100; attempt++) {
    const outbox = await fetch(`${s.gatewayUrl}/outbox/messages?recipient=${encodeURIComponent(phone)}`, { headers: { authorization: `Bearer ${s.outboxToken}` } });
    otp = (await outbox.json())[0]?.body.match(/\b(\d{4,10})\b/)?.[1];
    if (!otp) await new Promise((r) => setTimeout(r, 50));
  }
  if (!otp) throw new Error(`no code for ${phone} in the outbox`);
  const codePost = await fetch(`${s.authUrl}/authorize/code`, { method: 'POST', redirect: 'manual', headers: { ...FORM, cookie: cookieHeader(jar) }, body: new URLSearchParams({ ...fields, code: otp }) });
  absorbCookies(codePost, jar);
  codeOf(codePost); // the login's own code, unused
  // From here the session cookie alone signs the user in: no SMS, no page, a redirect with a code.
  const session = cookieHeader(jar);
  const mint = (count) => pool(count, 4, async () => codeOf(await fetch(authorizeUrl, { redirect: 'manual', headers: { cookie: session } })));
  return { clientId: client.client_id, mint };
}

export async function run(ctx) {
  const postgresWanted = Boolean(process.env.TEST_DATABASE_URL || process.env.BENCH_DATABASE_URL);
  const databases = (process.env.BENCH_CODE_DATABASES ?? (postgresWanted ? 'pglite,postgres' : 'pglite')).split(',');
  if (!postgresWanted && !process.env.BENCH_CODE_DATABASES) ctx.log('code-exchange: no TEST_DATABASE_URL/BENCH_DATABASE_URL: PGlite only');
  const rounds = Number(process.env.BENCH_CODE_ROUNDS ?? (ctx.smoke ? 2 : 3));
  const perRun = Number(process.env.BENCH_CODE_EXCHANGES ?? (ctx.smoke ? 100 : 1000));
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');

  const stacks = [];
  let peer;
  try {
    const targets = [];
    for (const database of databases) {
      const s = await startBenchStack({ database, identityEnv: { AUTHORIZATION_CODE_LIFETIME_SECONDS: String(CODE_LIFETIME_SECONDS) } });
      stacks.push(s);
      const ours = await prepareOurs(s, challenge);
      targets.push({ name: `ours-${database}`, url: `${s.authUrl}/oauth/token`, watched: () => s.identity, clientId: ours.clientId, mint: ours.mint });
    }
    const peerClientId = 'bench-spa';
    peer = await startProcess({
      name: 'peer-oidc-provider',
      script: join(repoRoot, 'bench', 'lib', 'peer-oidc-provider-code.mjs'),
      port: await stack.freePort(),
      logDir: stacks[0].dir,
      env: { NODE_ENV: 'production', DEBUG: '', PEER_CLIENT_ID: peerClientId, PEER_REDIRECT_URI: CALLBACK, PEER_AUDIENCE: API_AUDIENCE, PEER_SCOPE, PEER_CODE_CHALLENGE: challenge, PEER_CODE_TTL_SECONDS: String(CODE_LIFETIME_SECONDS) },
    });
    const peerMint = async (count) => {
      const res = await fetch(`${peer.url}/bench/mint?n=${count}`, { method: 'POST' });
      if (res.status !== 200) throw new Error(`peer mint answered ${res.status}: ${await res.text()}`);
      return res.json();
    };
    targets.push({ name: 'peer', url: `${peer.url}/token`, watched: () => peer, clientId: peerClientId, mint: peerMint });

    const bodyFor = (target, code) => new URLSearchParams({ grant_type: 'authorization_code', client_id: target.clientId, code, redirect_uri: CALLBACK, code_verifier: verifier }).toString();
    // Each side answers both tokens once (the same shape), then a warm-up batch, untimed.
    for (const target of targets) {
      const [code] = await target.mint(1);
      const res = await fetch(target.url, { method: 'POST', headers: FORM, body: bodyFor(target, code) });
      const tokens = await res.json();
      if (res.status !== 200 || tokens.access_token?.split('.').length !== 3 || tokens.id_token?.split('.').length !== 3 || tokens.refresh_token) {
        throw new Error(`${target.name} exchange answered ${res.status}: ${JSON.stringify(tokens).slice(0, 300)}`);
      }
    }

    let file = 0;
    const exchange = async (target, count) => {
      const mintStarted = performance.now();
      const codes = await target.mint(count);
      const mintSec = (performance.now() - mintStarted) / 1000;
      const bodiesFile = join(stacks[0].dir, `code-bodies-${target.name}-${file++}.json`);
      writeFileSync(bodiesFile, JSON.stringify(codes.map((code) => bodyFor(target, code))));
      const watched = target.watched();
      const r = await autocannonRun({ url: target.url, method: 'POST', headers: FORM, bodiesFile, amount: count, connections: ctx.connections }, { workDir: stacks[0].dir, watch: [watched] });
      return { ...r, mintSec, cpuUsPerToken: cpuUsPerRequest(r, watched.name) };
    };
    for (const target of targets) await exchange(target, Math.min(perRun, ctx.smoke ? 50 : 300));

    const rows = [];
    for (let round = 1; round <= rounds; round++) {
      const order = round % 2 === 1 ? targets : [...targets].reverse();
      const row = { round, order: order.map((t) => t.name).join(' > '), load1: loadavg()[0] };
      for (const target of order) {
        ctx.log(`code-exchange: round ${round}, ${target.name}: minting ${perRun} codes, then exchanging them`);
        const r = await exchange(target, perRun);
        row[`${target.name}TokensPerSec`] = r.rps;
        row[`${target.name}CpuUsPerToken`] = r.cpuUsPerToken;
        row[`${target.name}P50Ms`] = r.p50Ms;
        row[`${target.name}P99Ms`] = r.p99Ms;
      }
      for (const t of targets.filter((x) => x.name !== 'peer')) row[`${t.name}PerPeer`] = row[`${t.name}TokensPerSec`] / row.peerTokensPerSec;
      rows.push(row);
    }
    printTable('code-exchange: each row one round (every target once, order alternating)', rows);

    const uptime = execFileSync('uptime', { encoding: 'utf8' }).trim();
    const summary = { exchangesPerRun: perRun, rounds, connections: ctx.connections, uptimeAtEnd: uptime };
    const peerTokensPerSec = mean(rows.map((r) => r.peerTokensPerSec));
    const peerCpuUsPerToken = mean(rows.map((r) => r.peerCpuUsPerToken));
    summary.peerTokensPerSec = peerTokensPerSec;
    summary.peerCpuUsPerToken = peerCpuUsPerToken;
    for (const t of targets.filter((x) => x.name !== 'peer')) {
      const tokensPerSec = mean(rows.map((r) => r[`${t.name}TokensPerSec`]));
      const cpu = mean(rows.map((r) => r[`${t.name}CpuUsPerToken`]));
      Object.assign(summary, {
        [`${t.name}TokensPerSec`]: tokensPerSec,
        [`${t.name}CpuUsPerToken`]: cpu,
        [`${t.name}PerPeer`]: tokensPerSec / peerTokensPerSec,
        // CPU per token does not depend on how much of the shared machine each side got in its turn.
        [`${t.name}PeerCpuPerOursCpu`]: peerCpuUsPerToken / cpu,
        [`${t.name}Met`]: tokensPerSec / peerTokensPerSec >= 1.0,
      });
    }
    summary.target = 1.0;
    printTable('code-exchange: summary (means over the rounds)', [summary]);
    ctx.log(`code-exchange: ${uptime}`);
    return { summary, runs: rows };
  } finally {
    if (peer) await peer.stop();
    for (const s of stacks) await s.stop();
  }
}
