import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { DEFAULT_MESSAGE_TEMPLATE, PASSWORDLESS_OTP_GRANT } from '@smsauth/contracts';
import { ManagementClient, requestJson, type ClientRecord, type ClientSettings } from './management-client';

/** Where the demo tenant's connection delivers, and how it proves itself to the gateway. */
export interface DemoTenantOptions {
  /** The gateway's /sms URL as the identity service reaches it. */
  gatewayDeliveryUrl: string;
  gatewayAuthAudience: string;
  gatewayAuthSubject: string;
  apiAudience: string;
  connectionName?: string;
  /**
   * Where the demo web app is served (origin, no trailing slash): its SPA client's URLs. Without
   * it (a stack that serves no demo page: containers, benchmarks) no SPA client is seeded.
   */
  demoAppUrl?: string;
}

export interface SeedOptions extends DemoTenantOptions {
  authUrl: string;
  adminClientId: string;
  adminClientSecret: string;
  gatewayAuthSecret: string;
  /** Known M2M credentials from an earlier run (the secret is only shown at creation). */
  m2mClientId?: string;
  m2mClientSecret?: string;
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
  /** The operator console's SPA client, which identity keeps itself (callback `<identity>/console/callback`); absent with CONSOLE=false. */
  consoleClientId?: string;
  /** The first operator's user id (FIRST_OPERATOR_PHONE_NUMBER, when the stack sets it). */
  operatorUserId?: string;
}

export const DEMO_CLIENT_NAME = 'Demo';
export const DEMO_M2M_CLIENT_NAME = 'Demo M2M';
export const DEMO_APP_CLIENT_NAME = 'Demo Web App';
export const AIRPORT_API_NAME = 'Airport API';

/**
 * The variables the demo tenant file names for its secrets (`${...}`), so that the file holds
 * none: the launcher sets them in identity's environment.
 */
export const DEMO_TENANT_SECRETS = { gatewayAuthSecret: 'GATEWAY_AUTH_SECRET', m2mClientSecret: 'DEMO_M2M_CLIENT_SECRET' } as const;

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

/** The `sms` connection's options: the gateway's outbox (or provider), a bearer token signed with `gatewaySecret`. */
export function demoConnectionOptions(options: DemoTenantOptions, gatewaySecret: string): Record<string, unknown> {
  return {
    name: options.connectionName ?? 'sms',
    strategy: 'sms',
    provider: 'sms_gateway',
    gateway_url: options.gatewayDeliveryUrl,
    from: '+14155550100',
    syntax: 'md_with_macros',
    template: DEFAULT_MESSAGE_TEMPLATE,
    totp: { time_step: 300, length: 6 },
    brute_force_protection: true,
    disable_signup: false,
    gateway_authentication: {
      method: 'bearer',
      subject: options.gatewayAuthSubject,
      audience: options.gatewayAuthAudience,
      secret: gatewaySecret,
      secret_base64_encoded: false,
    },
  };
}

export function airportApi(apiAudience: string) {
  return { name: AIRPORT_API_NAME, identifier: apiAudience, scopes: [{ value: 'read:airports', description: 'Look up airport names' }] };
}

/**
 * The demo tenant as a tenant file (identity's TENANT_FILE, docs/tenant-file.md): the `Demo`
 * native client, the demo web app's SPA client, the `Demo M2M` client with a grant for the
 * airport API, and the `sms` connection. Its secrets are `${...}` references (DEMO_TENANT_SECRETS).
 */
export function demoTenantDocument(options: DemoTenantOptions): Record<string, unknown[]> {
  const demoApp = options.demoAppUrl === undefined ? [] : [{ name: DEMO_APP_CLIENT_NAME, ...demoAppClientSettings(options.demoAppUrl) }];
  return {
    resource_servers: [airportApi(options.apiAudience)],
    clients: [
      { name: DEMO_CLIENT_NAME, app_type: 'native' },
      ...demoApp,
      {
        name: DEMO_M2M_CLIENT_NAME,
        app_type: 'non_interactive',
        grant_types: ['client_credentials'],
        client_secret: `\${${DEMO_TENANT_SECRETS.m2mClientSecret}}`,
      },
    ],
    connections: [
      {
        options: demoConnectionOptions(options, `\${${DEMO_TENANT_SECRETS.gatewayAuthSecret}}`),
        enabled_clients: [DEMO_CLIENT_NAME, ...demoApp.map((client) => client.name)],
      },
    ],
    client_grants: [{ client_id: DEMO_M2M_CLIENT_NAME, audience: options.apiAudience, scope: ['read:airports'] }],
  };
}

/** Writes the demo tenant file identity reads at start (no secret in it, still kept private). */
export function writeDemoTenantFile(file: string, options: DemoTenantOptions): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(demoTenantDocument(options), null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}

/** The console's client id, as the console itself learns it; undefined when identity serves no console. */
async function consoleClientId(authUrl: string): Promise<string | undefined> {
  const res = await requestJson(`${authUrl}/console/config.json`);
  return res.status === 200 ? (res.body as { client_id: string }).client_id : undefined;
}

function named(clients: readonly ClientRecord[], name: string): ClientRecord {
  const client = clients.find((c) => c.name === name);
  if (!client) throw new Error(`identity has no client named ${name}: was the demo tenant file applied?`);
  return client;
}

/**
 * What a started identity made of the demo tenant file (and of FIRST_OPERATOR_*): the ids the
 * launcher prints and hands to the demo, read through the management API.
 */
export async function readDemoTenant(
  options: Pick<SeedOptions, 'authUrl' | 'adminClientId' | 'adminClientSecret' | 'apiAudience' | 'connectionName' | 'demoAppUrl'> & {
    m2mClientSecret: string;
    operatorPhoneNumber?: string;
  },
): Promise<SeededTenant> {
  const api = new ManagementClient(options.authUrl, options.adminClientId, options.adminClientSecret);
  const connectionName = options.connectionName ?? 'sms';
  const clients = await api.listClients();
  const connection = (await api.listConnections()).find((c) => c.name === connectionName);
  if (!connection) throw new Error(`identity has no connection named ${connectionName}: was the demo tenant file applied?`);
  const [operator] = options.operatorPhoneNumber === undefined ? [] : await api.findUsersByPhone(connectionName, options.operatorPhoneNumber);
  return {
    demoClientId: named(clients, DEMO_CLIENT_NAME).client_id,
    demoAppClientId: options.demoAppUrl === undefined ? undefined : named(clients, DEMO_APP_CLIENT_NAME).client_id,
    m2mClientId: named(clients, DEMO_M2M_CLIENT_NAME).client_id,
    m2mClientSecret: options.m2mClientSecret,
    consoleClientId: await consoleClientId(options.authUrl),
    operatorUserId: operator?.user_id,
    connectionName,
    connectionId: connection.id,
    apiAudience: options.apiAudience,
  };
}

/**
 * The demo tenant through the management API, for a stack `pnpm start` did not launch (the
 * container tests, the benchmarks, the chaos run), which set no TENANT_FILE: the same clients,
 * connection, API and grant as demoTenantDocument. Running it twice changes nothing the second time.
 */
export async function seedDemoTenant(options: SeedOptions): Promise<SeededTenant> {
  const api = new ManagementClient(options.authUrl, options.adminClientId, options.adminClientSecret);
  const connectionName = options.connectionName ?? 'sms';

  const clients = await api.listClients();
  const demo = clients.find((c) => c.name === DEMO_CLIENT_NAME) ?? (await api.createClient({ name: DEMO_CLIENT_NAME, app_type: 'native' }));
  const demoApp = options.demoAppUrl === undefined ? undefined : await ensureDemoAppClient(api, clients, options.demoAppUrl);

  const connectionOptions = demoConnectionOptions(options, options.gatewayAuthSecret);
  const existing = (await api.listConnections()).find((c) => c.name === connectionName);
  const enabledClients = [...new Set([...(existing?.enabled_clients ?? []), demo.client_id, ...(demoApp ? [demoApp.client_id] : [])])];
  const connection = existing
    ? await api.updateConnection(existing.id, { options: connectionOptions, enabled_clients: enabledClients })
    : await api.createConnection({ options: connectionOptions, enabled_clients: enabledClients });

  const resourceServers = await api.listResourceServers();
  if (!resourceServers.some((r) => r.identifier === options.apiAudience)) await api.createResourceServer(airportApi(options.apiAudience));

  const m2m = await ensureM2mClient(api, clients, options);
  const grants = await api.listClientGrants();
  if (!grants.some((g) => g.client_id === m2m.clientId && g.audience === options.apiAudience)) {
    await api.createClientGrant({ client_id: m2m.clientId, audience: options.apiAudience, scope: ['read:airports'] });
  }

  return {
    demoClientId: demo.client_id,
    consoleClientId: await consoleClientId(options.authUrl),
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
