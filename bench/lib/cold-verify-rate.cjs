// node bench/lib/cold-verify-rate.cjs [cacheEntries]: the cost of a cold verification in process,
// the airport API's built verifier alone (packages/api-gateway/dist, so `pnpm build` first;
// COLD_VERIFY_DIST=<another checkout's packages/api-gateway/dist> measures that tree's): 12,000
// distinct RS256 tokens (2048-bit key) through a cache of 10,000 entries (the gateway's default;
// every call misses), COLD_VERIFY_IN_FLIGHT (default 16, the benchmarks' connections) at a time,
// 4 rounds; then the floor on the same tokens: exactly split, base64url-decode, JSON.parse of
// header and payload and one node:crypto verify, synchronous and on the thread pool (callback).
// Per verification: wall time, the process's CPU time (every thread) and the main thread's
// (the event loop's, from /proc/self/task/<pid>/stat).
const { generateKeyPairSync, verify } = require('node:crypto');
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

const dist = process.env.COLD_VERIFY_DIST ?? join(__dirname, '..', '..', 'packages', 'api-gateway', 'dist');
const requireFromGateway = (name) => require(require.resolve(name, { paths: [dist] }));
const { JwtVerifier } = require(join(dist, 'jwt-verifier.js'));
const { VerifiedTokenCache } = require(join(dist, 'token-cache.js'));
const { createGatewayMetrics } = require(join(dist, 'gateway-metrics.js'));
const { algorithmsForKey } = require(join(dist, 'algorithms.js'));
const { Registry } = requireFromGateway('prom-client');
const jwt = requireFromGateway('jsonwebtoken');

const COUNT = 12_000;
const IN_FLIGHT = Number(process.env.COLD_VERIFY_IN_FLIGHT ?? 16);
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

const TICK_US = 1e6 / 100; // USER_HZ
function mainThreadCpuUs() {
  const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_US;
}

/** Runs `check` over every token, IN_FLIGHT at a time; µs per token of wall, process CPU and main-thread CPU. */
async function measure(check) {
  const wall = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  const main = mainThreadCpuUs();
  let next = 0;
  const lane = async () => {
    while (next < tokens.length) {
      const result = await check(tokens[next++]);
      if (result !== true && !result.ok) throw new Error(result.reason ?? 'refused');
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  const used = process.cpuUsage(cpu);
  const per = (us) => (us / COUNT).toFixed(1);
  return { wallUs: per(Number(process.hrtime.bigint() - wall) / 1000), cpuUs: per(used.user + used.system), mainThreadUs: per(mainThreadCpuUs() - main) };
}

const floorParse = (token) => {
  const [header, payload, signature] = token.split('.');
  JSON.parse(Buffer.from(header, 'base64url').toString('utf8'));
  JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  return { input: Buffer.from(`${header}.${payload}`), signature: Buffer.from(signature, 'base64url') };
};
const floorSync = (token) => {
  const { input, signature } = floorParse(token);
  return verify('sha256', input, publicKey, signature);
};
const floorAsync = (token) => {
  const { input, signature } = floorParse(token);
  return new Promise((resolve, reject) => verify('sha256', input, publicKey, signature, (err, ok) => (err ? reject(err) : resolve(ok))));
};

(async () => {
  console.log(`${dist}, ${IN_FLIGHT} in flight, µs per verification: wall / process CPU / main thread CPU`);
  for (let round = 1; round <= 4; round++) {
    const gateway = await measure((token) => verifier.verify(token, scheme));
    const sync = await measure(floorSync);
    const threadPool = await measure(floorAsync);
    console.log(
      `round ${round}: verifier ${gateway.wallUs} / ${gateway.cpuUs} / ${gateway.mainThreadUs}; ` +
        `floor sync ${sync.wallUs} / ${sync.cpuUs} / ${sync.mainThreadUs}; floor thread pool ${threadPool.wallUs} / ${threadPool.cpuUs} / ${threadPool.mainThreadUs}`,
    );
  }
})();
