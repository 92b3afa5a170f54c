import type { IdentityStore } from '../../store';

/** What a browser may send to the endpoints CORS opens (Auth0's SDKs add `Auth0-Client`). */
export const CORS_ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Auth0-Client', 'Accept', 'Cache-Control', 'DPoP'];
/** How long a browser may keep a preflight's answer. */
export const CORS_MAX_AGE_SECONDS = 600;

/**
 * Whether a page of `origin` may call the token, userinfo, revocation, discovery and JWKS
 * endpoints from script: when some client lists it in `web_origins` or `allowed_origins`
 * (those are URLs; their origin counts). The set is read through the store's lookup cache,
 * which every write to a client empties.
 */
export async function isAllowedWebOrigin(store: IdentityStore, origin: string | undefined): Promise<boolean> {
  if (!origin || origin === 'null') return false;
  return (await store.clients.webOrigins()).includes(origin);
}

/** The origin of a URL, or undefined when it has none. */
export function originOfUrl(url: string): string | undefined {
  try {
    const { origin } = new URL(url);
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

/** The origins one client registered (`web_origins` and `allowed_origins`, which are URLs: their origin counts). */
export function clientOrigins(client: { web_origins: readonly string[]; allowed_origins: readonly string[] }): string[] {
  return [...new Set([...client.web_origins, ...client.allowed_origins].map(originOfUrl).filter((o): o is string => o !== undefined))];
}

/** Whether a page of `origin` belongs to `client` (one of its registered origins). */
export function isClientOrigin(client: { web_origins: readonly string[]; allowed_origins: readonly string[] }, origin: string | undefined): boolean {
  return !!origin && origin !== 'null' && clientOrigins(client).includes(origin);
}
