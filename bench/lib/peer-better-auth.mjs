// The login benchmark's peer: better-auth with its phone-number plugin, what a TypeScript team
// would pick instead of the identity service for SMS one-time-code sign-in. Configured the way its
// documentation shows for production, on PostgreSQL (node-postgres Pool, its Kysely adapter):
// - phoneNumber(): `sendOTP` POSTs {recipient, body, sender} to the same delivery gateway ours
//   uses, with a fresh HS256 bearer JWT per delivery (as identity sends it); numbers checked with
//   libphonenumber-js (the plugin's `phoneNumberValidator` recipe); sign-up on verification
//   (a new number is a new user, as at ours).
// - jwt(): RS256 2048-bit keys, so the client gets a signed token for its API from
//   GET /api/auth/token after the verify (ours hands the ID and access tokens out at /oauth/ro).
// - its rate limiter on (the production default), its limits raised so that one benchmark host
//   is not refused: the same as PASSWORDLESS_START_LIMIT_PER_IP_PER_HOUR at ours.
// BETTER_AUTH_RECORD=1: the per-request record ours keeps by default, added as their READMEs
// show: pino-http (request id, an access line per request) and a prom-client duration histogram.
// env: PORT, DATABASE_URL, DELIVERY_URL, GATEWAY_AUTH_SECRET, GATEWAY_AUTH_AUDIENCE,
// GATEWAY_AUTH_SUBJECT, BETTER_AUTH_RECORD.
import { createSecretKey, randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { betterAuth } from 'better-auth';
import { getMigrations } from 'better-auth/db/migration';
import { toNodeHandler } from 'better-auth/node';
import { jwt } from 'better-auth/plugins/jwt';
import { phoneNumber } from 'better-auth/plugins/phone-number';
import { requireFrom } from './services.mjs';

const requireFromIdentity = requireFrom('services/identity');
const requireFromKit = requireFrom('packages/service-kit');
const { Pool } = requireFromIdentity('pg');
const jsonwebtoken = requireFromIdentity('jsonwebtoken');
const { isValidPhoneNumber } = requireFromIdentity('libphonenumber-js');

const port = Number(process.env.PORT);
const baseURL = `http://127.0.0.1:${port}`;
const gatewayKey = createSecretKey(Buffer.from(process.env.GATEWAY_AUTH_SECRET, 'utf8'));
const UNLIMITED = { window: 60, max: 1_000_000_000 };

async function deliver({ phoneNumber: recipient, code }) {
  const now = Math.floor(Date.now() / 1000);
  const token = jsonwebtoken.sign({ sub: process.env.GATEWAY_AUTH_SUBJECT, aud: process.env.GATEWAY_AUTH_AUDIENCE, iat: now, exp: now + 300 }, gatewayKey, { algorithm: 'HS256' });
  const response = await fetch(process.env.DELIVERY_URL, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ recipient, body: `${code} is your verification code`, sender: 'better-auth' }),
  });
  if (!response.ok) throw new Error(`the delivery gateway answered ${response.status}`);
}

const options = {
  baseURL,
  secret: randomBytes(32).toString('base64url'),
  database: new Pool({ connectionString: process.env.DATABASE_URL, max: 10 }),
  rateLimit: { enabled: true, ...UNLIMITED, customRules: { '/phone-number/*': UNLIMITED } },
  telemetry: { enabled: false },
  plugins: [
    phoneNumber({
      sendOTP: deliver,
      phoneNumberValidator: (number) => isValidPhoneNumber(number),
      signUpOnVerification: { getTempEmail: (number) => `${number.slice(1)}@phone.invalid`, getTempName: (number) => number },
    }),
    jwt({ jwks: { keyPairConfig: { alg: 'RS256', modulusLength: 2048 } } }),
  ],
};
const { runMigrations } = await getMigrations(options);
await runMigrations();
const auth = betterAuth(options);
const handler = toNodeHandler(auth);

let record = (_req, _res, next) => next();
if (process.env.BETTER_AUTH_RECORD === '1') {
  const { default: pinoHttp } = await import('pino-http');
  const { Histogram, Registry, collectDefaultMetrics } = requireFromKit('prom-client');
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const duration = new Histogram({ name: 'http_request_duration_seconds', help: 'request duration', labelNames: ['method', 'route', 'status'], registers: [registry] });
  const log = pinoHttp({ genReqId: (req, res) => { const id = req.headers['x-request-id'] ?? randomUUID(); res.setHeader('x-request-id', id); return id; } });
  record = (req, res, next) => {
    const end = duration.startTimer({ method: req.method });
    res.on('finish', () => end({ route: req.url.split('?')[0], status: String(res.statusCode) }));
    log(req, res, next);
  };
}

const server = createServer((req, res) => {
  if (req.url === '/readyz') {
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    return;
  }
  record(req, res, () => handler(req, res));
});
server.keepAliveTimeout = 65_000;
server.listen(port, '127.0.0.1');
const stop = () => server.close(() => options.database.end().then(() => process.exit(0)));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
