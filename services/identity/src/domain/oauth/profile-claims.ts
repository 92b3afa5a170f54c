import type { StoredUser } from '../../store';

/**
 * The OIDC claims about a user that a token's scopes release (OIDC Core §5.4), as the reference
 * product gives them for SMS users: `profile` releases `name` and `nickname` (both the number, the
 * only name an SMS user has) and `updated_at` (seconds); `phone` releases `phone_number` and
 * `phone_number_verified`; `openid` alone releases only `sub`. `picture` is deliberately absent:
 * the reference product points it at an avatar on its own CDN, and this service serves none
 * (docs/identity.md, "Claims by scope").
 */
export interface ProfileClaims {
  name?: string;
  nickname?: string;
  updated_at?: number;
  phone_number?: string;
  phone_number_verified?: boolean;
}

export function profileClaims(user: StoredUser, scopes: readonly string[]): ProfileClaims {
  return {
    ...(scopes.includes('profile')
      ? { name: user.phone_number, nickname: user.phone_number, updated_at: Math.floor(user.updated_at.getTime() / 1000) }
      : {}),
    ...(scopes.includes('phone') ? { phone_number: user.phone_number, phone_number_verified: user.phone_verified } : {}),
  };
}

/** The claims about a user this service has, each releasable by name through the claims parameter. */
export const USER_CLAIMS = ['name', 'nickname', 'updated_at', 'phone_number', 'phone_number_verified'] as const;

/**
 * The claims a token releases: those of its scopes, and those the `claims` request parameter
 * (OIDC Core §5.5) asked for by name, essential or not, among USER_CLAIMS (others are ignored:
 * the user has no email, address or other profile data).
 */
export function releasedClaims(user: StoredUser, scopes: readonly string[], requested: readonly string[] = []): ProfileClaims {
  const all = profileClaims(user, ['profile', 'phone']);
  const named = Object.fromEntries(Object.entries(all).filter(([name]) => requested.includes(name)));
  return { ...named, ...profileClaims(user, scopes) };
}
