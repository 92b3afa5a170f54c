#!/usr/bin/env node
// The production drill's client (scripts/containers/production-drill.sh): talks to the stack of
// deploy/compose.production.yaml through its TLS terminator only, trusting nothing but the drill's
// own certificate, and proves what docs/production.md promises after the first start:
//   - GET https://$AUTH_HOST/console/config.json answers 200 and names the console's client;
//   - the management API refuses a call without a token (401);
//   - the first operator signs in as the console does (the hosted login, code + PKCE, with the
//     console's client), the code read from the gateway's outbox with OUTBOX_TOKEN over TLS;
//   - the operator's token is issued by https://$AUTH_HOST/ and GET /api/v2/users answers 200;
//   - identity sees the caller's address, not the proxy's (TRUST_PROXY behind Caddy), nor one the
//     caller forged in X-Forwarded-For;
//   - the hosted login's cookies are Secure.
// Environment: AUTH_URL, GATEWAY_PUBLIC_URL (https URLs), CONNECT_TO (host:port where both names
// are served, standing in for DNS), CA_FILE (the certificate to trust), OUTBOX_TOKEN_FILE,
// FIRST_OPERATOR_PHONE_NUMBER, PROXY_ADDRESS (the TLS terminator's address on the compose
// network, which identity must not take for the caller). Prints what it proved; exits 1 on the
// first thing that does not hold. Never prints a secret, a code or a token.
'use strict';
const { createHash, randomBytes } = require('node:crypto');
const { drillSettings, newestOutboxCode, request: requestWith, required } = require('./drill-https.cjs');

const settings = drillSettings();
const { authUrl, gatewayUrl, phone } = settings;
const proxyAddress = required('PROXY_ADDRESS');
const request = (method, url, options) => requestWith(settings, method, url, options);

function expectStatus(res, status, what) {
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status}: ${res.text.slice(0, 300)}`);
}

function json(res, what) {
  try {
    return JSON.parse(res.text);
  } catch {
    throw new Error(`${what}: not JSON: ${res.text.slice(0, 200)}`);
  }
}

/** A browser's cookie jar for identity's host, checking that each cookie identity sets is Secure. */
const cookies = new Map();
function absorbCookies(res) {
  for (const line of [].concat(res.headers['set-cookie'] ?? [])) {
    const [pair] = line.split(';');
    const name = pair.slice(0, pair.indexOf('='));
    if (!/;\s*secure\b/i.test(line)) throw new Error(`cookie ${name} is not Secure although AUTH_URL is https`);
    if (/max-age=0/i.test(line)) cookies.delete(name);
    else cookies.set(name, pair.slice(pair.indexOf('=') + 1));
  }
}
const cookieHeader = () => ({ cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') });

/** The hidden transaction fields of a hosted login page. */
function formFields(html, what) {
  const transaction = /name="transaction" value="([^"]+)"/.exec(html)?.[1];
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(html)?.[1];
  if (!transaction || !csrf) throw new Error(`${what}: no sign-in form on the page`);
  return { transaction, csrf_token: csrf };
}

/** An address the caller claims in X-Forwarded-For: behind the TLS terminator it must not count. */
const FORGED_ADDRESS = '203.0.113.9';

async function hostedLogin(path, method, form) {
  const res = await request(method, new URL(path, authUrl), {
    headers: {
      ...cookieHeader(),
      'x-forwarded-for': FORGED_ADDRESS,
      ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
    },
    body: form ? new URLSearchParams(form).toString() : undefined,
  });
  absorbCookies(res);
  return res;
}

async function newestCodeFor(number) {
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const code = await newestOutboxCode(settings, number);
    if (code) return code;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`no code for ${number} in the gateway's outbox after 5 s`);
}

/**
 * Signs `number` in as the console does: auth0-spa-js sends the browser to /authorize with code +
 * PKCE and the console's client; the code comes from the gateway's outbox. A fresh cookie jar,
 * as a new browser: no login session answers silently. The access token.
 */
async function signIn(settings, number) {
  cookies.clear();
  const verifier = randomBytes(32).toString('base64url');
  const authorize = new URL('/authorize', authUrl);
  const state = randomBytes(16).toString('base64url');
  for (const [name, value] of Object.entries({
    client_id: settings.client_id,
    redirect_uri: settings.redirect_uri,
    audience: settings.audience,
    response_type: 'code',
    scope: 'openid profile phone offline_access read:users read:logs',
    state,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  })) {
    authorize.searchParams.set(name, value);
  }
  const loginPage = await hostedLogin(authorize.pathname + authorize.search, 'GET');
  expectStatus(loginPage, 200, 'GET /authorize (the console client)');
  const sent = await hostedLogin('/authorize/phone', 'POST', { ...formFields(loginPage.text, 'the phone page'), phone_number: number });
  expectStatus(sent, 303, 'POST /authorize/phone');
  const codePage = await hostedLogin(sent.headers.location, 'GET');
  expectStatus(codePage, 200, 'the code page');
  const code = await newestCodeFor(number);
  const done = await hostedLogin('/authorize/code', 'POST', { ...formFields(codePage.text, 'the code page'), code });
  if (done.status !== 302) throw new Error(`POST /authorize/code: expected 302 to the console, got ${done.status}`);
  const back = new URL(done.headers.location);
  if (back.origin + back.pathname !== settings.redirect_uri) throw new Error('the hosted login did not send the operator back to the console');
  if (back.searchParams.get('state') !== state) throw new Error('the console callback carries another state');
  const token = await request('POST', new URL('/oauth/token', authUrl), {
    headers: { 'content-type': 'application/json', origin: authUrl.origin },
    body: JSON.stringify({
      grant_type: 'authorization_code',
      client_id: settings.client_id,
      code: back.searchParams.get('code'),
      redirect_uri: settings.redirect_uri,
      code_verifier: verifier,
    }),
  });
  expectStatus(token, 200, 'POST /oauth/token (code + PKCE)');
  return json(token, 'the token answer').access_token;
}

async function main() {
  const config = await request('GET', new URL('/console/config.json', authUrl));
  expectStatus(config, 200, 'GET /console/config.json');
  const settings = json(config, 'config.json');
  if (settings.domain !== authUrl.href.replace(/\/$/, '')) throw new Error(`config.json names domain ${settings.domain}, not AUTH_URL`);
  console.log(`GET ${authUrl.origin}/console/config.json -> 200 (console client ${settings.client_id})`);

  const refused = await request('GET', new URL('/api/v2/users', authUrl));
  expectStatus(refused, 401, 'GET /api/v2/users without a token');
  console.log('GET /api/v2/users without a token -> 401');

  const outboxRefused = await request('GET', new URL('/outbox/messages', gatewayUrl));
  expectStatus(outboxRefused, 401, 'GET /outbox/messages without OUTBOX_TOKEN');
  console.log(`GET ${gatewayUrl.origin}/outbox/messages without OUTBOX_TOKEN -> 401`);

  const accessToken = await signIn(settings, phone);
  const claims = JSON.parse(Buffer.from(accessToken.split('.')[1], 'base64url').toString('utf8'));
  if (claims.iss !== `${authUrl.origin}/`) throw new Error(`the token's issuer is ${claims.iss}, not ${authUrl.origin}/`);
  console.log(`the first operator signed in with the console's client (issuer ${claims.iss})`);

  const users = await request('GET', new URL('/api/v2/users', authUrl), { headers: { authorization: `Bearer ${accessToken}` } });
  expectStatus(users, 200, "GET /api/v2/users with the operator's token");
  if (!json(users, 'the users').some((user) => user.phone_number === phone)) throw new Error('GET /api/v2/users does not list the first operator');
  console.log("GET /api/v2/users with the operator's token -> 200, lists the operator");

  // Every record of this sign-in carries the address identity took for the caller.
  const logs = await request('GET', new URL(`/api/v2/logs?q=${encodeURIComponent(`user_id:"${claims.sub}"`)}`, authUrl), {
    headers: { authorization: `Bearer ${accessToken}` },
  });
  expectStatus(logs, 200, "GET /api/v2/logs with the operator's token");
  const addresses = [...new Set(json(logs, 'the logs').map((record) => record.ip).filter(Boolean))];
  if (addresses.length === 0) throw new Error("the operator's log records carry no address");
  if (addresses.some((ip) => ip.replace(/^::ffff:/, '') === proxyAddress)) {
    throw new Error(`identity logged the TLS terminator's address ${proxyAddress} as the caller's: TRUST_PROXY does not take X-Forwarded-For`);
  }
  if (addresses.includes(FORGED_ADDRESS)) throw new Error(`identity logged the address the caller forged in X-Forwarded-For (${FORGED_ADDRESS})`);
  console.log(`identity logged the caller as ${addresses.join(', ')}: not the proxy (${proxyAddress}), nor the X-Forwarded-For it forged`);

  // More users signing in (no roles: their tokens carry no management scope), for the sizing.
  const extra = Number(process.env.EXTRA_LOGINS ?? 0);
  for (let i = 1; i <= extra; i += 1) await signIn(settings, `+1415555${String(100 + i).padStart(4, '0')}`);
  if (extra > 0) console.log(`${extra} more users signed in the same way`);
}

main().catch((err) => {
  console.error(`production drill: ${err.message}`);
  process.exit(1);
});
