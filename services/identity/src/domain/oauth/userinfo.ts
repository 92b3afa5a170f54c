import { ErrorCodes, type UserInfoResponse } from '@smsauth/contracts';
import { bearerToken, HttpError, type Clock } from '@smsauth/service-kit';
import jwt from 'jsonwebtoken';
import type { IdentityStore, StoredUser } from '../../store';
import { InvalidTokenError, type TokenVerifier } from '../tokens/verifier';
import { hashToken } from './user-tokens';

function unauthorized(description: string, tokenPresent: boolean): HttpError {
  // RFC 6750 §3.1: no error code in the challenge when the request carried no token.
  const challenge = tokenPresent ? 'Bearer realm="userinfo", error="invalid_token"' : 'Bearer realm="userinfo"';
  return new HttpError(401, ErrorCodes.INVALID_TOKEN, description, { headers: { 'WWW-Authenticate': challenge } });
}

/**
 * A user's JWT access token (`typ: at+jwt`, issued here for an API): signature, issuer and
 * expiry checked against this service's keys, for whatever audience it names. ID tokens and
 * M2M tokens (`typ: JWT`) are not access tokens for a user and are refused.
 */
async function userIdFromJwt(verifier: TokenVerifier, token: string): Promise<string | undefined> {
  const decoded = jwt.decode(token, { complete: true });
  if (!decoded || typeof decoded.payload === 'string' || decoded.header.typ !== 'at+jwt') return undefined;
  const aud = decoded.payload.aud;
  const audience = Array.isArray(aud) ? aud[0] : aud;
  if (typeof audience !== 'string') return undefined;
  try {
    const claims = await verifier.verify(token, audience);
    return typeof claims.sub === 'string' && claims.sub.startsWith('sms|') ? claims.sub : undefined;
  } catch (err) {
    if (err instanceof InvalidTokenError) return undefined;
    throw err;
  }
}

/** `GET /userinfo`: the user an access token issued here (opaque or JWT) belongs to. */
export async function userInfo(
  deps: { store: IdentityStore; verifier: TokenVerifier; clock: Clock },
  authorization: string | undefined,
): Promise<UserInfoResponse> {
  const token = bearerToken(authorization);
  if (!token) throw unauthorized('Missing bearer token', Boolean(authorization));
  let userId: string | undefined;
  if (token.split('.').length === 3) {
    userId = await userIdFromJwt(deps.verifier, token);
  } else {
    userId = (await deps.store.accessTokens.findLive(hashToken(token), deps.clock.now()))?.user_id;
  }
  const user: StoredUser | undefined = userId ? await deps.store.users.findById(userId) : undefined;
  if (!user) throw unauthorized('Invalid or expired access token', true);
  return { sub: user.user_id, phone_number: user.phone_number, phone_number_verified: user.phone_verified };
}
