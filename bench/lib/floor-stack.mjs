// Starts the login benchmark's floor (lib/floor-login.mjs): a bare identity and a bare gateway,
// each its own process, identity on a PostgreSQL database of its own (dropped afterwards). The
// result has the fields `loginSpec` (benchmarks/login.mjs) and the login driver need.
import { createPublicKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createBenchDatabase, ownedResources, repoRoot, secret, stack, startProcess, workDir } from './services.mjs';

const script = join(repoRoot, 'bench', 'lib', 'floor-login.mjs');
const CLIENT_ID = 'floor-client';
const CONNECTION = 'sms';

/** A 2048-bit RSA key as PEM and JWK (PEM strings: no KeyObject from the key generation job). */
function writeKeyFile(dir) {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const file = join(dir, 'floor-key.json');
  const publicJwk = createPublicKey(publicKey).export({ format: 'jwk' });
  writeFileSync(file, JSON.stringify({ kid: randomBytes(8).toString('hex'), privateKeyPem: privateKey, publicJwk }));
  return file;
}

export async function startFloorStack() {
  const dir = workDir('smsauth-floor-');
  const owned = ownedResources(dir);
  const { started } = owned;
  const cleanup = owned.stop;
  try {
    const db = (owned.db = await createBenchDatabase());
    if (!db) throw new Error('the login floor needs TEST_DATABASE_URL or BENCH_DATABASE_URL');
    const [identityPort, gatewayPort] = await Promise.all([stack.freePort(), stack.freePort()]);
    const authUrl = `http://127.0.0.1:${identityPort}`;
    const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
    const gatewayToken = secret(24);
    const outboxToken = secret(24);
    const common = { HOST: '127.0.0.1', NODE_ENV: 'production' };
    const gateway = await startProcess({ name: 'floor-gateway', script, port: gatewayPort, logDir: dir, env: { ...common, FLOOR_ROLE: 'gateway', GATEWAY_TOKEN: gatewayToken, OUTBOX_TOKEN: outboxToken } });
    started.push(gateway);
    const identity = await startProcess({
      name: 'floor-identity',
      script,
      port: identityPort,
      logDir: dir,
      env: { ...common, FLOOR_ROLE: 'identity', DATABASE_URL: db.url, GATEWAY_URL: `${gatewayUrl}/sms`, GATEWAY_TOKEN: gatewayToken, ISSUER: authUrl, CLIENT_ID, CONNECTION, KEY_FILE: writeKeyFile(dir) },
    });
    started.push(identity);
    return { dir, authUrl, gatewayUrl, outboxToken, tenant: { demoClientId: CLIENT_ID, connectionName: CONNECTION }, identity, gateway, databaseUrl: db.url, stop: cleanup };
  } catch (err) {
    await cleanup();
    throw err;
  }
}
