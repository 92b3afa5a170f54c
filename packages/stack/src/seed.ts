import { PASSWORDLESS_OTP_GRANT } from '@smsauth/contracts';
import { ManagementClient, type ClientRecord, type ClientSettings } from './management-client';
import { ensureConsoleClient, ensureOperator } from './operators';

export interface SeedOptions {
  authUrl: string;
  adminClientId: string;
  adminClientSecret: string;
  /** The gateway's /sms URL as the identity service reaches it. */
  gatewayDeliveryUrl: string;
  gatewayAuthSecret: string;
  gatewayAuthAudience: string;
  gatewayAuthSubject: string;
  apiAudience: string;
  connectionName?: string;
  /** Known M2M credentials from an earlier run (the secret is only shown at creation). */
  m2mClientId?: string;
  m2mClientSecret?: string;
  /**
   * Where the demo web app is served (origin, no trailing slash): its SPA client's URLs. Without
   * it (a stack that serves no demo page: containers, benchmarks) no SPA client is seeded.
   */
  demoAppUrl?: string;
  /** A number made the first operator, with the built-in Admin role (signs in by SMS; no password). */
  operatorPhoneNumber?: string;
}

export interface SeededTenant {
  demoClientId: string;
  connectionName: string;
  connectionId: string;
  apiAudience: string;
  m2mClientId: string;
  m2mClientSecret: string;
  /** The demo web app's SPA client (when a demoAppUrl was given). */
  demoAppClientId?: string;
  /** The operator console's SPA client (callback `<identity>/console/callback`). */
  consoleClientId: string;
  /** The first operator's user id (when an operatorPhoneNumber was given). */
  operatorUserId?: string;
}

export const DEMO_CLIENT_NAME = 'Demo';
export const DEMO_M2M_CLIENT_NAME = 'Demo M2M';
export const DEMO_APP_CLIENT_NAME = 'Demo Web App';

/** Where the hosted login sends the browser back to: the demo web app's callback page. */
export function demoAppCallbackUrl(demoAppUrl: string): string {
  return `${demoAppUrl}/callback`;
}

/**
 * The demo web app's client: a public SPA (no secret: its code runs in the browser) that signs
 * users in with @auth0/auth0-spa-js over the authorization code flow with PKCE, renews silently
 * from its origin (web_message in a hidden iframe) and calls the token endpoint with CORS.
 */
export function demoAppClientSettings(demoAppUrl: string): Required<ClientSettings> {
  return {
    app_type: 'spa',
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token', PASSWORDLESS_OTP_GRANT],
    callbacks: [demoAppCallbackUrl(demoAppUrl)],
    allowed_origins: [demoAppUrl],
    web_origins: [demoAppUrl],
    allowed_logout_urls: [`${demoAppUrl}/`],
  };
}

/**
 * Creates the demo tenant through the management API, or brings an existing one back to the
 * wanted state: running it twice changes nothing the second time.
 */
export async function seedDemoTenant(options: SeedOptions): Promise<SeededTenant> {
  const api = new ManagementClient(options.authUrl, options.adminClientId, options.adminClientSecret);
  const connectionName = options.connectionName ?? 'sms';

  const clients = await api.listClients();
  const demo = clients.find((c) => c.name === DEMO_CLIENT_NAME) ?? (await api.createClient({ name: DEMO_CLIENT_NAME, app_type: 'native' }));
  const demoApp = options.demoAppUrl === undefined ? undefined : await ensureDemoAppClient(api, clients, options.demoAppUrl);
  const consoleClient = await ensureConsoleClient(api, clients, options.authUrl);

  const connectionOptions = {
    name: connectionName,
    strategy: 'sms',
    provider: 'sms_gateway',
    gateway_url: options.gatewayDeliveryUrl,
    from: '+14155550100',
    syntax: 'md_with_macros',
    template: 'Your @@application.name@@ verification code is: @@password@@',
    totp: { time_step: 300, length: 6 },
    brute_force_protection: true,
    disable_signup: false,
    gateway_authentication: {
      method: 'bearer',
      subject: options.gatewayAuthSubject,
      audience: options.gatewayAuthAudience,
      secret: options.gatewayAuthSecret,
      secret_base64_encoded: false,
    },
  };
  const existing = (await api.listConnections()).find((c) => c.name === connectionName);
  const enabledClients = [
    ...new Set([...(existing?.enabled_clients ?? []), demo.client_id, consoleClient.client_id, ...(demoApp ? [demoApp.client_id] : [])]),
  ];
  const connection = existing
    ? await api.updateConnection(existing.id, { options: connectionOptions, enabled_clients: enabledClients })
    : await api.createConnection({ options: connectionOptions, enabled_clients: enabledClients });

  const resourceServers = await api.listResourceServers();
  if (!resourceServers.some((r) => r.identifier === options.apiAudience)) {
    await api.createResourceServer({
      name: 'Airport API',
      identifier: options.apiAudience,
      scopes: [{ value: 'read:airports', description: 'Look up airport names' }],
    });
  }

  const m2m = await ensureM2mClient(api, clients, options);
  const grants = await api.listClientGrants();
  if (!grants.some((g) => g.client_id === m2m.clientId && g.audience === options.apiAudience)) {
    await api.createClientGrant({ client_id: m2m.clientId, audience: options.apiAudience, scope: ['read:airports'] });
  }

  const operator =
    options.operatorPhoneNumber === undefined
      ? undefined
      : await ensureOperator(api, { connection: connectionName, phoneNumber: options.operatorPhoneNumber, roles: ['Admin'] });

  return {
    demoClientId: demo.client_id,
    consoleClientId: consoleClient.client_id,
    operatorUserId: operator?.userId,
    connectionName,
    connectionId: connection.id,
    apiAudience: options.apiAudience,
    m2mClientId: m2m.clientId,
    m2mClientSecret: m2m.clientSecret,
    demoAppClientId: demoApp?.client_id,
  };
}

/**
 * The demo web app's client, created once; a later start patches it only when it differs from
 * the wanted settings (the demo app's port may differ from the last run's).
 */
async function ensureDemoAppClient(api: ManagementClient, clients: ClientRecord[], demoAppUrl: string): Promise<ClientRecord> {
  const wanted = demoAppClientSettings(demoAppUrl);
  const existing = clients.find((c) => c.name === DEMO_APP_CLIENT_NAME);
  if (!existing) return api.createClient({ name: DEMO_APP_CLIENT_NAME, ...wanted });
  const fields = Object.keys(wanted) as Array<keyof ClientSettings>;
  const unchanged = fields.every((field) => JSON.stringify(existing[field]) === JSON.stringify(wanted[field]));
  return unchanged ? existing : api.updateClient(existing.client_id, wanted);
}

async function ensureM2mClient(
  api: ManagementClient,
  clients: ClientRecord[],
  options: SeedOptions,
): Promise<{ clientId: string; clientSecret: string }> {
  const existing = clients.find((c) => c.name === DEMO_M2M_CLIENT_NAME);
  if (existing && existing.client_id === options.m2mClientId && options.m2mClientSecret) {
    return { clientId: existing.client_id, clientSecret: options.m2mClientSecret };
  }
  // The secret is only shown at creation: without the remembered one, rotate to learn a new one.
  const record = existing
    ? await api.rotateClientSecret(existing.client_id)
    : await api.createClient({ name: DEMO_M2M_CLIENT_NAME, app_type: 'non_interactive', grant_types: ['client_credentials'] });
  if (!record.client_secret) throw new Error(`the identity service returned no client_secret for ${DEMO_M2M_CLIENT_NAME}`);
  return { clientId: record.client_id, clientSecret: record.client_secret };
}
