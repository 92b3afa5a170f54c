// What both clients of the production drill share (production-signin.cjs, production-console.cjs):
// the settings the drill hands them, an HTTPS request that trusts only the drill's certificate
// and connects where both host names are served, and the newest code in the gateway's outbox.
'use strict';
const { readFileSync } = require('node:fs');
const https = require('node:https');

function required(name) {
  const value = process.env[name];
  if (!value) throw new Error(`${name} must be set`);
  return value;
}

/**
 * AUTH_URL, GATEWAY_PUBLIC_URL (https URLs), CONNECT_TO (host:port where both names are served,
 * standing in for DNS), CA_FILE (the certificate to trust), OUTBOX_TOKEN_FILE, FIRST_OPERATOR_PHONE_NUMBER.
 */
function drillSettings() {
  const authUrl = new URL(required('AUTH_URL'));
  const gatewayUrl = new URL(required('GATEWAY_PUBLIC_URL'));
  for (const url of [authUrl, gatewayUrl]) if (url.protocol !== 'https:') throw new Error(`${url.href}: the drill only speaks https`);
  const connectTo = required('CONNECT_TO');
  const [connectHost, connectPort] = connectTo.split(':');
  return {
    authUrl,
    gatewayUrl,
    connectTo,
    connectHost,
    connectPort: Number(connectPort),
    ca: readFileSync(required('CA_FILE')),
    outboxToken: readFileSync(required('OUTBOX_TOKEN_FILE'), 'utf8').replace(/[\r\n]+$/, ''),
    phone: required('FIRST_OPERATOR_PHONE_NUMBER'),
  };
}

/**
 * One HTTPS request to `url`, connected to CONNECT_TO with the URL's host name for SNI, the
 * certificate check and the Host header: what DNS pointing both names at the host would give.
 * Only CA_FILE is trusted (`ca` replaces the default roots). Redirects are not followed.
 */
function request(settings, method, url, { headers = {}, body } = {}) {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        method,
        host: settings.connectHost,
        port: settings.connectPort,
        servername: target.hostname,
        path: target.pathname + target.search,
        headers: { host: target.host, ...headers, ...(body !== undefined ? { 'content-length': Buffer.byteLength(body) } : {}) },
        ca: settings.ca,
        timeout: 15_000,
      },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${target.href}: no answer within 15 s`)));
    req.on('error', (err) => reject(new Error(`${method} ${target.href}: ${err.message}`)));
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** The newest code the gateway's outbox holds for `number` (over TLS, with OUTBOX_TOKEN, as the runbook's curl), or undefined. */
async function newestOutboxCode(settings, number) {
  const url = new URL('/outbox/messages', settings.gatewayUrl);
  url.searchParams.set('recipient', number);
  const res = await request(settings, 'GET', url, { headers: { authorization: `Bearer ${settings.outboxToken}` } });
  if (res.status !== 200) throw new Error(`GET /outbox/messages with OUTBOX_TOKEN answered ${res.status}`);
  const messages = JSON.parse(res.text);
  const list = Array.isArray(messages) ? messages : (messages.messages ?? []);
  return list.map((m) => /\b(\d{6})\b/.exec(m.body ?? '')?.[1]).find(Boolean);
}

module.exports = { required, drillSettings, request, newestOutboxCode };
