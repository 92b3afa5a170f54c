// What the chaos scenarios share: the recording servers outside the system, HTTP calls that
// report transport failures as status 0, a patient client's retries, the balancer's config, and
// the checks on what was sent against what was recorded.
import { cpSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A small HTTP server that records what it got; `onRequest(req, body, res)` answers. */
export function recorder(onRequest) {
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => onRequest(req, Buffer.concat(chunks).toString('utf8'), res));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, port: server.address().port })));
}

/** The SMS provider: records each message (and its Idempotency-Key) and answers 200 after 150 ms. */
export async function recordingProvider() {
  const sms = [];
  const provider = await recorder((req, body, res) => {
    const message = JSON.parse(body);
    sms.push({ at: Date.now(), key: req.headers['idempotency-key'], recipient: message.recipient, body: message.body });
    // A provider takes a moment: deliveries are in flight when a gateway is stopped.
    setTimeout(() => {
      res.writeHead(200);
      res.end();
    }, 150);
  });
  return { ...provider, sms };
}

/** POST/GET JSON; transport failures come back as status 0. `onAnswer` sees every answer. */
export async function call(url, { method = 'POST', json, headers = {} } = {}) {
  try {
    const res = await fetch(url, {
      method,
      headers: { ...(json ? { 'content-type': 'application/json' } : {}), ...headers },
      body: json ? JSON.stringify(json) : undefined,
      signal: AbortSignal.timeout(20_000),
    });
    const text = await res.text();
    let body = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON
    }
    return { status: res.status, body, retryAfter: Number(res.headers.get('retry-after') ?? 0) };
  } catch (err) {
    return { status: 0, body: String(err?.cause?.code ?? err?.message ?? err), retryAfter: 0 };
  }
}

export const RETRYABLE = new Set([0, 502, 503, 504]);

/** As a patient client would: up to about 20 s, honouring Retry-After up to 2 s. `seen(answer, at)` gets every answer and when its request went out. */
export async function withRetries(request, seen = () => undefined) {
  let res;
  for (let attempt = 0; attempt < 12; attempt += 1) {
    const at = Date.now();
    res = await request();
    seen(res, at);
    if (!RETRYABLE.has(res.status)) return res;
    await sleep(Math.min(Math.max(res.retryAfter, 0.25 * 2 ** Math.min(attempt, 3)), 2) * 1000);
  }
  return res;
}

/** HAProxy's config: one frontend per backend, health-checked on /readyz, retrying a refused connection elsewhere. */
export function haproxyConfig(backends) {
  const sections = Object.entries(backends).map(
    ([name, { port, servers }]) => `frontend ${name}_in
  bind 127.0.0.1:${port}
  default_backend ${name}
backend ${name}
  option httpchk GET /readyz
  retry-on conn-failure
  default-server inter 300ms fall 2 rise 2
${servers.map((serverPort, i) => `  server ${name}${i + 1} 127.0.0.1:${serverPort} check`).join('\n')}`,
  );
  return `global
  maxconn 4000
defaults
  mode http
  timeout connect 1s
  timeout client 30s
  timeout server 30s
  retries 2
  option redispatch
${sections.join('\n')}
`;
}

/** The code of the newest SMS to `phone`, waiting up to 5 s for it. */
export async function codeFor(sms, phone) {
  for (let i = 0; i < 200; i += 1) {
    const message = [...sms].reverse().find((m) => m.recipient === phone);
    if (message) return /\b(\d{6})\b/.exec(message.body)?.[1];
    await sleep(25);
  }
  return undefined;
}

/**
 * One SMS login as an app does it: start (keyed, retried), the code from the provider, /oauth/ro.
 * `startUrl` and `roUrl` may name different replicas. Returns `{outcome, idToken}`; outcome 'ok' or why not.
 * `seen(answer, at, step)` gets every answer of the start and ro steps.
 */
export async function smsLogin({ startUrl, roUrl, tenant, phone, sms, key, seen = () => undefined }) {
  const start = await withRetries(
    () => call(`${startUrl}/passwordless/start`, { json: { client_id: tenant.demoClientId, connection: tenant.connectionName, phone_number: phone, send: 'code' }, headers: { 'Idempotency-Key': key } }),
    (res, at) => seen(res, at, 'start'),
  );
  if (start.status !== 200) return { outcome: `start ${start.status} ${JSON.stringify(start.body)}` };
  const code = await codeFor(sms, phone);
  const ro = code
    ? await withRetries(
        () => call(`${roUrl}/oauth/ro`, { json: { client_id: tenant.demoClientId, connection: tenant.connectionName, grant_type: 'password', username: phone, password: code, scope: 'openid' } }),
        (res, at) => seen(res, at, 'ro'),
      )
    : { status: -1, body: 'no SMS arrived' };
  return ro.status === 200 ? { outcome: 'ok', idToken: ro.body?.id_token } : { outcome: `ro ${ro.status} ${JSON.stringify(ro.body)}` };
}

/**
 * What was sent against what was recorded: every SMS has exactly one code-sent record (by the
 * start's Idempotency-Key), and keys sent more than once. `codeSent` rows are tenant_logs'
 * `{start_id}` of type 'cs'.
 */
export function smsAgainstRecords(sms, codeSent) {
  const recordsByStart = new Map();
  for (const row of codeSent) recordsByStart.set(row.start_id, (recordsByStart.get(row.start_id) ?? 0) + 1);
  const smsByKey = new Map();
  for (const m of sms) smsByKey.set(m.key, [...(smsByKey.get(m.key) ?? []), m]);
  return {
    smsWithoutRecord: [...smsByKey.keys()].filter((key) => !recordsByStart.has(key)),
    smsWithSeveralRecords: [...smsByKey.keys()].filter((key) => (recordsByStart.get(key) ?? 0) > 1),
    duplicateSms: [...smsByKey.entries()].filter(([, list]) => list.length > 1),
  };
}

/** The p-th percentile of `list`'s `ms`. */
export function percentile(list, p) {
  const sorted = list.map((l) => l.ms).sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : 0;
}

/** After a run: stops what it started (`extra` newest first, then `owned`), keeping every log and config in `resultsDir/logs`. */
export async function cleanUpRun({ extra, owned, dir, resultsDir }) {
  for (const stop of extra.reverse()) await Promise.resolve(stop()).catch(() => undefined);
  cpSync(dir, join(resultsDir, 'logs'), { recursive: true, filter: (src) => src === dir || src.endsWith('.log') || src.endsWith('.cfg') });
  await owned.stop().catch(() => undefined);
}

/** Prints where the results are and what failed; exits 1 when anything did. */
export function reportRun(name, resultsDir, failures) {
  console.log(`\nlogs and figures: ${resultsDir}`);
  if (failures.length) {
    console.error(`\n${name}: FAILED\n - ${failures.join('\n - ')}`);
    process.exit(1);
  }
  console.log(`\n${name}: every check held`);
}

/** The subject identity's delivery tokens carry, which the gateways require. */
const GATEWAY_SUBJECT = 'smsauth-identity';

/**
 * The settings of a chaos topology's replicas: identity behind `authUrl` on `databaseUrl`,
 * gateways behind `deliveryUrl` on `redisUrl` sending to the recording provider, with fresh
 * secrets; `seed(apiAudience)` sets up the demo tenant through the management API.
 */
export function topologySettings({ stack, secret, authUrl, deliveryUrl, databaseUrl, redisUrl, redisKeyPrefix, providerPort, adminPrefix }) {
  const admin = { id: `${adminPrefix}-${secret(6)}`, secret: secret(32) };
  const gatewayAuthSecret = secret(32);
  const common = { HOST: '127.0.0.1', NODE_ENV: 'production', LOG_LEVEL: 'info' };
  return {
    common,
    admin,
    identity: {
      ...common,
      AUTH_URL: authUrl,
      DATABASE_URL: databaseUrl,
      ADMIN_CLIENT_ID: admin.id,
      ADMIN_CLIENT_SECRET: admin.secret,
      KEY_ENCRYPTION_SECRET: secret(32),
      GATEWAY_URL_POLICY: 'any',
      GATEWAY_TIMEOUT_MS: '8000',
      PASSWORDLESS_START_LIMIT_PER_IP_PER_HOUR: '1000000000',
      PASSWORDLESS_START_LIMIT_PER_PHONE_PER_HOUR: '1000',
    },
    gateway: {
      ...common,
      SMS_PROVIDER: 'webhook',
      WEBHOOK_URL: `http://127.0.0.1:${providerPort}/sms`,
      REDIS_URL: redisUrl,
      REDIS_KEY_PREFIX: redisKeyPrefix,
      GATEWAY_AUTH_SECRET: gatewayAuthSecret,
      GATEWAY_AUTH_AUDIENCE: deliveryUrl,
      GATEWAY_AUTH_SUBJECT: GATEWAY_SUBJECT,
    },
    seed: (apiAudience) =>
      stack.seedDemoTenant({
        authUrl,
        adminClientId: admin.id,
        adminClientSecret: admin.secret,
        gatewayDeliveryUrl: deliveryUrl,
        gatewayAuthSecret,
        gatewayAuthAudience: deliveryUrl,
        gatewayAuthSubject: GATEWAY_SUBJECT,
        apiAudience,
      }),
  };
}
