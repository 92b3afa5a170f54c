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
