import { createHash, randomBytes } from 'node:crypto';
import { DEFAULT_ID_TOKEN_LIFETIME_SECONDS, DEFAULT_REFRESH_TOKEN_SETTINGS, ErrorCodes, type RefreshTokenSettings } from '@smsauth/contracts';
import { HttpError, type Clock } from '@smsauth/service-kit';
import type { IdentityStore, StoredAccessToken, StoredClient, StoredResourceServer, StoredUser } from '../../store';
import { newId } from '../ids';
import { releasedClaims } from './profile-claims';
import { serialiseRequestedClaims, type RequestedClaims } from '../authorize/requested-claims';
import type { TokenSigner } from '../tokens/signer';

/** Opaque access tokens (no audience) are good for /userinfo for 24 hours. */
export const OPAQUE_ACCESS_TOKEN_LIFETIME_SECONDS = 86_400;

/** Scopes about the user (OIDC) that any login may ask for; APIs add their own. */
export const USER_SCOPES = ['openid', 'profile', 'phone', 'offline_access'] as const;

export interface UserTokenDependencies {
  store: IdentityStore;
  signer: TokenSigner;
  clock: Clock;
}

export interface UserTokenRequest {
  client: StoredClient;
  user: StoredUser;
  /** Granted scopes (see grantedScopes). */
  scopes: readonly string[];
  /** The API the access token is for; none means an opaque token for /userinfo. */
  api?: StoredResourceServer;
  /** The API's token_dialect is access_token_authz: the `permissions` claim (see userGrant). */
  permissions?: readonly string[];
  /** From the start's authParams, echoed in the ID token. */
  nonce?: string;
  /**
   * Issue a refresh token: a new family (`familyId` may name it), or the family of the token
   * being rotated with its absolute end (`familyExpiresAt`).
   */
  refresh?: { device: string | null; familyId?: string; familyExpiresAt?: Date | null; sessionId?: string | null };
  /** The login session the tokens come from: the ID token carries its `sid` and `auth_time`. */
  session?: { id: string; authenticatedAt: Date };
  /**
   * No `api`: the opaque access token prepareOpaqueAccessToken made, which the code exchange
   * already stored with the login. Without it the opaque token is made and stored here.
   */
  storedAccessToken?: PreparedOpaqueToken;
  /**
   * No `api` and nothing stored yet: the value the opaque access token takes (newOpaqueAccessToken),
   * when the caller had to name it before (the code exchange remembers its hash with the code).
   */
  opaqueAccessToken?: string;
  /** The access token travels with the ID token (implicit `token id_token`): the ID token carries its `at_hash`. */
  accessTokenHash?: boolean;
  /** The claims parameter: named claims in the ID token, and kept with an opaque access token for /userinfo. */
  claims?: RequestedClaims;
  /** The ID token's `acr` (requestedAcr). */
  acr?: string;
}

/**
 * OpenID Connect Core §3.2.2.9: the base64url of the left half of the SHA-256 of the access
 * token (RS256's hash), so the client can tell the access token came with this ID token.
 */
export function accessTokenHash(accessToken: string): string {
  return createHash('sha256').update(accessToken, 'ascii').digest().subarray(0, 16).toString('base64url');
}

/** An opaque access token made before the login it is for: its value, and its row less the user. */
export interface PreparedOpaqueToken {
  value: string;
  row: Omit<StoredAccessToken, 'user_id'>;
}

export interface IssuedUserTokens {
  access_token: string;
  id_token?: string;
  expires_in: number;
  refresh_token?: string;
  scope: string;
}

export function splitScope(scope: string | undefined): string[] {
  return [...new Set((scope ?? '').split(' ').filter(Boolean))];
}

/** Requested scopes this login may have: the user scopes, plus the API's own when there is one. */
export function grantedScopes(requested: readonly string[], api?: StoredResourceServer): string[] {
  const allowed = new Set<string>([...USER_SCOPES, ...(api?.scopes.map((s) => s.value) ?? [])]);
  return requested.filter((s) => allowed.has(s));
}

/** What a user login gets on an API: its scopes, and the `permissions` claim where the API's dialect has one. */
export interface UserGrant {
  scopes: string[];
  permissions?: string[];
}

/**
 * The scopes a user login gets (Auth0's RBAC). On an API with `enforce_policies`, a scope of the
 * API only when the user holds it as a permission (through a role or directly), read now, so a
 * role taken away is gone from the next token or refresh; with `token_dialect`
 * access_token_authz, the `permissions` claim lists every permission the user holds on the API.
 * Elsewhere grantedScopes alone.
 */
export async function userGrant(store: IdentityStore, userId: string, requested: readonly string[], api?: StoredResourceServer): Promise<UserGrant> {
  const scopes = grantedScopes(requested, api);
  if (!api?.enforce_policies) return { scopes };
  const apiScopes = new Set(api.scopes.map((s) => s.value));
  const held = (await store.roles.permissionNames(userId, api.identifier)).filter((name) => apiScopes.has(name));
  const holds = new Set(held);
  return {
    scopes: scopes.filter((scope) => !apiScopes.has(scope) || holds.has(scope)),
    ...(api.token_dialect === 'access_token_authz' ? { permissions: held } : {}),
  };
}

/** Opaque tokens are stored (and looked up) by their SHA-256 only. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

function opaqueToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The value of an opaque access token, made before the request that issues it (see UserTokenRequest.opaqueAccessToken). */
export function newOpaqueAccessToken(): string {
  return opaqueToken();
}

/**
 * The opaque access token of a login without an API, made before the code is checked so the
 * exchange stores it in the statement that records the login (one round trip less).
 */
export function prepareOpaqueAccessToken(clock: Clock, clientId: string, scopes: readonly string[], claims?: RequestedClaims): PreparedOpaqueToken {
  const now = clock.now();
  const value = opaqueToken();
  return { value, row: opaqueTokenRow(value, clientId, scopes.join(' '), now, claims) };
}

function opaqueTokenRow(value: string, clientId: string, scope: string, now: Date, claims?: RequestedClaims): Omit<StoredAccessToken, 'user_id'> {
  return {
    token_hash: hashToken(value),
    client_id: clientId,
    scope,
    claims: claims?.userinfo.length ? claims.userinfo.join(' ') : null,
    created_at: now,
    expires_at: new Date(now.getTime() + OPAQUE_ACCESS_TOKEN_LIFETIME_SECONDS * 1000),
  };
}

/** The client's refresh_token settings, or the defaults when it has none. */
export function refreshSettingsOf(client: Pick<StoredClient, 'refresh_token'>): RefreshTokenSettings {
  return client.refresh_token ?? DEFAULT_REFRESH_TOKEN_SETTINGS;
}

/**
 * When a refresh token issued or used at `now` expires: the idle bound from now, never past
 * the family's absolute end (`familyExpiresAt`; undefined: a new family, whose end is
 * `token_lifetime` from now). Non-expiring settings: never.
 */
export function refreshExpiry(
  settings: RefreshTokenSettings,
  now: Date,
  familyExpiresAt?: Date | null,
): { expiresAt: Date | null; familyExpiresAt: Date | null } {
  if (settings.expiration_type === 'non-expiring') return { expiresAt: null, familyExpiresAt: null };
  const familyEnd =
    familyExpiresAt !== undefined ? familyExpiresAt : settings.infinite_token_lifetime ? null : new Date(now.getTime() + settings.token_lifetime * 1000);
  const idleEnd = settings.infinite_idle_token_lifetime ? null : new Date(now.getTime() + settings.idle_token_lifetime * 1000);
  const ends = [familyEnd, idleEnd].filter((d): d is Date => d !== null);
  const expiresAt = ends.length ? new Date(Math.min(...ends.map((d) => d.getTime()))) : null;
  return { expiresAt, familyExpiresAt: familyEnd };
}

/**
 * The tokens of a successful login or refresh: an RS256 ID token when `openid` was granted;
 * an RS256 JWT access token (`typ: at+jwt`) for an API, or an opaque one for /userinfo;
 * and a refresh token when asked for.
 */
export async function issueUserTokens(deps: UserTokenDependencies, request: UserTokenRequest): Promise<IssuedUserTokens> {
  const { client, user, scopes, api } = request;
  const now = deps.clock.now();
  const scope = scopes.join(' ');

  let accessToken: string;
  let expiresIn: number;
  if (api) {
    expiresIn = api.token_lifetime;
    accessToken = await deps.signer.sign(
      { sub: user.user_id, aud: api.identifier, azp: client.client_id, scope, ...(request.permissions ? { permissions: [...request.permissions] } : {}) },
      { expiresInSeconds: expiresIn, typ: 'at+jwt' },
    );
  } else if (request.storedAccessToken) {
    expiresIn = OPAQUE_ACCESS_TOKEN_LIFETIME_SECONDS;
    accessToken = request.storedAccessToken.value;
  } else {
    expiresIn = OPAQUE_ACCESS_TOKEN_LIFETIME_SECONDS;
    accessToken = request.opaqueAccessToken ?? opaqueToken();
    await deps.store.accessTokens.insert({ ...opaqueTokenRow(accessToken, client.client_id, scope, now, request.claims), user_id: user.user_id });
  }

  const idToken = scopes.includes('openid')
    ? await deps.signer.sign(
        {
          sub: user.user_id,
          aud: client.client_id,
          ...releasedClaims(user, scopes, request.claims?.idToken),
          ...(request.nonce ? { nonce: request.nonce } : {}),
          ...(request.acr ? { acr: request.acr } : {}),
          ...(request.accessTokenHash ? { at_hash: accessTokenHash(accessToken) } : {}),
          ...(request.session ? { auth_time: Math.floor(request.session.authenticatedAt.getTime() / 1000), sid: request.session.id } : {}),
        },
        { expiresInSeconds: client.jwt_configuration?.lifetime_in_seconds ?? DEFAULT_ID_TOKEN_LIFETIME_SECONDS },
      )
    : undefined;

  let refreshToken: string | undefined;
  if (request.refresh) {
    refreshToken = opaqueToken();
    const expiry = refreshExpiry(refreshSettingsOf(client), now, request.refresh.familyExpiresAt);
    await deps.store.refreshTokens.insert({
      id: newId('rt'),
      token_hash: hashToken(refreshToken),
      family_id: request.refresh.familyId ?? newId('rt'),
      client_id: client.client_id,
      user_id: user.user_id,
      scope,
      audience: api?.identifier ?? null,
      device: request.refresh.device,
      created_at: now,
      expires_at: expiry.expiresAt,
      family_expires_at: expiry.familyExpiresAt,
      session_id: request.refresh.sessionId ?? null,
      claims: serialiseRequestedClaims(request.claims),
    });
  }

  return {
    access_token: accessToken,
    ...(idToken ? { id_token: idToken } : {}),
    expires_in: expiresIn,
    ...(refreshToken ? { refresh_token: refreshToken } : {}),
    scope,
  };
}

/**
 * The API a user access token is for. The management API only while it enforces policies: its
 * tokens then carry exactly the management scopes the user's roles and permissions grant
 * (userGrant); without RBAC a user login must never obtain management scopes.
 */
export async function userAudience(store: IdentityStore, client: StoredClient, audience: string): Promise<StoredResourceServer> {
  const api = await store.resourceServers.findByIdentifier(audience);
  if (!api) throw new HttpError(403, ErrorCodes.ACCESS_DENIED, `Service not found: ${audience}`);
  if (api.is_system && !api.enforce_policies) {
    throw new HttpError(403, ErrorCodes.ACCESS_DENIED, `Client ${client.client_id} is not authorized to access resource server ${api.identifier}`);
  }
  return api;
}
