import {
  AUTH0_CLIENT_SETTINGS,
  CONFIDENTIAL_APP_TYPES,
  DEFAULT_GRANT_TYPES,
  DEFAULT_REFRESH_TOKEN_SETTINGS,
  type AppType,
  type Auth0ClientSettings,
  type ClientCreate,
  type ClientUpdate,
  type ClientRecord,
  type OidcLogoutSettings,
  type RefreshTokenSettings,
  type TokenEndpointAuthMethod,
} from '@smsauth/contracts';
import type { IdentityStore, StoredClient, StoredClientCredential } from '../../store';
import { generateClientSecret, hashClientSecret } from '../crypto/client-secret';
import { newClientId } from '../ids';
import { registerCredential } from './client-credentials';
import { forbidden, invalidField, notFound } from './validation';

export const BOOTSTRAP_ADMIN_ROLE = 'bootstrap_admin';

/** Web origins are compared with a browser's `Origin` header, which has no trailing slash. */
function trimSlash(origin: string): string {
  return origin.replace(/\/$/, '');
}

export function isConfidential(appType: AppType): boolean {
  return CONFIDENTIAL_APP_TYPES.includes(appType);
}

/**
 * A private_key_jwt client reads as Auth0 shows one: `token_endpoint_auth_method: null` and
 * `client_authentication_methods.private_key_jwt.credentials` listing the ids of its registered
 * keys (every one of them verifies assertions). `credentials` is read only for such clients.
 */
export function toClientRecord(
  client: StoredClient,
  credentials: readonly StoredClientCredential[] = [],
  clientSecret?: string,
): ClientRecord {
  const method = client.token_endpoint_auth_method;
  return {
    client_id: client.client_id,
    name: client.name,
    app_type: client.app_type,
    callbacks: client.callbacks,
    allowed_origins: client.allowed_origins,
    grant_types: client.grant_types,
    ...(client.default_audience ? { default_audience: client.default_audience } : {}),
    token_endpoint_auth_method: method === 'private_key_jwt' ? null : method,
    ...(method === 'private_key_jwt' ? { client_authentication_methods: { private_key_jwt: { credentials: credentials.map(({ id }) => ({ id })) } } } : {}),
    allowed_logout_urls: client.allowed_logout_urls,
    web_origins: client.web_origins,
    ...(client.initiate_login_uri ? { initiate_login_uri: client.initiate_login_uri } : {}),
    ...(client.description !== null ? { description: client.description } : {}),
    oidc_conformant: client.oidc_conformant,
    refresh_token: inFieldOrder(client.refresh_token ?? DEFAULT_REFRESH_TOKEN_SETTINGS),
    ...(client.jwt_configuration ? { jwt_configuration: client.jwt_configuration } : {}),
    ...auth0SettingsOf(client.auth0_settings),
    ...(client.oidc_logout ? { oidc_logout: oidcLogoutInFieldOrder(client.oidc_logout) } : {}),
    cross_origin_authentication: client.cross_origin_authentication,
    ...(client.cross_origin_loc ? { cross_origin_loc: client.cross_origin_loc } : {}),
    ...(clientSecret ? { client_secret: clientSecret } : {}),
    ...(client.system_role !== null ? { built_in: true as const } : {}),
  };
}

/** The stored Auth0 settings in the contract's field order (each value as it was sent). */
function auth0SettingsOf(stored: Auth0ClientSettings): Auth0ClientSettings {
  return Object.fromEntries(AUTH0_CLIENT_SETTINGS.filter((name) => stored[name] !== undefined).map((name) => [name, stored[name]]));
}

/** The Auth0 settings a create or update names (the off-only ones are not kept: they can only be off). */
function auth0SettingsIn(input: ClientCreate | ClientUpdate): Auth0ClientSettings {
  return Object.fromEntries(AUTH0_CLIENT_SETTINGS.filter((name) => input[name] !== undefined).map((name) => [name, input[name]]));
}

/**
 * The settings with their fields in the contract's order: jsonb keeps its own key order, and a
 * tool comparing exports (auth0-deploy-cli) would see settings read back from the store as changed.
 */
function inFieldOrder(settings: RefreshTokenSettings): RefreshTokenSettings {
  const { rotation_type, expiration_type, leeway, token_lifetime, infinite_token_lifetime, idle_token_lifetime, infinite_idle_token_lifetime } = settings;
  return { rotation_type, expiration_type, leeway, token_lifetime, infinite_token_lifetime, idle_token_lifetime, infinite_idle_token_lifetime };
}

/** oidc_logout with its fields in the contract's order (jsonb reorders keys), absent ones left out. */
function oidcLogoutInFieldOrder(settings: OidcLogoutSettings): OidcLogoutSettings {
  const { backchannel_logout_urls, backchannel_logout_initiators, backchannel_logout_session_metadata, frontchannel_logout_url, frontchannel_logout_session_required } =
    settings;
  return {
    backchannel_logout_urls,
    ...(backchannel_logout_initiators
      ? {
          backchannel_logout_initiators: {
            mode: backchannel_logout_initiators.mode,
            ...(backchannel_logout_initiators.selected_initiators ? { selected_initiators: backchannel_logout_initiators.selected_initiators } : {}),
          },
        }
      : {}),
    ...(backchannel_logout_session_metadata !== undefined
      ? { backchannel_logout_session_metadata: backchannel_logout_session_metadata === null ? null : { include: backchannel_logout_session_metadata.include } }
      : {}),
    ...(frontchannel_logout_url !== undefined ? { frontchannel_logout_url } : {}),
    ...(frontchannel_logout_session_required !== undefined ? { frontchannel_logout_session_required } : {}),
  };
}

/** The embedded-login switch a create or update asks for, by its name or Auth0's older one (which Auth0 still answers, so its exports carry both). */
function requestedCrossOriginAuthentication(input: { cross_origin_authentication?: boolean; cross_origin_auth?: boolean }): boolean | undefined {
  const { cross_origin_authentication: current, cross_origin_auth: older } = input;
  if (current !== undefined && older !== undefined && current !== older) {
    throw invalidField('cross_origin_auth', 'is the older name of cross_origin_authentication: give one of them, or both equal');
  }
  return current ?? older;
}

/**
 * The logout settings a create or update asks for: `oidc_logout`, or Auth0's older
 * `oidc_backchannel_logout` (its URLs only); both at once is a 400. undefined: neither given;
 * null: cleared.
 */
function requestedOidcLogout(input: {
  oidc_logout?: OidcLogoutSettings | null;
  oidc_backchannel_logout?: { backchannel_logout_urls: string[] } | null;
}): OidcLogoutSettings | null | undefined {
  if (input.oidc_logout !== undefined && input.oidc_backchannel_logout !== undefined) {
    throw invalidField('oidc_backchannel_logout', 'is the older name of oidc_logout: give one of them');
  }
  if (input.oidc_backchannel_logout !== undefined) {
    return input.oidc_backchannel_logout === null ? null : { backchannel_logout_urls: input.oidc_backchannel_logout.backchannel_logout_urls };
  }
  return input.oidc_logout === undefined ? undefined : input.oidc_logout === null ? null : oidcLogoutInFieldOrder(input.oidc_logout);
}

/** toClientRecord for a page of clients, with one query for the credentials of its private_key_jwt clients. */
export async function clientRecordsOf(store: IdentityStore, clients: readonly StoredClient[]): Promise<ClientRecord[]> {
  const keyed = clients.filter((c) => c.token_endpoint_auth_method === 'private_key_jwt').map((c) => c.client_id);
  const credentials = await store.clientCredentials.listForClients(keyed);
  return clients.map((client) => toClientRecord(client, credentials.filter((c) => c.client_id === client.client_id)));
}

/** toClientRecord, loading the client's credentials when it authenticates with private_key_jwt. */
export async function clientRecordOf(store: IdentityStore, client: StoredClient, clientSecret?: string): Promise<ClientRecord> {
  const credentials = client.token_endpoint_auth_method === 'private_key_jwt' ? await store.clientCredentials.listForClient(client.client_id) : [];
  return toClientRecord(client, credentials, clientSecret);
}

/**
 * A public client cannot keep a secret, so it cannot authenticate for client_credentials; a
 * machine-to-machine client signs no user in, so it has no browser flow.
 */
function checkGrantTypes(appType: AppType, grantTypes: readonly string[]): void {
  if (!isConfidential(appType) && grantTypes.includes('client_credentials')) {
    throw invalidField('grant_types', `client_credentials needs a confidential client (regular_web or non_interactive), not ${appType}`);
  }
  const browserFlow = grantTypes.find((g) => g === 'authorization_code' || g === 'implicit');
  if (appType === 'non_interactive' && browserFlow) {
    throw invalidField('grant_types', `${browserFlow} signs users in: a non_interactive client cannot have it`);
  }
}

/** Without a stated method: public clients use none, confidential ones client_secret_post. */
export function defaultAuthMethod(appType: AppType): TokenEndpointAuthMethod {
  return isConfidential(appType) ? 'client_secret_post' : 'none';
}

/**
 * The method a create or update asks for: Auth0's `client_authentication_methods` means
 * private_key_jwt (with `token_endpoint_auth_method` left out or null, as Auth0 sends it);
 * otherwise the method named, or undefined when the body names none.
 */
function requestedAuthMethod(input: {
  token_endpoint_auth_method?: TokenEndpointAuthMethod | null;
  client_authentication_methods?: unknown;
}): TokenEndpointAuthMethod | undefined {
  const named = input.token_endpoint_auth_method ?? undefined;
  if (input.client_authentication_methods === undefined) return named;
  if (named !== undefined && named !== 'private_key_jwt') {
    throw invalidField('token_endpoint_auth_method', 'must be null or private_key_jwt when client_authentication_methods is given');
  }
  return 'private_key_jwt';
}

/** A public client can hold no secret or key; client_credentials needs a client that authenticates. */
function checkAuthMethod(appType: AppType, method: TokenEndpointAuthMethod, grantTypes: readonly string[]): void {
  if (method !== 'none' && !isConfidential(appType)) {
    throw invalidField('token_endpoint_auth_method', `a ${appType} client cannot keep a secret or a private key: only none`);
  }
  if (method === 'none' && grantTypes.includes('client_credentials')) {
    throw invalidField('token_endpoint_auth_method', 'none cannot be used with the client_credentials grant');
  }
}

/** What only a tenant file (domain/tenant) chooses for a client it creates; the API always generates both. */
export interface ChosenCredentials {
  clientId?: string;
  /** A confidential client's secret (400 naming `client_secret` for a public one). */
  clientSecret?: string;
}

/**
 * Confidential clients get a server-generated secret, shown in this response only (also with
 * private_key_jwt, so switching to a secret method later needs no rotation). Credentials in
 * `client_authentication_methods` are registered with the client, in one transaction.
 */
export async function createClient(store: IdentityStore, input: ClientCreate, chosen: ChosenCredentials = {}): Promise<ClientRecord> {
  const grantTypes = input.grant_types ?? [...DEFAULT_GRANT_TYPES[input.app_type]];
  checkGrantTypes(input.app_type, grantTypes);
  const method = requestedAuthMethod(input) ?? defaultAuthMethod(input.app_type);
  checkAuthMethod(input.app_type, method, grantTypes);
  if (chosen.clientSecret !== undefined) checkCanHoldSecret(input.app_type);
  const secret = isConfidential(input.app_type) ? (chosen.clientSecret ?? generateClientSecret()) : undefined;
  const oidcLogout = requestedOidcLogout(input) ?? null;
  return store.transaction(async (tx) => {
    const client = await tx.clients.insert({
      client_id: chosen.clientId ?? newClientId(),
      name: input.name,
      app_type: input.app_type,
      callbacks: input.callbacks,
      allowed_origins: input.allowed_origins,
      grant_types: [...new Set(grantTypes)],
      default_audience: input.default_audience ?? null,
      secret_hash: secret ? hashClientSecret(secret) : null,
      system_role: null,
      token_endpoint_auth_method: method,
      allowed_logout_urls: input.allowed_logout_urls,
      web_origins: input.web_origins.map(trimSlash),
      initiate_login_uri: input.initiate_login_uri ?? null,
      description: input.description ?? null,
      oidc_conformant: input.oidc_conformant,
      refresh_token: input.refresh_token ?? null,
      jwt_configuration: input.jwt_configuration ?? null,
      auth0_settings: auth0SettingsIn(input),
      oidc_logout: oidcLogout,
      cross_origin_authentication: requestedCrossOriginAuthentication(input) ?? false,
      cross_origin_loc: input.cross_origin_loc ?? null,
    });
    const credentials = input.client_authentication_methods?.private_key_jwt.credentials ?? [];
    for (const [index, credential] of credentials.entries()) {
      await registerCredential(tx, client.client_id, credential, `client_authentication_methods.private_key_jwt.credentials.${index}.`);
    }
    return clientRecordOf(tx, client, secret);
  });
}

export async function getClient(store: IdentityStore, clientId: string): Promise<StoredClient> {
  const client = await store.clients.findById(clientId);
  if (!client) throw notFound('Client');
  return client;
}

/**
 * Becoming public drops the secret and the method becomes none; becoming confidential does
 * not invent a secret (it would have to be shown here): call rotate-secret to get it. Auth0's
 * `client_authentication_methods.private_key_jwt.credentials` names credentials registered
 * on this client (`POST /clients/{id}/credentials`); every registered key then verifies.
 */
export async function updateClient(store: IdentityStore, clientId: string, patch: ClientUpdate): Promise<ClientRecord> {
  return store.transaction(async (tx) => {
    const current = await getClient(tx, clientId);
    const appType = patch.app_type ?? current.app_type;
    const grantTypes = patch.grant_types ?? current.grant_types;
    checkGrantTypes(appType, grantTypes);
    const method = requestedAuthMethod(patch) ?? methodAfterAppTypeChange(current, appType);
    const touchesAuth = [patch.token_endpoint_auth_method, patch.client_authentication_methods, patch.app_type, patch.grant_types];
    if (touchesAuth.some((field) => field !== undefined)) checkAuthMethod(appType, method, grantTypes);
    for (const [index, { id }] of (patch.client_authentication_methods?.private_key_jwt.credentials ?? []).entries()) {
      if (!(await tx.clientCredentials.find(clientId, id))) {
        throw invalidField(`client_authentication_methods.private_key_jwt.credentials.${index}.id`, `no credential ${id} on this client`);
      }
    }
    if (patch.built_in !== undefined && patch.built_in !== (current.system_role !== null)) {
      throw invalidField('built_in', `is read-only (${current.system_role !== null ? 'a built-in client stays built in' : 'only the service creates built-in clients'})`);
    }
    if (current.system_role === BOOTSTRAP_ADMIN_ROLE && appType !== current.app_type) {
      throw forbidden('The app_type of the bootstrap admin client cannot be changed');
    }
    const settings = auth0SettingsIn(patch);
    const updated = await tx.clients.update(clientId, {
      name: patch.name,
      app_type: patch.app_type,
      callbacks: patch.callbacks,
      allowed_origins: patch.allowed_origins,
      grant_types: patch.grant_types ? [...new Set(patch.grant_types)] : undefined,
      default_audience: patch.default_audience,
      token_endpoint_auth_method: method,
      allowed_logout_urls: patch.allowed_logout_urls,
      web_origins: patch.web_origins?.map(trimSlash),
      initiate_login_uri: patch.initiate_login_uri,
      description: patch.description,
      oidc_conformant: patch.oidc_conformant,
      refresh_token: patch.refresh_token,
      jwt_configuration: patch.jwt_configuration,
      // Each setting sent replaces the stored one; the others stay.
      auth0_settings: Object.keys(settings).length > 0 ? { ...current.auth0_settings, ...settings } : undefined,
      oidc_logout: requestedOidcLogout(patch),
      cross_origin_authentication: requestedCrossOriginAuthentication(patch),
      cross_origin_loc: patch.cross_origin_loc,
      ...(isConfidential(appType) ? {} : { secret_hash: null }),
    });
    return clientRecordOf(tx, updated!);
  });
}

/** A client turning public must stop authenticating; one turning confidential gets the default. */
function methodAfterAppTypeChange(current: StoredClient, appType: AppType): TokenEndpointAuthMethod {
  if (!isConfidential(appType)) return 'none';
  if (!isConfidential(current.app_type)) return defaultAuthMethod(appType);
  return current.token_endpoint_auth_method;
}

/** Only a confidential client has a secret. */
export function checkCanHoldSecret(appType: AppType): void {
  if (!isConfidential(appType)) throw invalidField('client_secret', `a ${appType} client has no secret`);
}

/** New secret for a confidential client; the old one stops working at once. */
export async function rotateClientSecret(store: IdentityStore, clientId: string): Promise<ClientRecord> {
  const client = await getClient(store, clientId);
  if (!isConfidential(client.app_type)) throw invalidField('app_type', `a ${client.app_type} client has no secret`);
  const secret = generateClientSecret();
  const updated = await store.clients.update(clientId, { secret_hash: hashClientSecret(secret) });
  if (!updated) throw notFound('Client');
  return clientRecordOf(store, updated, secret);
}

/** Deleting a client also removes its grants, and it disappears from enabled_clients. */
export async function deleteClient(store: IdentityStore, clientId: string): Promise<void> {
  const client = await getClient(store, clientId);
  if (client.system_role === BOOTSTRAP_ADMIN_ROLE) {
    throw forbidden('The bootstrap admin client cannot be deleted (it would lock the management API)');
  }
  await store.clients.delete(clientId);
}
