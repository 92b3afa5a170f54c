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
// BETTER_AUTH_RECORD=1: the per-request record ours keeps by default, added as the libraries'
// READMEs show (lib/request-record.mjs: request id, an access line, a duration histogram).
// env: PORT, DATABASE_URL, DELIVERY_URL, GATEWAY_AUTH_SECRET, GATEWAY_AUTH_AUDIENCE,
// GATEWAY_AUTH_SUBJECT, BETTER_AUTH_RECORD.
import { createSecretKey, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { betterAuth } from 'better-auth';
import { getMigrations } from 'better-auth/db/migration';
import { toNodeHandler } from 'better-auth/node';
import { jwt } from 'better-auth/plugins/jwt';
import { phoneNumber } from 'better-auth/plugins/phone-number';
import { requestRecord } from './request-record.mjs';

// The identity service's copies of pg, jsonwebtoken and libphonenumber-js (bench/ is no package).
const requireFromIdentity = createRequire(new URL('../../services/identity/package.json', import.meta.url));
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

const { record } = process.env.BETTER_AUTH_RECORD === '1' ? requestRecord() : { record: (_req, _res, next) => next() };

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
