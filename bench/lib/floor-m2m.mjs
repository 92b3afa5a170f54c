// The m2m benchmark's floor: the least a client_credentials token endpoint can do on Express 5.
// One client and one API held in memory, the secret compared with timingSafeEqual, an RS256
// signature (2048 bits, the identity key's size: KEY_FILE from keyMaterialFromToken; a KeyObject
// parsed once) computed on libuv's thread pool like ours (node:crypto's asynchronous sign) and the
// peer's (jose on WebCrypto), the header serialised once; no database, no logs, no metrics, no
// request ids. Same JSON request as ours. Ours vs this row is what identity's own work per token costs on Express; this row vs the
// peer is whether Express itself can be ahead of oidc-provider (Koa) on this machine.
// env: PORT, KEY_FILE, FLOOR_CLIENT_ID, FLOOR_CLIENT_SECRET, FLOOR_AUDIENCE, FLOOR_SCOPE, FLOOR_ISSUER
import { createPrivateKey, sign, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { requireFrom } from './services.mjs';

const requireFromIdentity = requireFrom('services/identity');
const express = requireFromIdentity('express');

const { FLOOR_CLIENT_ID, FLOOR_CLIENT_SECRET, FLOOR_AUDIENCE, FLOOR_SCOPE, FLOOR_ISSUER } = process.env;
const privateKey = createPrivateKey(JSON.parse(readFileSync(process.env.KEY_FILE, 'utf8')).privateKeyPem);
const kid = 'floor';
const header = Buffer.from(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid })).toString('base64url');
const secret = Buffer.from(FLOOR_CLIENT_SECRET);
const LIFETIME = 86_400;

const app = express();
app.disable('x-powered-by');
app.disable('etag');
app.get('/readyz', (_req, res) => res.json({ status: 'ok' }));
app.post('/oauth/token', express.json(), (req, res) => {
  const body = req.body ?? {};
  const given = Buffer.from(typeof body.client_secret === 'string' ? body.client_secret : '');
  if (body.grant_type !== 'client_credentials') return res.status(400).json({ error: 'unsupported_grant_type' });
  if (body.client_id !== FLOOR_CLIENT_ID || given.length !== secret.length || !timingSafeEqual(given, secret)) {
    return res.status(401).json({ error: 'access_denied', error_description: 'Unauthorized' });
  }
  if (body.audience !== FLOOR_AUDIENCE) return res.status(403).json({ error: 'access_denied', error_description: `Service not found: ${body.audience}` });
  const iat = Math.floor(Date.now() / 1000);
  const payload = { sub: `${FLOOR_CLIENT_ID}@clients`, aud: FLOOR_AUDIENCE, azp: FLOOR_CLIENT_ID, scope: FLOOR_SCOPE, gty: 'client-credentials', iss: FLOOR_ISSUER, iat, exp: iat + LIFETIME };
  const input = `${header}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
  sign('sha256', Buffer.from(input), privateKey, (err, signature) => {
    if (err) return res.status(500).json({ error: 'server_error' });
    res.setHeader('Cache-Control', 'no-store');
    res.json({ access_token: `${input}.${signature.toString('base64url')}`, token_type: 'Bearer', expires_in: LIFETIME, scope: FLOOR_SCOPE });
  });
});
const server = app.listen(Number(process.env.PORT), '127.0.0.1');
server.keepAliveTimeout = 65_000;
process.on('SIGTERM', () => server.close(() => process.exit(0)));
