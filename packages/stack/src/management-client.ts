import { MAX_PAGE_SIZE, offsetEnvelopeSchema } from '@smsauth/contracts';
import { z } from 'zod';

/**
 * A small client of the identity service's management API (`/api/v2`, Auth0 shapes),
 * authenticated with a client-credentials token. Used to seed tenants and by the e2e suite.
 */
export class ManagementApiError extends Error {
  constructor(
    public readonly status: number,
    public readonly body: unknown,
    what: string,
  ) {
    super(`${what} failed with HTTP ${status}: ${JSON.stringify(body)}`);
    this.name = 'ManagementApiError';
  }
}

/** The client fields seeding sets (Auth0's names). */
export interface ClientSettings {
  app_type?: string;
  callbacks?: string[];
  allowed_origins?: string[];
  /** Origins whose pages may authenticate silently (web_message) and call identity with CORS. */
  web_origins?: string[];
  allowed_logout_urls?: string[];
  grant_types?: string[];
  token_endpoint_auth_method?: string;
}
export interface ClientRecord extends ClientSettings {
  client_id: string;
  name: string;
  app_type: string;
  client_secret?: string;
}
export interface ConnectionRecordLite {
  id: string;
  name: string;
  enabled_clients: string[];
  options: Record<string, unknown>;
}
export interface ResourceServerRecord {
  id: string;
  name: string;
  identifier: string;
}
export interface UserRecordLite {
  user_id: string;
  phone_number: string;
}
export interface RoleRecordLite {
  id: string;
  name: string;
  built_in: boolean;
}
export interface ClientGrantRecord {
  id: string;
  client_id: string;
  audience: string;
  scope: string[];
}

export interface TokenResponse {
  access_token: string;
  token_type: string;
  expires_in: number;
  id_token?: string;
  refresh_token?: string;
  scope?: string;
}

export async function requestJson(url: string, init: RequestInit & { json?: unknown } = {}): Promise<{ status: number; body: unknown; headers: Headers }> {
  const headers = new Headers(init.headers);
  if (init.json !== undefined) headers.set('content-type', 'application/json');
  headers.set('accept', 'application/json');
  const res = await fetch(url, { ...init, headers, body: init.json !== undefined ? JSON.stringify(init.json) : init.body });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, body, headers: res.headers };
}

/** `client_credentials` at `/oauth/token`. */
export async function clientCredentialsToken(authUrl: string, clientId: string, clientSecret: string, audience: string): Promise<TokenResponse> {
  const res = await requestJson(`${authUrl}/oauth/token`, {
    method: 'POST',
    json: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, audience },
  });
  if (res.status !== 200) throw new ManagementApiError(res.status, res.body, `client_credentials token for ${audience}`);
  return res.body as TokenResponse;
}

export class ManagementClient {
  private token?: { value: string; expiresAt: number };

  constructor(
    readonly authUrl: string,
    private readonly clientId: string,
    private readonly clientSecret: string,
  ) {}

  private async accessToken(): Promise<string> {
    if (!this.token || this.token.expiresAt - 30_000 < Date.now()) {
      const res = await clientCredentialsToken(this.authUrl, this.clientId, this.clientSecret, `${this.authUrl}/api/v2/`);
      this.token = { value: res.access_token, expiresAt: Date.now() + res.expires_in * 1000 };
    }
    return this.token.value;
  }

  async call<T>(method: string, path: string, json?: unknown, expected: number[] = [200, 201, 204]): Promise<T> {
    const res = await requestJson(`${this.authUrl}/api/v2${path}`, {
      method,
      json,
      headers: { authorization: `Bearer ${await this.accessToken()}` },
    });
    if (!expected.includes(res.status)) throw new ManagementApiError(res.status, res.body, `${method} /api/v2${path}`);
    return res.body as T;
  }

  /** Every record of a list: lists answer 50 per page by default (as Auth0's do), so this pages through them. */
  private async listAll<T>(path: string, plural: string): Promise<T[]> {
    const envelope = offsetEnvelopeSchema(plural, z.unknown());
    const all: T[] = [];
    for (let page = 0; ; page += 1) {
      const separator = path.includes('?') ? '&' : '?';
      const body = await this.call('GET', `${path}${separator}include_totals=true&per_page=${MAX_PAGE_SIZE}&page=${page}`);
      const parsed = envelope.parse(body);
      // The schema checked `<plural>` is an array; its key is computed, so its type is not kept.
      const items = (parsed as Record<string, unknown>)[plural] as T[];
      const { total } = parsed;
      all.push(...items);
      if (items.length === 0 || all.length >= total) return all;
    }
  }

  listClients(): Promise<ClientRecord[]> {
    return this.listAll('/clients', 'clients');
  }
  createClient(body: ClientSettings & { name: string; app_type: string }): Promise<ClientRecord> {
    return this.call('POST', '/clients', body);
  }
  updateClient(clientId: string, body: ClientSettings & { name?: string }): Promise<ClientRecord> {
    return this.call('PATCH', `/clients/${encodeURIComponent(clientId)}`, body);
  }
  rotateClientSecret(clientId: string): Promise<ClientRecord> {
    return this.call('POST', `/clients/${encodeURIComponent(clientId)}/rotate-secret`);
  }
  listConnections(): Promise<ConnectionRecordLite[]> {
    return this.listAll('/connections', 'connections');
  }
  createConnection(body: { options: Record<string, unknown>; enabled_clients: string[] }): Promise<ConnectionRecordLite> {
    return this.call('POST', '/connections', body);
  }
  updateConnection(id: string, body: { options?: Record<string, unknown>; enabled_clients?: string[] }): Promise<ConnectionRecordLite> {
    return this.call('PATCH', `/connections/${encodeURIComponent(id)}`, body);
  }
  deleteConnection(id: string): Promise<void> {
    return this.call('DELETE', `/connections/${encodeURIComponent(id)}`);
  }
  listResourceServers(): Promise<ResourceServerRecord[]> {
    return this.listAll('/resource-servers', 'resource_servers');
  }
  createResourceServer(body: { name: string; identifier: string; scopes?: Array<{ value: string; description: string }> }): Promise<ResourceServerRecord> {
    return this.call('POST', '/resource-servers', body);
  }
  listClientGrants(): Promise<ClientGrantRecord[]> {
    return this.listAll('/client-grants', 'client_grants');
  }
  createClientGrant(body: { client_id: string; audience: string; scope: string[] }): Promise<ClientGrantRecord> {
    return this.call('POST', '/client-grants', body);
  }
  rotateSigningKey(): Promise<{ kid: string }> {
    return this.call('POST', '/keys/signing/rotate');
  }
  listUsers(phoneNumber?: string): Promise<Array<{ user_id: string; phone_number: string; logins_count: number }>> {
    return this.call('GET', `/users${phoneNumber ? `?q=${encodeURIComponent(phoneNumber)}` : ''}`);
  }
  /** The users of `connection` with this number (at most one). */
  findUsersByPhone(connection: string, phoneNumber: string): Promise<UserRecordLite[]> {
    const q = `phone_number:"${phoneNumber}" AND identities.connection:"${connection}"`;
    return this.call('GET', `/users?q=${encodeURIComponent(q)}`);
  }
  createUser(body: { connection: string; phone_number: string }): Promise<UserRecordLite> {
    return this.call('POST', '/users', body);
  }
  listRoles(): Promise<RoleRecordLite[]> {
    return this.listAll('/roles', 'roles');
  }
  assignUserRoles(userId: string, roleIds: string[]): Promise<void> {
    return this.call('POST', `/users/${encodeURIComponent(userId)}/roles`, { roles: roleIds });
  }
  listUserRoles(userId: string): Promise<RoleRecordLite[]> {
    return this.call('GET', `/users/${encodeURIComponent(userId)}/roles?per_page=100`);
  }
}
