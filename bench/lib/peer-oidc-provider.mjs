// The m2m benchmark's peer: panva's oidc-provider (what a user would run instead of the identity
// service for client_credentials), in its own process, configured for production the way its
// documentation describes: development interactions off, the client_credentials grant on, one
// confidential client (client_secret_post, as the benchmark's load sends the secret in the body),
// a resource indicator whose tokens are JWTs signed RS256 with a 2048-bit RSA key (the size of
// the identity service's keys) and live 24 hours (as the identity service's do).
// Its in-memory adapter stays: a JWT access token is signed and returned, never stored
// (getValueAndPayload of the jwt format returns no payload, so save() calls no adapter).
// Logging: oidc-provider logs only through `debug`, off unless DEBUG names it (the launcher
// sets DEBUG to nothing).
// PEER_RECORD=1 (with DATABASE_URL): the record ours keeps per token, added as a user of the peer
// would: an audit row INSERTed into PostgreSQL and awaited before the answer (a Koa middleware
// after the token endpoint succeeded, where its `grant.success` event fires), and the
// per-request record of lib/request-record.mjs (request id, access line, duration histogram).
// env: PORT, PEER_CLIENT_ID, PEER_CLIENT_SECRET, PEER_AUDIENCE, PEER_SCOPE, PEER_RECORD, DATABASE_URL.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import Provider from 'oidc-provider';
import { requestRecord } from './request-record.mjs';

const port = Number(process.env.PORT);
const issuer = `http://127.0.0.1:${port}`;
const audience = process.env.PEER_AUDIENCE;
const scope = process.env.PEER_SCOPE;
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048, publicExponent: 0x10001 });
const signingJwk = { ...privateKey.export({ format: 'jwk' }), kid: 'peer-1', use: 'sig', alg: 'RS256' };
const TTL_SECONDS = 86_400;

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: process.env.PEER_CLIENT_ID,
      client_secret: process.env.PEER_CLIENT_SECRET,
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_post',
      scope,
    },
  ],
  jwks: { keys: [signingJwk] },
  cookies: { keys: [randomBytes(32).toString('base64url')] },
  scopes: ['openid', 'offline_access', ...scope.split(' ')],
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    introspection: { enabled: false },
    revocation: { enabled: false },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => audience,
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, resourceIndicator) => {
        if (resourceIndicator !== audience) throw new Error(`unknown resource ${resourceIndicator}`);
        return { scope, audience, accessTokenTTL: TTL_SECONDS, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'RS256' } } };
      },
    },
  },
  ttl: { ClientCredentials: TTL_SECONDS },
});
provider.on('server_error', (_ctx, err) => console.error('server_error', err));

const withRecord = process.env.PEER_RECORD === '1';
let pool;
if (withRecord) {
  const { Pool } = createRequire(new URL('../../services/identity/package.json', import.meta.url))('pg');
  pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
  await pool.query('CREATE TABLE IF NOT EXISTS peer_token_audit (id bigserial PRIMARY KEY, at timestamptz NOT NULL DEFAULT now(), client_id text NOT NULL, audience text, ip text, user_agent text)');
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.path === '/token' && ctx.status === 200) {
      await pool.query('INSERT INTO peer_token_audit (client_id, audience, ip, user_agent) VALUES ($1, $2, $3, $4)', [ctx.oidc?.client?.clientId ?? null, audience, ctx.ip, ctx.get('user-agent') || null]);
    }
  });
}
const { record } = withRecord ? requestRecord() : { record: (_req, _res, next) => next() };

// /readyz for the launcher; everything else is the provider's Koa app.
const callback = provider.callback();
const server = createServer((req, res) => {
  if (req.url === '/readyz') {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    return;
  }
  record(req, res, () => callback(req, res));
});
server.keepAliveTimeout = 65_000;
server.listen(port, '127.0.0.1');
process.on('SIGTERM', () => server.close(() => (pool ? pool.end() : Promise.resolve()).then(() => process.exit(0))));
