// The services a benchmark needs, started from the built dist/ in production mode with the
// shipped default log level (override with BENCH_LOG_LEVEL), seeded through the management API.
import { join } from 'node:path';
import { createBenchDatabase, ownedResources, repoRoot, secret, stack, startProcess, workDir } from './services.mjs';

export const API_AUDIENCE = 'https://airport-api.example.com';
const GATEWAY_SUBJECT = 'smsauth-identity';

function common() {
  return { HOST: '127.0.0.1', NODE_ENV: 'production', LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info' };
}

/**
 * identity (PGlite in a temp dir, or its own PostgreSQL database), the delivery gateway with
 * the outbox provider and bearer authentication, optionally the airport API; seeded with the
 * demo tenant. `stop()` ends everything and removes what it created.
 */
export async function startBenchStack({ database = 'pglite', airport = false, airportEnv = {}, apiAudiences = [API_AUDIENCE], identityEnv = {}, identityNodeArgs = [], airportNodeArgs = [] } = {}) {
  const dir = workDir();
  const owned = ownedResources(dir);
  const { started } = owned;
  const cleanup = owned.stop;
  try {
    const [identityPort, gatewayPort, airportPort] = await Promise.all([stack.freePort(), stack.freePort(), stack.freePort()]);
    const authUrl = `http://127.0.0.1:${identityPort}`;
    const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
    const deliveryUrl = `${gatewayUrl}/sms`;
    const adminClientId = `bench-admin-${secret(6)}`;
    const adminClientSecret = secret(32);
    const gatewayAuthSecret = secret(32);
    const outboxToken = secret(24);
    let databaseUrl = `pglite:${join(dir, 'identity')}`;
    if (database === 'postgres') {
      const db = (owned.db = await createBenchDatabase());
      if (!db) throw new Error('PostgreSQL benchmark needs TEST_DATABASE_URL or BENCH_DATABASE_URL');
      databaseUrl = db.url;
    }
    const identityOptions = {
      name: 'identity',
      port: identityPort,
      logDir: dir,
      nodeArgs: identityNodeArgs,
      env: {
        ...common(),
        AUTH_URL: authUrl,
        DATABASE_URL: databaseUrl,
        ADMIN_CLIENT_ID: adminClientId,
        ADMIN_CLIENT_SECRET: adminClientSecret,
        KEY_ENCRYPTION_SECRET: secret(32),
        GATEWAY_URL_POLICY: 'any',
        // Every login of a benchmark comes from 127.0.0.1: the per-IP start limit would stop it.
        PASSWORDLESS_START_LIMIT_PER_IP_PER_HOUR: '1000000000',
        ...identityEnv,
      },
    };
    let identity = await startProcess(identityOptions);
    started.push(identity);
    const gateway = await startOutboxGateway({ port: gatewayPort, logDir: dir, outboxToken, gatewayAuthSecret });
    started.push(gateway);
    const tenant = await stack.seedDemoTenant({
      authUrl,
      adminClientId,
      adminClientSecret,
      gatewayDeliveryUrl: deliveryUrl,
      gatewayAuthSecret,
      gatewayAuthAudience: deliveryUrl,
      gatewayAuthSubject: GATEWAY_SUBJECT,
      apiAudience: API_AUDIENCE,
    });
    const management = new stack.ManagementClient(authUrl, adminClientId, adminClientSecret);
    let airportApi;
    if (airport) {
      airportApi = await startProcess({
        name: 'airport-api',
        port: airportPort,
        logDir: dir,
        nodeArgs: airportNodeArgs,
        env: { ...common(), AUTH_URL: authUrl, API_AUDIENCE: apiAudiences.join(','), ...airportEnv },
      });
      started.push(airportApi);
    }
    const result = { dir, authUrl, gatewayUrl, deliveryUrl, outboxToken, gatewayAuthSecret, tenant, management, identity, gateway, airportApi, databaseUrl, adminClientId, adminClientSecret, stop: cleanup };
    /** Stops identity, runs `whileStopped` (e.g. writing to its PGlite directory, which one process owns), starts it again. */
    result.restartIdentity = async (whileStopped = async () => undefined) => {
      await identity.stop();
      started.splice(started.indexOf(identity), 1);
      await whileStopped();
      identity = await startProcess(identityOptions);
      started.push(identity);
      result.identity = identity;
      return identity;
    };
    return result;
  } catch (err) {
    await cleanup();
    throw err;
  }
}

/**
 * The delivery gateway with the outbox provider (codes are read back from its outbox) and bearer
 * authentication: a sender must sign an HS256 JWT with `gatewayAuthSecret` for `<url>/sms`.
 */
export function startOutboxGateway({ port, logDir, outboxToken, gatewayAuthSecret }) {
  const deliveryUrl = `http://127.0.0.1:${port}/sms`;
  return startProcess({
    name: 'sms-delivery-gateway',
    port,
    logDir,
    env: {
      ...common(),
      SMS_PROVIDER: 'outbox',
      OUTBOX_TOKEN: outboxToken,
      GATEWAY_AUTH_SECRET: gatewayAuthSecret,
      GATEWAY_AUTH_AUDIENCE: deliveryUrl,
      GATEWAY_AUTH_SUBJECT: GATEWAY_SUBJECT,
    },
  });
}

/**
 * The login benchmark's peer stack: better-auth with its phone-number plugin
 * (lib/peer-better-auth.mjs) on a PostgreSQL database of its own, delivering through our gateway
 * exactly as identity does. `record`: with the per-request record ours keeps (BETTER_AUTH_RECORD).
 */
export async function startBetterAuthStack({ record = false } = {}) {
  const dir = workDir('smsauth-better-auth-');
  const owned = ownedResources(dir);
  try {
    const db = (owned.db = await createBenchDatabase());
    if (!db) throw new Error('the better-auth peer needs TEST_DATABASE_URL or BENCH_DATABASE_URL');
    const [peerPort, gatewayPort] = await Promise.all([stack.freePort(), stack.freePort()]);
    const outboxToken = secret(24);
    const gatewayAuthSecret = secret(32);
    const gateway = await startOutboxGateway({ port: gatewayPort, logDir: dir, outboxToken, gatewayAuthSecret });
    owned.started.push(gateway);
    const deliveryUrl = `${gateway.url}/sms`;
    const peer = await startProcess({
      name: record ? 'better-auth-record' : 'better-auth',
      script: join(repoRoot, 'bench', 'lib', 'peer-better-auth.mjs'),
      port: peerPort,
      logDir: dir,
      env: {
        NODE_ENV: 'production',
        DATABASE_URL: db.url,
        DELIVERY_URL: deliveryUrl,
        GATEWAY_AUTH_SECRET: gatewayAuthSecret,
        GATEWAY_AUTH_AUDIENCE: deliveryUrl,
        GATEWAY_AUTH_SUBJECT: GATEWAY_SUBJECT,
        ...(record ? { BETTER_AUTH_RECORD: '1' } : {}),
      },
    });
    owned.started.push(peer);
    return { dir, authUrl: peer.url, gatewayUrl: gateway.url, outboxToken, identity: peer, gateway, databaseUrl: db.url, stop: owned.stop };
  } catch (err) {
    await owned.stop();
    throw err;
  }
}

/** Starts (or restarts) the airport API against a running stack. */
export async function startAirportApi(benchStack, { env = {}, apiAudiences = [API_AUDIENCE], nodeArgs = [], name = 'airport-api', script } = {}) {
  return startProcess({
    name,
    ...(script ? { script } : {}),
    port: await stack.freePort(),
    logDir: benchStack.dir,
    nodeArgs,
    env: { ...common(), AUTH_URL: benchStack.authUrl, API_AUDIENCE: apiAudiences.join(','), ...env },
  });
}

/**
 * Starts the airport benchmarks' peer (lib/peer-airport.mjs) against a running stack, in
 * production mode; `operatorDefaults` ('1' or 'tuned') gives it the per-request record
 * (PEER_OPERATOR_DEFAULTS there).
 */
export async function startPeerAirport(benchStack, { name = 'peer-airport', apiAudiences = [API_AUDIENCE], operatorDefaults } = {}) {
  return startProcess({
    name,
    script: join(repoRoot, 'bench', 'lib', 'peer-airport.mjs'),
    port: await stack.freePort(),
    logDir: benchStack.dir,
    env: { NODE_ENV: 'production', AUTH_URL: benchStack.authUrl, API_AUDIENCE: apiAudiences.join(','), ...(operatorDefaults ? { PEER_OPERATOR_DEFAULTS: operatorDefaults } : {}) },
  });
}
