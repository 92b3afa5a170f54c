import { requestJson, type ManagementClient } from './management-client';

/** Where the hosted login sends an operator back to: the console identity serves at /console (its client is identity's own). */
export function consoleCallbackUrl(authUrl: string): string {
  return `${authUrl}/console/callback`;
}

/**
 * Makes `phoneNumber` an operator of a running identity, through its management API (the remote
 * twin of identity's own `smsauth-identity operator add`, domain/management/operators.ts, which
 * works on the database): the user of `connection` with that number (created when there is none;
 * they sign in by SMS, there is no password) given the roles named (case-insensitive), and the
 * console's client enabled on the connection. Running it again changes nothing.
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
  await enableConsoleOn(api, options.connection);
  return { userId: user.user_id, created: existing === undefined, roles: wanted.map((r) => r.name) };
}

/** The console's client (as /console/config.json names it) enabled on the connection, so its operators can sign in there. */
async function enableConsoleOn(api: ManagementClient, connectionName: string): Promise<void> {
  const settings = await requestJson(`${api.authUrl}/console/config.json`);
  if (settings.status !== 200) return;
  const clientId = (settings.body as { client_id: string }).client_id;
  const connection = (await api.listConnections()).find((c) => c.name === connectionName);
  if (connection && !connection.enabled_clients.includes(clientId)) {
    await api.updateConnection(connection.id, { enabled_clients: [...connection.enabled_clients, clientId] });
  }
}
