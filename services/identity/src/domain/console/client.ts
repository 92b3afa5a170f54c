import type { IdentityStore, StoredClient } from '../../store';

/** What the console needs to sign an operator in (GET /console/config.json). */
export interface ConsoleSettings {
  /** Where the hosted login lives: the console's `domain` for auth0-spa-js. */
  domain: string;
  client_id: string;
  /** The management API: the access token's audience. */
  audience: string;
  /** One of the client's callbacks under the console's URL. */
  redirect_uri: string;
}

/** A page of SPA clients at a time; a tenant has a handful. */
const PAGE_SIZE = 100;

/** The `system_role` of the client identity creates for its console at every start (domain/console/bootstrap). */
export const CONSOLE_SYSTEM_ROLE = 'console';

/** Where the hosted login sends an operator back to: the console identity serves at /console. */
export function consoleCallbackUrl(authUrl: string): string {
  return `${authUrl}/console/callback`;
}

function callbackUnder(client: StoredClient, base: string): string | undefined {
  return client.callbacks.find((url) => url === base || url.startsWith(`${base}/`));
}

/**
 * The console's client: the one identity creates at every start (its system role), when it is
 * still an SPA called back under the console's URL; else the first SPA client (oldest first) one
 * of whose callbacks is the console's own URL or a path below it, so that a client an operator
 * registers needs only to point at the console; undefined when no client does.
 */
export async function consoleClientOf(store: IdentityStore, consoleUrl: string): Promise<{ clientId: string; redirectUri: string } | undefined> {
  const base = consoleUrl.replace(/\/$/, '');
  const own = await store.clients.findBySystemRole(CONSOLE_SYSTEM_ROLE);
  const ownCallback = own?.app_type === 'spa' ? callbackUnder(own, base) : undefined;
  if (own && ownCallback) return { clientId: own.client_id, redirectUri: ownCallback };
  for (let offset = 0; ; offset += PAGE_SIZE) {
    const { items } = await store.clients.page({ app_types: ['spa'] }, { kind: 'offset', offset, limit: PAGE_SIZE });
    for (const client of items) {
      const callback = callbackUnder(client, base);
      if (callback) return { clientId: client.client_id, redirectUri: callback };
    }
    if (items.length < PAGE_SIZE) return undefined;
  }
}
