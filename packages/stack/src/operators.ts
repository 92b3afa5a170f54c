import type { ManagementClient, ClientRecord, ClientSettings } from './management-client';

export const CONSOLE_CLIENT_NAME = 'Console';

/** Where the hosted login sends an operator back to: the console identity serves at /console. */
export function consoleCallbackUrl(authUrl: string): string {
  return `${authUrl}/console/callback`;
}

/**
 * The operator console's client: a first-party public SPA signing operators in with code + PKCE
 * for the management API (audience `<identity>/api/v2/`), whose scopes come from their roles.
 * Refresh tokens rotate; the console keeps tokens in memory only.
 */
export function consoleClientSettings(authUrl: string): Required<ClientSettings> {
  return {
    app_type: 'spa',
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    callbacks: [consoleCallbackUrl(authUrl)],
    allowed_origins: [authUrl],
    web_origins: [authUrl],
    allowed_logout_urls: [`${authUrl}/console/`],
  };
}

/** The console's client, created once and brought back to the wanted settings when they differ. */
export async function ensureConsoleClient(api: ManagementClient, clients: ClientRecord[], authUrl: string): Promise<ClientRecord> {
  const wanted = consoleClientSettings(authUrl);
  const existing = clients.find((c) => c.name === CONSOLE_CLIENT_NAME);
  if (!existing) return api.createClient({ name: CONSOLE_CLIENT_NAME, ...wanted });
  const fields = Object.keys(wanted) as Array<keyof ClientSettings>;
  const unchanged = fields.every((field) => JSON.stringify(existing[field]) === JSON.stringify(wanted[field]));
  return unchanged ? existing : api.updateClient(existing.client_id, wanted);
}

/**
 * Makes `phoneNumber` an operator: the user of `connection` with that number (created when there
 * is none; they sign in by SMS, there is no password) given the roles named (case-insensitive).
 * Running it again changes nothing.
 */
export async function ensureOperator(
  api: ManagementClient,
  options: { connection: string; phoneNumber: string; roles: readonly string[] },
): Promise<{ userId: string; created: boolean; roles: string[] }> {
  const roles = await api.listRoles();
  const wanted = options.roles.map((name) => {
    const role = roles.find((r) => r.name.toLowerCase() === name.toLowerCase());
    if (!role) throw new Error(`no role is named ${name}; the roles are: ${roles.map((r) => r.name).join(', ')}`);
    return role;
  });
  const [existing] = await api.findUsersByPhone(options.connection, options.phoneNumber);
  const user = existing ?? (await api.createUser({ connection: options.connection, phone_number: options.phoneNumber }));
  if (wanted.length > 0) await api.assignUserRoles(user.user_id, wanted.map((r) => r.id));
  return { userId: user.user_id, created: existing === undefined, roles: wanted.map((r) => r.name) };
}
