import { LogoutQuerySchema, OidcLogoutQuerySchema } from '@smsauth/contracts';
import { PAGE_ERRORS, type PageErrorText } from '../authorize/page-message';
import type { Clock } from '@smsauth/service-kit';
import type { IdentityStore, StoredClient } from '../../store';
import { endLoginSession } from '../authorize/session';
import { logRecord, recordEvents, type LogContext } from '../logs/tenant-log';
import type { TokenVerifier } from '../tokens/verifier';

export type LogoutOutcome =
  | { kind: 'redirect'; location: string; frontChannel?: FrontChannelLogout[] }
  | { kind: 'logged_out'; frontChannel?: FrontChannelLogout[] }
  /** `page`: the error page's text by code (in the page's language); `description` for the log. */
  | { kind: 'refused'; description: string; page: PageErrorText };

/** A client to sign out in the browser (OpenID Connect Front-Channel Logout): its URL, framed by the logout page. */
export interface FrontChannelLogout {
  clientName: string;
  url: string;
}

export interface LogoutDependencies {
  store: IdentityStore;
  clock: Clock;
  verifier: TokenVerifier;
  /** `iss` of the front-channel logout URLs. */
  issuer: string;
}

/** The browser asking to sign out: its session cookie's secret, address and user agent. */
export interface LogoutCaller {
  sessionSecret: string | undefined;
  ip: string;
  userAgent: string | undefined;
}

/**
 * The front-channel logout URLs of the clients the ended session signed in to (those that
 * registered oidc_logout.frontchannel_logout_url), with `iss` and `sid` in the query unless the
 * client set frontchannel_logout_session_required to false.
 */
async function frontChannelLogouts(deps: LogoutDependencies, session: { id: string; client_ids: string[] }): Promise<FrontChannelLogout[]> {
  const logouts: FrontChannelLogout[] = [];
  for (const clientId of session.client_ids) {
    const client = await deps.store.clients.findById(clientId);
    const registered = client?.oidc_logout?.frontchannel_logout_url;
    if (!client || !registered) continue;
    const url = new URL(registered);
    if (client.oidc_logout?.frontchannel_logout_session_required !== false) {
      url.searchParams.set('iss', deps.issuer);
      url.searchParams.set('sid', session.id);
    }
    logouts.push({ clientName: client.name, url: url.toString() });
  }
  return logouts;
}

/**
 * Ends the browser's login session (if it has one) and records the logout: `slo` when the
 * browser goes on to a return URL or the signed-out page, `flo` when the request was refused
 * (the session is kept then: a forged logout link must not sign anyone out).
 */
async function settle(deps: LogoutDependencies, outcome: LogoutOutcome, client: StoredClient | undefined, caller: LogoutCaller): Promise<LogoutOutcome> {
  const now = deps.clock.now();
  const log: LogContext = { clientId: client?.client_id, clientName: client?.name, ip: caller.ip, userAgent: caller.userAgent };
  if (outcome.kind === 'refused') {
    await recordEvents(deps.store, logRecord('flo', log, now, { description: outcome.description }));
    return outcome;
  }
  // The session ends with its back-channel notifications queued (one statement): delivered later, never waited for.
  const ended = await endLoginSession(deps.store, caller.sessionSecret, now);
  await recordEvents(deps.store, logRecord('slo', { ...log, userId: ended?.user_id }, now, { session_ended: ended !== undefined }));
  const frontChannel = ended ? await frontChannelLogouts(deps, ended) : [];
  return frontChannel.length > 0 ? { ...outcome, frontChannel } : outcome;
}

/**
 * `GET /v2/logout` as Auth0 answers it: `returnTo` must be one of the client's
 * allowed_logout_urls (compared exactly; without `client_id` there is no list to be in, as
 * this service has no tenant-wide one), else an error page; without `returnTo` the browser
 * goes to the client's first allowed logout URL, or sees a "signed out" page. The login
 * session ends unless the request is refused.
 */
export async function logoutOutcome(deps: LogoutDependencies, query: unknown, caller: LogoutCaller): Promise<LogoutOutcome> {
  const parsed = LogoutQuerySchema.safeParse(query);
  if (!parsed.success) return settle(deps, { kind: 'refused', description: 'client_id and returnTo must each be given at most once.', page: PAGE_ERRORS.logoutRefused('logoutRepeatedParameter') }, undefined, caller);
  const { client_id: clientId, returnTo } = parsed.data;
  const client = clientId ? await deps.store.clients.findById(clientId) : undefined;
  if (clientId && !client) return settle(deps, { kind: 'refused', description: `Unknown client: ${clientId}`, page: PAGE_ERRORS.logoutRefused('logoutUnknownClient', { clientId }) }, undefined, caller);
  if (returnTo === undefined) {
    const first = client?.allowed_logout_urls[0];
    return settle(deps, first ? { kind: 'redirect', location: first } : { kind: 'logged_out' }, client, caller);
  }
  if (client?.allowed_logout_urls.includes(returnTo)) return settle(deps, { kind: 'redirect', location: returnTo }, client, caller);
  return settle(
    deps,
    {
      kind: 'refused',
      description: `The "returnTo" querystring parameter "${returnTo}" is not defined as a valid URL in "Allowed Logout URLs" (the client's allowed_logout_urls).`,
      page: PAGE_ERRORS.logoutRefused('logoutReturnToNotAllowed', { returnTo }),
    },
    client,
    caller,
  );
}

/** `post_logout_redirect_uri` with `state` added to its query (OIDC RP-Initiated Logout §3). */
function withState(uri: string, state: string | undefined): string {
  if (state === undefined) return uri;
  const url = new URL(uri);
  url.searchParams.append('state', state);
  return url.toString();
}

/**
 * OpenID Connect RP-Initiated Logout at the end_session_endpoint (`GET /oidc/logout`, as Auth0
 * names it). The client is `client_id`, or the `aud` of `id_token_hint` (an ID token this
 * service signed, expired or not); both given, they must agree. `post_logout_redirect_uri`
 * must be one of that client's allowed_logout_urls (exact match), and gets `state` back;
 * without it the browser sees the "signed out" page.
 */
export async function oidcLogoutOutcome(deps: LogoutDependencies, query: unknown, caller: LogoutCaller): Promise<LogoutOutcome> {
  const parsed = OidcLogoutQuerySchema.safeParse(query);
  if (!parsed.success) return settle(deps, { kind: 'refused', description: 'Each logout parameter may be given at most once.', page: PAGE_ERRORS.logoutRefused('logoutRepeatedParameter') }, undefined, caller);
  const { id_token_hint: hint, client_id: namedClient, post_logout_redirect_uri: returnTo, state } = parsed.data;
  let hintClient: string | undefined;
  if (hint) {
    try {
      const claims = await deps.verifier.verify(hint, undefined, { ignoreExpiration: true });
      hintClient = typeof claims.aud === 'string' ? claims.aud : Array.isArray(claims.aud) ? claims.aud[0] : undefined;
    } catch {
      return settle(deps, { kind: 'refused', description: 'The id_token_hint is not an ID token issued here.', page: PAGE_ERRORS.logoutRefused('logoutHintNotIssuedHere') }, undefined, caller);
    }
  }
  if (namedClient && hintClient && namedClient !== hintClient) {
    return settle(deps, { kind: 'refused', description: 'The client_id does not match the audience of the id_token_hint.', page: PAGE_ERRORS.logoutRefused('logoutHintMismatch') }, undefined, caller);
  }
  const clientId = namedClient ?? hintClient;
  const client = clientId ? await deps.store.clients.findById(clientId) : undefined;
  if (clientId && !client) return settle(deps, { kind: 'refused', description: `Unknown client: ${clientId}`, page: PAGE_ERRORS.logoutRefused('logoutUnknownClient', { clientId }) }, undefined, caller);
  if (returnTo === undefined) return settle(deps, { kind: 'logged_out' }, client, caller);
  if (!client) {
    return settle(deps, { kind: 'refused', description: 'post_logout_redirect_uri needs client_id or id_token_hint to name the client whose list it must be in.', page: PAGE_ERRORS.logoutRefused('logoutClientNotNamed') }, undefined, caller);
  }
  if (!client.allowed_logout_urls.includes(returnTo)) {
    return settle(
      deps,
      { kind: 'refused', description: `The post_logout_redirect_uri "${returnTo}" is not one of the client's allowed_logout_urls.`, page: PAGE_ERRORS.logoutRefused('logoutPostLogoutUriNotAllowed', { returnTo }) },
      client,
      caller,
    );
  }
  return settle(deps, { kind: 'redirect', location: withState(returnTo, state) }, client, caller);
}
