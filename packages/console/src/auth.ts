import { Auth0Client } from '@auth0/auth0-spa-js';
import { apiErrorOf } from './api';

/** GET config.json beside the console: where to sign in (identity writes it; a host elsewhere ships one). */
export interface ConsoleSettings {
  domain: string;
  client_id: string;
  audience: string;
  redirect_uri: string;
}

/**
 * The management scopes the console may use. With the API's RBAC the token carries those of
 * them the operator's roles grant; the console then hides what the token does not allow.
 */
const RESOURCES = ['users', 'user_blocks', 'sms_fraud_blocks', 'role_members', 'sessions', 'connections', 'clients', 'client_grants', 'resource_servers', 'signing_keys', 'log_streams', 'roles'];
export const CONSOLE_SCOPES = [
  ...RESOURCES.flatMap((resource) => ['create', 'read', 'update', 'delete'].map((action) => `${action}:${resource}`)),
  'read:logs',
  'read:stats',
  // The hosted pages' brand, texts and languages (Auth0's singletons: read and update only).
  ...['branding', 'prompts', 'tenant_settings'].flatMap((resource) => [`read:${resource}`, `update:${resource}`]),
];

export async function loadSettings(): Promise<ConsoleSettings> {
  const response = await fetch(new URL('config.json', document.baseURI), { headers: { accept: 'application/json' } });
  if (!response.ok) throw await apiErrorOf(response);
  return (await response.json()) as ConsoleSettings;
}

/** The operator as the ID token and the access token describe them. */
export interface Operator {
  name: string;
  userId: string;
  scopes: Set<string>;
}

function scopesOf(accessToken: string): Set<string> {
  try {
    const payload = JSON.parse(atob(accessToken.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))) as { scope?: unknown };
    // `scope`, not `permissions`: the management API checks the scopes (those requested that the roles grant).
    return new Set((typeof payload.scope === 'string' ? payload.scope.split(' ') : []).filter((s) => s.includes(':')));
  } catch {
    return new Set();
  }
}

/** Signs the operator in with auth0-spa-js: code + PKCE, tokens in memory only, rotating refresh tokens. */
export class ConsoleAuth {
  readonly client: Auth0Client;

  constructor(readonly settings: ConsoleSettings) {
    this.client = new Auth0Client({
      domain: settings.domain,
      clientId: settings.client_id,
      // Never localStorage: a reload asks identity again (its login session answers silently).
      cacheLocation: 'memory',
      useRefreshTokens: true,
      useRefreshTokensFallback: true,
      workerUrl: new URL('assets/auth0-token-worker.js', document.baseURI).href,
      authorizationParams: {
        redirect_uri: settings.redirect_uri,
        audience: settings.audience,
        scope: ['openid', 'profile', 'phone', 'offline_access', ...CONSOLE_SCOPES].join(' '),
      },
    });
  }

  /** Back from the hosted login: exchange the code, and take it out of the address bar. */
  async finishRedirect(): Promise<boolean> {
    const query = new URLSearchParams(location.search);
    if (!(query.has('state') && (query.has('code') || query.has('error')))) return false;
    try {
      await this.client.handleRedirectCallback();
    } finally {
      history.replaceState(null, '', new URL('./', document.baseURI).pathname);
    }
    return true;
  }

  /** The operator when identity's login session (or the memory cache) answers; undefined when sign-in is needed. */
  async operator(): Promise<Operator | undefined> {
    let token: string;
    try {
      token = await this.token();
    } catch (err) {
      const code = (err as { error?: string }).error;
      if (code === 'login_required' || code === 'consent_required' || code === 'missing_refresh_token') return undefined;
      throw err;
    }
    const claims = await this.client.getIdTokenClaims();
    return {
      name: String(claims?.name ?? claims?.phone_number ?? claims?.sub ?? 'operator'),
      userId: String(claims?.sub ?? ''),
      scopes: scopesOf(token),
    };
  }

  async token(): Promise<string> {
    const token = await this.client.getTokenSilently();
    if (!token) throw new Error('identity answered no access token');
    return token;
  }

  signIn(): Promise<void> {
    return this.client.loginWithRedirect();
  }

  signOut(): Promise<void> {
    return this.client.logout({ logoutParams: { returnTo: new URL('./', document.baseURI).href } });
  }
}
