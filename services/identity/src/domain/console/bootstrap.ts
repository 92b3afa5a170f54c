import { ClientCreateSchema, type ClientUpdate } from '@smsauth/contracts';
import type { IdentityStore, StoredClient } from '../../store';
import { createClient, updateClient } from '../management/clients';
import { consoleCallbackUrl, consoleClientOf, CONSOLE_SYSTEM_ROLE } from './client';

/** The name the console's client is created with (operators may rename it: it is found by its role). */
export const CONSOLE_CLIENT_NAME = 'Console';

/**
 * What the console needs of its client: a first-party public SPA signing operators in with code +
 * PKCE for the management API (whose scopes come from their roles), called back at
 * `/console/callback`, calling the token endpoint from `authUrl`. Refresh tokens rotate (the
 * default settings); the console keeps tokens in memory only.
 */
export function consoleClientSettings(authUrl: string) {
  return {
    app_type: 'spa' as const,
    token_endpoint_auth_method: 'none' as const,
    grant_types: ['authorization_code', 'refresh_token'] as Array<'authorization_code' | 'refresh_token'>,
    callbacks: [consoleCallbackUrl(authUrl)],
    allowed_origins: [authUrl],
    web_origins: [authUrl],
    allowed_logout_urls: [`${authUrl}/console/`],
  };
}

/** The fields of `current` that lack what the console needs: lists get the missing entries added, never lose any. */
function missingSettings(current: StoredClient, authUrl: string): ClientUpdate {
  const wanted = consoleClientSettings(authUrl);
  const patch: ClientUpdate = {};
  if (current.app_type !== wanted.app_type) patch.app_type = wanted.app_type;
  if (current.token_endpoint_auth_method !== wanted.token_endpoint_auth_method) patch.token_endpoint_auth_method = wanted.token_endpoint_auth_method;
  const lists = ['grant_types', 'callbacks', 'allowed_origins', 'web_origins', 'allowed_logout_urls'] as const;
  for (const field of lists) {
    const have: readonly string[] = current[field];
    const missing = wanted[field].filter((value) => !have.includes(value));
    if (missing.length > 0) (patch as Record<string, string[]>)[field] = [...have, ...missing];
  }
  return patch;
}

/** The oldest SPA client of that name without a system role (one `pnpm start` seeded for another AUTH_URL). */
async function oldestSpaNamed(store: IdentityStore, name: string): Promise<StoredClient | undefined> {
  const { items } = await store.clients.page({ app_types: ['spa'] }, { kind: 'offset', offset: 0, limit: 100 });
  return items.find((client) => client.name === name && client.system_role === null);
}

export interface ConsoleClientBootstrap {
  clientId: string;
  action: 'created' | 'updated' | 'unchanged';
}

/**
 * At every start: the console's client, so that `/console` works on a fresh install with nothing
 * but its environment. Found by its system role; else an SPA client already called back under
 * `/console/`, or else named `Console` (one `pnpm start` seeded before this existed), is adopted;
 * else one is created.
 * What the console needs is added when missing (an operator's own callbacks or origins stay).
 * Deleted through the API, it comes back at the next start.
 */
export async function ensureConsoleClient(store: IdentityStore, authUrl: string): Promise<ConsoleClientBootstrap> {
  let current = await store.clients.findBySystemRole(CONSOLE_SYSTEM_ROLE);
  if (!current) {
    const adopted = await consoleClientOf(store, `${authUrl}/console/`);
    current = adopted ? await store.clients.findById(adopted.clientId) : await oldestSpaNamed(store, CONSOLE_CLIENT_NAME);
    if (current) await store.clients.setSystemRole(current.client_id, CONSOLE_SYSTEM_ROLE);
  }
  if (!current) {
    const created = await createClient(store, ClientCreateSchema.parse({ name: CONSOLE_CLIENT_NAME, ...consoleClientSettings(authUrl) }));
    await store.clients.setSystemRole(created.client_id, CONSOLE_SYSTEM_ROLE);
    return { clientId: created.client_id, action: 'created' };
  }
  const patch = missingSettings(current, authUrl);
  if (Object.keys(patch).length === 0) return { clientId: current.client_id, action: 'unchanged' };
  await updateClient(store, current.client_id, patch);
  return { clientId: current.client_id, action: 'updated' };
}
