import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, GATEWAY_AUTH_SUBJECT, launchStack, ManagementClient, type LaunchedStack, repoRoot } from '@smsauth/stack';
import { createLocalCertificate, type LocalCertificate, startTlsTerminator } from './tls';
import { trustCertificate } from './trust';

declare global {
  var __SMSAUTH_COMPAT__: { stack: LaunchedStack; terminator: Server; deployCliTerminator: Server } | undefined;
}

/** The confidential application the SDK tests sign in with (the SDKs always use connection "sms"). */
export const COMPAT_APP_NAME = 'Compat regular web app';

/**
 * One stack for the whole suite, with identity behind a TLS terminator: identity's AUTH_URL (so
 * its issuer and the management API audience) is https://localhost:<port>, exactly what the
 * SDKs derive from the domain `localhost:<port>`. Settings reach the tests as COMPAT_* variables
 * (never AUTH_URL & co., which would make the e2e suite test this stack in a multi-project run).
 */
export default async function globalSetup(): Promise<void> {
  for (const name of ['identity', 'sms-delivery-gateway', 'airport-api']) {
    if (!existsSync(join(repoRoot, 'services', name, 'dist', 'main.js'))) {
      throw new Error(`services/${name} is not built: run \`pnpm build\` first (pnpm test does)`);
    }
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'smsauth-compat-'));
  const certificate = await createLocalCertificate();
  // Only the certificate is written (the private key stays in this process's memory).
  const caFile = join(dataDir, 'localhost-cert.pem');
  writeFileSync(caFile, certificate.cert);
  // Trusted here for seeding and the fixture below only; each test file's environment trusts it again.
  const untrust = trustCertificate(certificate.cert);
  try {
    await launchAndPrepare(certificate, caFile, dataDir);
  } finally {
    untrust();
  }
}

async function launchAndPrepare(certificate: LocalCertificate, caFile: string, dataDir: string): Promise<void> {
  const ports = { identity: await freePort(), gateway: await freePort(), airport: await freePort() };
  const terminator = await startTlsTerminator(certificate, ports.identity, await freePort());
  const domain = `localhost:${portOf(terminator)}`;
  // auth0-deploy-cli exports and imports a whole tenant, so its test launches a stack of its own
  // (the other files change this one while they run); its identity is reached through this
  // terminator, with the same certificate, on the port set aside here.
  const deployCliIdentityPort = await freePort();
  const deployCliTerminator = await startTlsTerminator(certificate, deployCliIdentityPort, await freePort());
  let stack: LaunchedStack | undefined;
  try {
    stack = await launchStack({
      ports,
      dataDir,
      env: { LOG_LEVEL: 'warn' },
      publicAuthUrl: `https://${domain}`,
      // The airport API fetches identity's JWKS over https at start.
      serviceEnv: { NODE_EXTRA_CA_CERTS: caFile },
    });
    const app = await createSignInApp(stack);
    globalThis.__SMSAUTH_COMPAT__ = { stack, terminator, deployCliTerminator };
    exportSettings(stack, app, domain, caFile);
    Object.assign(process.env, {
      COMPAT_DEPLOY_CLI_DOMAIN: `localhost:${portOf(deployCliTerminator)}`,
      COMPAT_DEPLOY_CLI_IDENTITY_PORT: String(deployCliIdentityPort),
    });
  } catch (err) {
    // jest runs no global teardown after a failed setup.
    terminator.close();
    deployCliTerminator.close();
    await stack?.stop();
    throw err;
  }
}

function portOf(server: Server): number {
  const address = server.address();
  return typeof address === 'object' && address ? address.port : 0;
}

/**
 * The test fixture, made with the repository's own client so that a gap in SDK compatibility
 * fails the tests that show it, not the whole suite: a confidential app on connection "sms".
 */
async function createSignInApp(stack: LaunchedStack): Promise<SignInApp> {
  const admin = new ManagementClient(stack.urls.authUrl, stack.adminClientId, stack.adminClientSecret);
  const app = await admin.createClient({ name: COMPAT_APP_NAME, app_type: 'regular_web' });
  const sms = (await admin.listConnections()).find((c) => c.name === stack.tenant.connectionName);
  if (!sms || !app.client_secret) throw new Error('the seeded tenant has no "sms" connection, or the app got no secret');
  await admin.updateConnection(sms.id, { enabled_clients: [...sms.enabled_clients, app.client_id] });
  return { client_id: app.client_id, client_secret: app.client_secret, connection_id: sms.id };
}

interface SignInApp {
  client_id: string;
  client_secret: string;
  /** Connection "sms", which it is enabled on. */
  connection_id: string;
}

function exportSettings(stack: LaunchedStack, app: SignInApp, domain: string, caFile: string): void {
  Object.assign(process.env, {
    COMPAT_CA_FILE: caFile,
    COMPAT_DOMAIN: domain,
    COMPAT_GATEWAY_URL: stack.urls.gatewayUrl,
    COMPAT_ADMIN_CLIENT_ID: stack.adminClientId,
    COMPAT_ADMIN_CLIENT_SECRET: stack.adminClientSecret,
    COMPAT_APP_CLIENT_ID: app.client_id,
    COMPAT_APP_CLIENT_SECRET: app.client_secret,
    COMPAT_SMS_CONNECTION_ID: app.connection_id,
    COMPAT_API_AUDIENCE: stack.apiAudience,
    // The seeded machine-to-machine app, granted the airport API.
    COMPAT_M2M_CLIENT_ID: stack.tenant.m2mClientId,
    COMPAT_M2M_CLIENT_SECRET: stack.tenant.m2mClientSecret,
    COMPAT_GATEWAY_DELIVERY_URL: stack.urls.gatewayDeliveryUrl,
    // What an SMS connection of a test's own needs to deliver through the stack's gateway (the web
    // login suites make one each, so that no two test files edit the seeded connection at once).
    COMPAT_GATEWAY_AUTH_SUBJECT: GATEWAY_AUTH_SUBJECT,
    COMPAT_GATEWAY_AUTH_SECRET: stack.gatewayAuthSecret,
    COMPAT_AIRPORT_URL: stack.urls.baseUrl,
  });
}
