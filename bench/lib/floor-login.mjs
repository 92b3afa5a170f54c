// The login benchmark's floor: the least work any implementation of the same wire flow must do,
// so a run can say "the bare flow costs X ms of CPU per login on this machine, ours Y".
// Role: FLOOR_ROLE=identity|gateway (or argv[2]). Bare Express 5 (NODE_ENV=production), no
// logs, no metrics, no request ids, no ETags; the requests and answers the login driver uses.
//
// identity (env PORT, DATABASE_URL, GATEWAY_URL, GATEWAY_TOKEN, ISSUER, CLIENT_ID, CONNECTION,
// FLOOR_ROLE, KEY_FILE with {kid, privateKeyPem, publicJwk}):
//   POST /passwordless/start: a 6-digit code from crypto.randomInt, stored by ONE statement
//     (upsert into floor_codes), POSTed to the gateway over a keep-alive agent, then answered.
//   POST /oauth/ro: ONE statement consumes the code and upserts the user (floor_users), then an
//     RS256 ID token (jsonwebtoken, a 2048-bit KeyObject parsed once) and an opaque access token.
// gateway (env PORT, FLOOR_ROLE, GATEWAY_TOKEN, OUTBOX_TOKEN):
//   POST /sms keeps the last message per recipient in a Map; GET /outbox/messages?recipient=
//   answers it as our outbox does ([{recipient, body, sender, ...}], newest first).
// Bearer tokens are compared as strings (timing-safe); our gateway verifies an HS256 JWT per
// delivery. A wrong code is refused without counting attempts.
import { createPrivateKey, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { requireFrom } from './services.mjs';

const requireFromIdentity = requireFrom('services/identity');
const express = requireFromIdentity('express');

function bearerMatches(header, expected) {
  const given = Buffer.from(typeof header === 'string' ? header : '');
  const wanted = Buffer.from(`Bearer ${expected}`);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

// ---------------------------------------------------------------------------------- gateway --

function mountGateway(app) {
  const { GATEWAY_TOKEN, OUTBOX_TOKEN } = process.env;
  // The last message of each recipient; oldest recipients dropped past the cap so memory stays bounded.
  const capacity = 10_000;
  const outbox = new Map();
  app.post('/sms', express.json(), (req, res) => {
    if (!bearerMatches(req.headers.authorization, GATEWAY_TOKEN)) return res.status(401).json({ error: 'unauthorized' });
    const { recipient, body, sender } = req.body ?? {};
    if (typeof recipient !== 'string' || typeof body !== 'string') return res.status(400).json({ error: 'recipient and body are required strings' });
    outbox.delete(recipient);
    outbox.set(recipient, { recipient, body, sender, received_at: new Date().toISOString() });
    if (outbox.size > capacity) outbox.delete(outbox.keys().next().value);
    res.json({});
  });
  app.get('/outbox/messages', (req, res) => {
    if (!bearerMatches(req.headers.authorization, OUTBOX_TOKEN)) return res.status(401).json({ error: 'unauthorized' });
    const message = outbox.get(req.query.recipient);
    res.setHeader('Cache-Control', 'no-store');
    res.json(message ? [message] : []);
  });
}

// --------------------------------------------------------------------------------- identity --

const PHONE = /^\+[1-9]\d{6,14}$/;
const CODE = /^\d{6}$/;
const CODE_LIFETIME = '5 minutes';
const TOKEN_LIFETIME_SECONDS = 86_400;

const START_STATEMENT = `INSERT INTO floor_codes (phone, code, expires_at, used) VALUES ($1, $2, now() + interval '${CODE_LIFETIME}', false)
ON CONFLICT (phone) DO UPDATE SET code = EXCLUDED.code, expires_at = EXCLUDED.expires_at, used = false`;
// Consumes the code and signs the user up (or in) in one round trip; no row: wrong, used or expired.
const LOGIN_STATEMENT = `WITH consumed AS (
  UPDATE floor_codes SET used = true WHERE phone = $1 AND code = $2 AND NOT used AND expires_at > now() RETURNING phone
), signed_in AS (
  INSERT INTO floor_users (phone, user_id, last_login) SELECT phone, $3, now() FROM consumed
  ON CONFLICT (phone) DO UPDATE SET last_login = EXCLUDED.last_login RETURNING user_id, phone
)
SELECT user_id, phone FROM signed_in`;

async function mountIdentity(app) {
  const { DATABASE_URL, GATEWAY_URL, GATEWAY_TOKEN, ISSUER, CLIENT_ID, CONNECTION, KEY_FILE } = process.env;
  const jwt = requireFromIdentity('jsonwebtoken');
  const { Pool } = requireFromIdentity('pg');
  const { kid, privateKeyPem, publicJwk } = JSON.parse(readFileSync(KEY_FILE, 'utf8'));
  const privateKey = createPrivateKey(privateKeyPem);
  // Our identity's pool size (store/sql-client.ts: 10 by default).
  const pool = new Pool({ connectionString: DATABASE_URL, max: 10 });
  await pool.query(`CREATE TABLE IF NOT EXISTS floor_codes (phone text PRIMARY KEY, code text NOT NULL, expires_at timestamptz NOT NULL, used boolean NOT NULL);
    CREATE TABLE IF NOT EXISTS floor_users (phone text PRIMARY KEY, user_id text NOT NULL UNIQUE, last_login timestamptz NOT NULL)`);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const gateway = new URL(GATEWAY_URL);
  const issuer = `${ISSUER}/`;

  // Not on a login's path: lets the benchmark time RS256 signing with this key's size.
  app.get('/.well-known/jwks.json', (_req, res) => res.json({ keys: [{ ...publicJwk, kid, use: 'sig', alg: 'RS256' }] }));

  const refuse = (res, status, error, description) => res.status(status).json({ error, error_description: description });
  const clientMatches = (body) => body.client_id === CLIENT_ID && body.connection === CONNECTION;

  app.post('/passwordless/start', express.json(), async (req, res, next) => {
    try {
      const body = req.body ?? {};
      if (!clientMatches(body)) return refuse(res, 400, 'bad.connection', 'unknown client_id or connection');
      if (typeof body.phone_number !== 'string' || !PHONE.test(body.phone_number)) return refuse(res, 400, 'bad.phone_number', 'phone_number must be E.164');
      if (body.send !== undefined && body.send !== 'code') return refuse(res, 400, 'bad.request', 'send must be code');
      const phone = body.phone_number;
      const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
      await pool.query({ name: 'floor-start', text: START_STATEMENT, values: [phone, code] });
      const delivery = await deliver(agent, gateway, GATEWAY_TOKEN, { recipient: phone, body: `Your code is ${code}`, sender: 'floor' });
      if (delivery !== 200) return refuse(res, 502, 'sms_provider_error', `the gateway answered ${delivery}`);
      res.json({ _id: randomBytes(12).toString('hex'), phone_number: phone, request_language: null, phone_verified: false });
    } catch (err) {
      next(err);
    }
  });

  app.post('/oauth/ro', express.json(), async (req, res, next) => {
    try {
      const body = req.body ?? {};
      if (!clientMatches(body)) return refuse(res, 400, 'invalid_request', 'unknown client_id or connection');
      if (body.grant_type !== undefined && body.grant_type !== 'password') return refuse(res, 400, 'unsupported_grant_type', 'grant_type must be password');
      if (typeof body.username !== 'string' || !PHONE.test(body.username) || typeof body.password !== 'string' || !CODE.test(body.password)) {
        return refuse(res, 401, 'invalid_user_password', 'Wrong phone number or verification code.');
      }
      const userId = `sms|${randomBytes(12).toString('hex')}`;
      const { rows } = await pool.query({ name: 'floor-login', text: LOGIN_STATEMENT, values: [body.username, body.password, userId] });
      if (rows.length === 0) return refuse(res, 401, 'invalid_user_password', 'Wrong phone number or verification code.');
      const scopes = typeof body.scope === 'string' ? body.scope.split(' ') : [];
      const iat = Math.floor(Date.now() / 1000);
      const idToken = scopes.includes('openid')
        ? jwt.sign(
            { sub: rows[0].user_id, aud: CLIENT_ID, phone_number: rows[0].phone, phone_number_verified: true, iss: issuer, iat, exp: iat + TOKEN_LIFETIME_SECONDS },
            privateKey,
            { algorithm: 'RS256', keyid: kid, header: { alg: 'RS256', typ: 'JWT', kid } },
          )
        : undefined;
      res.setHeader('Cache-Control', 'no-store');
      res.json({ access_token: randomBytes(32).toString('base64url'), ...(idToken ? { id_token: idToken } : {}), token_type: 'Bearer', expires_in: TOKEN_LIFETIME_SECONDS });
    } catch (err) {
      next(err);
    }
  });
}

/** POSTs one SMS to the gateway; resolves with its status once the answer is read. */
function deliver(agent, gateway, token, message) {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(message);
    const req = http.request(
      { host: gateway.hostname, port: gateway.port, path: gateway.pathname, method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), authorization: `Bearer ${token}` } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

// ------------------------------------------------------------------------------------ start --

const role = process.argv[2] ?? process.env.FLOOR_ROLE;
const app = express();
app.disable('x-powered-by');
app.disable('etag');
app.get('/readyz', (_req, res) => res.json({ status: 'ok' }));

if (role === 'identity') await mountIdentity(app);
else if (role === 'gateway') mountGateway(app);
else throw new Error(`floor-login.mjs: role must be identity or gateway, not ${role}`);

const server = app.listen(Number(process.env.PORT), '127.0.0.1');
server.keepAliveTimeout = 65_000;
process.on('SIGTERM', () => server.close(() => process.exit(0)));
