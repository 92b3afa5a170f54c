// The login benchmark's load generator, in its own process. A login is three calls on two
// hosts, which autocannon cannot chain: POST /passwordless/start -> GET the gateway's outbox
// for the code -> POST /oauth/ro (spec.flow 'better-auth': the peer's calls, betterAuthLogin).
// argv: <spec.json> with {flow, authUrl, gatewayUrl, outboxToken, clientId, connection, durationSec, concurrency, logins?} (closed loop: each worker starts its next
// login when the last finished) or {..., rate} (open loop: logins start on a fixed schedule and
// latency counts from the scheduled start, so a stall is not hidden). Every login uses a new
// phone number (the per-number start limit would refuse repeats).
import http from 'node:http';
import { readFileSync } from 'node:fs';

const spec = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });
// Valid numbers only (identity refuses others): +1 415 with an exchange 200-999, 8 million in
// a row from a random first one, so repeated runs against one stack rarely meet.
const firstNumber = Math.floor(Math.random() * 8_000_000);
let counter = 0;

function call(url, method, body, headers = {}) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(url, { method, agent, headers: { accept: 'application/json', ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}), ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode, text, cookies: res.headers['set-cookie'] ?? [] }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** The code the gateway's outbox holds for `phone` (the delivery may land just after the start answered). */
async function codeFor(phone) {
  for (let attempt = 0; attempt < 50; attempt++) {
    const outbox = await call(`${spec.gatewayUrl}/outbox/messages?recipient=${encodeURIComponent(phone)}`, 'GET', undefined, { authorization: `Bearer ${spec.outboxToken}` });
    if (outbox.status !== 200) throw new Error(`outbox answered ${outbox.status}: ${outbox.text}`);
    const code = JSON.parse(outbox.text)[0]?.body.match(/\b(\d{4,10})\b/)?.[1];
    if (code) return code;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no code for ${phone} in the outbox`);
}

/** Ours: POST /passwordless/start, the code from the outbox, POST /oauth/ro (ID and access token). */
async function smsauthLogin(phone) {
  const start = await call(`${spec.authUrl}/passwordless/start`, 'POST', { client_id: spec.clientId, connection: spec.connection, phone_number: phone, send: 'code', authParams: { scope: 'openid' } });
  if (start.status !== 200) throw new Error(`start answered ${start.status}: ${start.text}`);
  const code = await codeFor(phone);
  const ro = await call(`${spec.authUrl}/oauth/ro`, 'POST', { client_id: spec.clientId, connection: spec.connection, grant_type: 'password', username: phone, password: code, scope: 'openid', device: 'bench' });
  if (ro.status !== 200) throw new Error(`/oauth/ro answered ${ro.status}: ${ro.text}`);
  const tokens = JSON.parse(ro.text);
  return Object.values(tokens).filter((v) => typeof v === 'string' && v.split('.').length === 3).length;
}

/**
 * better-auth's phone-number plugin: POST send-otp, the code from the outbox, POST verify (a
 * session, its cookie), then GET /api/auth/token (the jwt plugin's RS256 token for an API).
 */
async function betterAuthLogin(phone) {
  const origin = { origin: spec.authUrl };
  const sent = await call(`${spec.authUrl}/api/auth/phone-number/send-otp`, 'POST', { phoneNumber: phone }, origin);
  if (sent.status !== 200) throw new Error(`send-otp answered ${sent.status}: ${sent.text}`);
  const code = await codeFor(phone);
  const verified = await call(`${spec.authUrl}/api/auth/phone-number/verify`, 'POST', { phoneNumber: phone, code }, origin);
  if (verified.status !== 200) throw new Error(`verify answered ${verified.status}: ${verified.text}`);
  const cookie = verified.cookies.map((c) => c.split(';')[0]).join('; ');
  const token = await call(`${spec.authUrl}/api/auth/token`, 'GET', undefined, { ...origin, cookie });
  if (token.status !== 200) throw new Error(`/api/auth/token answered ${token.status}: ${token.text}`);
  return JSON.parse(token.text).token.split('.').length === 3 ? 1 : 0;
}

const flows = { smsauth: smsauthLogin, 'better-auth': betterAuthLogin };
const flow = flows[spec.flow ?? 'smsauth'];

function login() {
  return flow(`+1415${2_000_000 + ((firstNumber + counter++) % 8_000_000)}`);
}

const latencies = [];
let errors = 0;
let firstError;
let signatures;
async function timed(scheduledAt) {
  try {
    signatures = await login();
    latencies.push(performance.now() - scheduledAt);
  } catch (err) {
    errors += 1;
    firstError ??= String(err.message);
  }
}

const cpuAtStart = process.cpuUsage();
const startedAt = performance.now();
const endAt = startedAt + spec.durationSec * 1000;
if (spec.rate) {
  const interval = 1000 / spec.rate;
  const inFlight = new Set();
  for (let i = 0; ; i++) {
    const scheduledAt = startedAt + i * interval;
    if (scheduledAt >= endAt) break;
    const wait = scheduledAt - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const p = timed(scheduledAt).finally(() => inFlight.delete(p));
    inFlight.add(p);
  }
  await Promise.all(inFlight);
} else {
  // spec.logins: stop once that many logins have started (the memory benchmark's fixed load).
  let begun = 0;
  const more = () => performance.now() < endAt && (!spec.logins || begun++ < spec.logins);
  await Promise.all(
    Array.from({ length: spec.concurrency }, async () => {
      while (more()) await timed(performance.now());
    }),
  );
}
const elapsedSec = (performance.now() - startedAt) / 1000;
latencies.sort((a, b) => a - b);
const pct = (p) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] : null);
process.stdout.write(`${JSON.stringify({ logins: latencies.length, loginsPerSec: latencies.length / elapsedSec, p50Ms: pct(50), p99Ms: pct(99), maxMs: latencies.at(-1) ?? null, errors, firstError, signaturesPerLogin: signatures, driverCpuMs: cpuMsSince(cpuAtStart) })}\n`);

function cpuMsSince(start) {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}
