import type { IdentityStore } from '../../store';

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

/**
 * The console's client: the first SPA client (oldest first) one of whose callbacks is the
 * console's own URL or a path below it. Found by its callback rather than by name or id, so
 * whoever registers it (`pnpm start`'s seed, an operator with the management API) needs only
 * to point it at the console; undefined when no client does.
 */
export async function consoleClientOf(store: IdentityStore, consoleUrl: string): Promise<{ clientId: string; redirectUri: string } | undefined> {
  const base = consoleUrl.replace(/\/$/, '');
  for (let offset = 0; ; offset += PAGE_SIZE) {
    const { items } = await store.clients.page({ app_types: ['spa'] }, { kind: 'offset', offset, limit: PAGE_SIZE });
    for (const client of items) {
      const callback = client.callbacks.find((url) => url === base || url.startsWith(`${base}/`));
      if (callback) return { clientId: client.client_id, redirectUri: callback };
    }
    if (items.length < PAGE_SIZE) return undefined;
  }
}
