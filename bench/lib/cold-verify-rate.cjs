// node bench/lib/cold-verify-rate.cjs [cacheEntries]: µs per cold verification in process, the
// airport API's verifier alone (packages/api-gateway/dist, so `pnpm build` first): 12,000
// distinct RS256 tokens (2048-bit key) through a cache of 10,000 entries (the gateway's
// default; every call misses), 4 rounds, then node:crypto's verify of the same tokens.
const { generateKeyPairSync, verify } = require('node:crypto');
const { join } = require('node:path');

const dist = join(__dirname, '..', '..', 'packages', 'api-gateway', 'dist');
const requireFromGateway = (name) => require(require.resolve(name, { paths: [dist] }));
const { JwtVerifier } = require(join(dist, 'jwt-verifier.js'));
const { VerifiedTokenCache } = require(join(dist, 'token-cache.js'));
const { createGatewayMetrics } = require(join(dist, 'gateway-metrics.js'));
const { algorithmsForKey } = require(join(dist, 'algorithms.js'));
const { Registry } = requireFromGateway('prom-client');
const jwt = requireFromGateway('jsonwebtoken');

const COUNT = 12_000;
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const keys = [{ kid: 'k1', key: publicKey, algorithms: algorithmsForKey(publicKey) }];
// A key store whose set is already fetched (what the gateway has after its first JWKS fetch).
const keyStore = { lookup: async () => ({ found: true, keys }), cachedKeys: () => keys };
const scheme = { name: 'auth0', issuer: 'https://id.example.com/', audiences: ['https://api.example.com'], jwksUri: 'jwks' };
const clock = { now: () => new Date() };
const verifier = new JwtVerifier({
  keyStores: new Map([['jwks', keyStore]]),
  cache: new VerifiedTokenCache(clock, Number(process.argv[2] ?? 10_000)),
  clock,
  metrics: createGatewayMetrics(new Registry()),
  clockToleranceSec: 60,
});
const tokens = Array.from({ length: COUNT }, (_, i) =>
  jwt.sign({ scope: `s${i} read:airports`, gty: 'client-credentials' }, privateKey, {
    algorithm: 'RS256', keyid: 'k1', issuer: scheme.issuer, audience: scheme.audiences[0], subject: 'client@clients', expiresIn: 86_400,
  }),
);

(async () => {
  for (let round = 1; round <= 4; round++) {
    const start = process.hrtime.bigint();
    for (const token of tokens) {
      const result = await verifier.verify(token, scheme);
      if (!result.ok) throw new Error(result.reason);
    }
    console.log(`round ${round}: ${(Number(process.hrtime.bigint() - start) / 1000 / COUNT).toFixed(1)} µs per cold verification`);
  }
  const start = process.hrtime.bigint();
  for (const token of tokens) {
    const [header, payload, signature] = token.split('.');
    verify('RSA-SHA256', Buffer.from(`${header}.${payload}`), publicKey, Buffer.from(signature, 'base64url'));
  }
  console.log(`node:crypto verify alone: ${(Number(process.hrtime.bigint() - start) / 1000 / COUNT).toFixed(1)} µs`);
})();
