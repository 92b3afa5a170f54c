import { ErrorCodes, type UserInfoResponse } from '@smsauth/contracts';
import { bearerToken, HttpError, type Clock } from '@smsauth/service-kit';
import jwt from 'jsonwebtoken';
import type { IdentityStore, StoredUser } from '../../store';
import { InvalidTokenError, type TokenVerifier } from '../tokens/verifier';
import { releasedClaims } from './profile-claims';
import { hashToken } from './user-tokens';

function unauthorized(description: string, tokenPresent: boolean): HttpError {
  // RFC 6750 §3.1: no error code in the challenge when the request carried no token.
  const challenge = tokenPresent ? 'Bearer realm="userinfo", error="invalid_token"' : 'Bearer realm="userinfo"';
  return new HttpError(401, ErrorCodes.INVALID_TOKEN, description, { headers: { 'WWW-Authenticate': challenge } });
}

/** Whose token it is and the scopes it was granted, which decide the claims released. */
interface TokenGrant {
  userId: string;
  scope: string;
  /** Claims the claims parameter asked for at UserInfo (opaque tokens keep them). */
  claims?: string[];
}

/**
 * A user's JWT access token (`typ: at+jwt`, issued here for an API): signature, issuer and
 * expiry checked against this service's keys, for whatever audience it names. ID tokens and
 * M2M tokens (`typ: JWT`) are not access tokens for a user and are refused.
 */
async function grantFromJwt(verifier: TokenVerifier, token: string): Promise<TokenGrant | undefined> {
  const decoded = jwt.decode(token, { complete: true });
  if (!decoded || typeof decoded.payload === 'string' || decoded.header.typ !== 'at+jwt') return undefined;
  const aud = decoded.payload.aud;
  const audience = Array.isArray(aud) ? aud[0] : aud;
  if (typeof audience !== 'string') return undefined;
  try {
    const claims = await verifier.verify(token, audience);
    if (typeof claims.sub !== 'string' || !claims.sub.startsWith('sms|')) return undefined;
    return { userId: claims.sub, scope: typeof claims.scope === 'string' ? claims.scope : '' };
  } catch (err) {
    if (err instanceof InvalidTokenError) return undefined;
    throw err;
  }
}

/**
 * `GET /userinfo`: the user an access token issued here (opaque or JWT) belongs to, with the
 * claims its scopes release (`profile`, `phone`), as in the ID token, and for an opaque token
 * those the claims parameter asked for at UserInfo.
 */
export async function userInfo(
  deps: { store: IdentityStore; verifier: TokenVerifier; clock: Clock },
  authorization: string | undefined,
): Promise<UserInfoResponse> {
  const token = bearerToken(authorization);
  if (!token) throw unauthorized('Missing bearer token', Boolean(authorization));
  let grant: TokenGrant | undefined;
  if (token.split('.').length === 3) {
    grant = await grantFromJwt(deps.verifier, token);
  } else {
    const stored = await deps.store.accessTokens.findLive(hashToken(token), deps.clock.now());
    grant = stored ? { userId: stored.user_id, scope: stored.scope, claims: stored.claims ? stored.claims.split(' ') : [] } : undefined;
  }
  const user: StoredUser | undefined = grant ? await deps.store.users.findById(grant.userId) : undefined;
  if (!user || !grant) throw unauthorized('Invalid or expired access token', true);
  return { sub: user.user_id, ...releasedClaims(user, grant.scope.split(' '), grant.claims) };
}
