// The code-exchange benchmark's peer: panva's oidc-provider with the authorization_code grant,
// in its own process, in production mode (development interactions off, debug logging off: the
// launcher sets DEBUG to nothing). One public client (token_endpoint_auth_method none, PKCE S256,
// which oidc-provider requires of public clients), the API audience as a resource indicator whose
// access tokens are JWTs signed RS256 with a 2048-bit key (the identity service's size), and an
// ID token (RS256) for scope openid: the same two signatures the identity service makes per
// exchange. Storage: a Map per model (MapAdapter below), as its development adapter is but
// without that one's 1,000-entry LRU bound (a batch of codes and their grants is more than that,
// and evicted codes would answer invalid_grant): memory, so cheaper than any store it would use
// in production (the identity service writes to its database).
// Codes are minted before the timed phase through its model API (what its interaction flow
// ends with: a Grant and an AuthorizationCode bound to the client, redirect_uri and challenge),
// at POST /bench/mint?n=<count> (answers a JSON array of codes); only /token is timed.
// env: PORT, PEER_CLIENT_ID, PEER_REDIRECT_URI, PEER_AUDIENCE, PEER_SCOPE, PEER_CODE_CHALLENGE,
// PEER_CODE_TTL_SECONDS.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import Provider from 'oidc-provider';

const port = Number(process.env.PORT);
const issuer = `http://127.0.0.1:${port}`;
const clientId = process.env.PEER_CLIENT_ID;
const redirectUri = process.env.PEER_REDIRECT_URI;
const audience = process.env.PEER_AUDIENCE;
const apiScope = process.env.PEER_SCOPE;
const codeChallenge = process.env.PEER_CODE_CHALLENGE;
const codeTtl = Number(process.env.PEER_CODE_TTL_SECONDS ?? 600);
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048, publicExponent: 0x10001 });
const signingJwk = { ...privateKey.export({ format: 'jwk' }), kid: 'peer-1', use: 'sig', alg: 'RS256' };
const TTL_SECONDS = 86_400;

/** oidc-provider's adapter interface over a Map: the development adapter without its bound. */
class MapAdapter {
  static stores = new Map();
  constructor(model) {
    this.model = model;
    if (!MapAdapter.stores.has(model)) MapAdapter.stores.set(model, new Map());
    this.store = MapAdapter.stores.get(model);
  }
  async upsert(id, payload) {
    this.store.set(id, payload);
    if (payload.grantId) {
      const key = `grant:${payload.grantId}`;
      const ids = MapAdapter.grants.get(key) ?? [];
      ids.push([this.model, id]);
      MapAdapter.grants.set(key, ids);
    }
  }
  async find(id) {
    return this.store.get(id);
  }
  async findByUid(uid) {
    for (const payload of this.store.values()) if (payload.uid === uid) return payload;
    return undefined;
  }
  async findByUserCode(userCode) {
    for (const payload of this.store.values()) if (payload.userCode === userCode) return payload;
    return undefined;
  }
  async consume(id) {
    const payload = this.store.get(id);
    if (payload) payload.consumed = Math.floor(Date.now() / 1000);
  }
  async destroy(id) {
    this.store.delete(id);
  }
  async revokeByGrantId(grantId) {
    for (const [model, id] of MapAdapter.grants.get(`grant:${grantId}`) ?? []) MapAdapter.stores.get(model)?.delete(id);
    MapAdapter.grants.delete(`grant:${grantId}`);
  }
}
MapAdapter.grants = new Map();

const provider = new Provider(issuer, {
  adapter: MapAdapter,
  clients: [
    {
      client_id: clientId,
      grant_types: ['authorization_code'],
      response_types: ['code'],
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: 'none',
      scope: `openid ${apiScope}`,
    },
  ],
  jwks: { keys: [signingJwk] },
  cookies: { keys: [randomBytes(32).toString('base64url')] },
  scopes: ['openid', 'offline_access', ...apiScope.split(' ')],
  // The account: a subject and nothing else (scope openid asks for no other claim).
  findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
  features: {
    devInteractions: { enabled: false },
    introspection: { enabled: false },
    revocation: { enabled: false },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => audience,
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, resourceIndicator) => {
        if (resourceIndicator !== audience) throw new Error(`unknown resource ${resourceIndicator}`);
        return { scope: apiScope, audience, accessTokenTTL: TTL_SECONDS, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'RS256' } } };
      },
    },
  },
  ttl: { AuthorizationCode: codeTtl, Grant: TTL_SECONDS, AccessToken: TTL_SECONDS, IdToken: TTL_SECONDS },
});
provider.on('server_error', (_ctx, err) => console.error('server_error', err));

let minted = 0;
/** One code as the end of an interaction makes it: a Grant for the account and client, then the code. */
async function mintCode() {
  const accountId = `user-${++minted}`;
  const grant = new provider.Grant({ accountId, clientId });
  grant.addOIDCScope('openid');
  grant.addResourceScope(audience, apiScope);
  const grantId = await grant.save();
  const client = await provider.Client.find(clientId);
  const code = new provider.AuthorizationCode({
    accountId,
    client,
    grantId,
    redirectUri,
    scope: 'openid',
    resource: audience,
    codeChallenge,
    codeChallengeMethod: 'S256',
    nonce: `nonce-${minted}`,
    authTime: Math.floor(Date.now() / 1000),
    sid: randomBytes(16).toString('base64url'),
  });
  return code.save();
}

// /readyz for the launcher, /bench/mint for the benchmark; everything else is the provider's Koa app.
const callback = provider.callback();
const server = createServer((req, res) => {
  if (req.url === '/readyz') {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    return;
  }
  if (req.method === 'POST' && req.url.startsWith('/bench/mint')) {
    const count = Number(new URL(req.url, issuer).searchParams.get('n'));
    (async () => {
      const codes = [];
      for (let i = 0; i < count; i++) codes.push(await mintCode());
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(codes));
    })().catch((err) => res.writeHead(500).end(String(err.stack ?? err)));
    return;
  }
  callback(req, res);
});
server.keepAliveTimeout = 65_000;
server.listen(port, '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
