import { LogoutQuerySchema } from '@smsauth/contracts';
import type { IdentityStore } from '../../store';

export type LogoutOutcome =
  | { kind: 'redirect'; location: string }
  | { kind: 'logged_out' }
  | { kind: 'refused'; description: string };

/**
 * `GET /v2/logout` as Auth0 answers it: `returnTo` must be one of the client's
 * allowed_logout_urls (compared exactly; without `client_id` there is no list to be in, as
 * this service has no tenant-wide one), else an error page; without `returnTo` the browser
 * goes to the client's first allowed logout URL, or sees a "signed out" page.
 */
export async function logoutOutcome(store: IdentityStore, query: unknown): Promise<LogoutOutcome> {
  const parsed = LogoutQuerySchema.safeParse(query);
  if (!parsed.success) return { kind: 'refused', description: 'client_id and returnTo must each be given at most once.' };
  const { client_id: clientId, returnTo } = parsed.data;
  const client = clientId ? await store.clients.findById(clientId) : undefined;
  if (clientId && !client) return { kind: 'refused', description: `Unknown client: ${clientId}` };
  if (returnTo === undefined) {
    const first = client?.allowed_logout_urls[0];
    return first ? { kind: 'redirect', location: first } : { kind: 'logged_out' };
  }
  if (client?.allowed_logout_urls.includes(returnTo)) return { kind: 'redirect', location: returnTo };
  return {
    kind: 'refused',
    description: `The "returnTo" querystring parameter "${returnTo}" is not defined as a valid URL in "Allowed Logout URLs" (the client's allowed_logout_urls).`,
  };
}
