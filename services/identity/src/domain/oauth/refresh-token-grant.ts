import { RefreshTokenRequestSchema, type OAuthTokenResponse } from '@smsauth/contracts';
import { HttpError, type Logger } from '@smsauth/service-kit';
import { changeRecorded, logRecord, recordEvents, type LogContext } from '../logs/tenant-log';
import { refuseBlockedUser } from '../passwordless/blocked-user';
import { presentedCredentials, type ClientAuthenticator } from './client-auth';
import { invalidGrant, invalidRequest, requireGrantType } from './oauth-errors';
import type { TokenGrantHandler } from './token-grants';
import { deserialiseRequestedClaims } from '../authorize/requested-claims';
import { hashToken, issueUserTokens, refreshExpiry, refreshSettingsOf, splitScope, userGrant, type UserTokenDependencies } from './user-tokens';

function invalidRefreshToken(): HttpError {
  return invalidGrant('Unknown or invalid refresh token.');
}

/**
 * `grant_type=refresh_token`, as the client's `refresh_token` settings say (rotation_type,
 * expiration_type, lifetimes, leeway; by default rotating with a 30-day idle expiry). Rotation: each use marks the token rotated (one atomic
 * UPDATE, so of two parallel uses one wins) and returns a successor in the same family.
 * Presenting a rotated token again means it was copied: the whole family is revoked, the
 * legitimate holder's newest token included (OAuth 2.0 Security BCP §4.14.2).
 */
export function refreshTokenGrant(
  deps: UserTokenDependencies & { logger: Pick<Logger, 'warn'>; clientAuthenticator: ClientAuthenticator },
): TokenGrantHandler {
  return async (call): Promise<OAuthTokenResponse> => {
    const parsed = RefreshTokenRequestSchema.safeParse({ ...call.body, client_id: presentedCredentials(call).clientId });
    if (!parsed.success) throw invalidRequest(parsed.error.issues);
    const request = parsed.data;
    const client = await deps.clientAuthenticator.authenticate(await deps.store.clients.findById(request.client_id), call);
    requireGrantType(client, 'refresh_token');

    const now = deps.clock.now();
    const log: LogContext = { clientId: client.client_id, clientName: client.name, ip: call.ip, userAgent: call.headers['user-agent'] };
    const tokenHash = hashToken(request.refresh_token);
    const presented = await deps.store.refreshTokens.findByHash(tokenHash);
    // Another client's token is refused without touching it.
    if (!presented || presented.client_id !== client.client_id) {
      await recordEvents(deps.store, logRecord('fertft', log, now, { reason: 'unknown_token' }));
      throw invalidRefreshToken();
    }
    const userLog = { ...log, userId: presented.user_id };
    // Checked before the token is rotated: refused while blocked, usable again once unblocked.
    const user = await deps.store.users.findById(presented.user_id);
    refuseBlockedUser(user);
    const settings = refreshSettingsOf(client);
    const rotating = settings.rotation_type === 'rotating';
    const current = await changeRecorded(
      deps.store,
      (tx) =>
        rotating
          ? tx.refreshTokens.rotate(tokenHash, now)
          : tx.refreshTokens.use(tokenHash, now, refreshExpiry(settings, now, presented.family_expires_at).expiresAt),
      (used) => (used ? logRecord('sertft', userLog, now) : undefined),
    );
    const withinLeeway = (token: typeof presented) =>
      rotating &&
      settings.leeway > 0 &&
      token.rotated_at !== null &&
      token.revoked_at === null &&
      now.getTime() - token.rotated_at.getTime() <= settings.leeway * 1000 &&
      (token.family_expires_at === null || token.family_expires_at > now);
    let used = current;
    if (!used) {
      const latest = await deps.store.refreshTokens.findByHash(tokenHash);
      if (latest && withinLeeway(latest)) {
        // A retry within the client's leeway (a lost response, two tabs): answered, not reuse.
        await recordEvents(deps.store, logRecord('sertft', userLog, now, { within_leeway: true }));
        used = latest;
      } else if (rotating && latest?.rotated_at && !latest.revoked_at) {
        await changeRecorded(
          deps.store,
          (tx) => tx.refreshTokens.revokeFamily(latest.family_id, now),
          () => logRecord('ferrt', userLog, now, { reason: 'reused_token', family_revoked: true }),
        );
        deps.logger.warn({ client_id: client.client_id, family: latest.family_id }, 'refresh token reused: family revoked');
        throw invalidRefreshToken();
      } else {
        await recordEvents(deps.store, logRecord('fertft', userLog, now, { reason: latest?.revoked_at ? 'revoked_token' : 'expired_token' }));
        throw invalidRefreshToken();
      }
    }

    const api = used.audience ? await deps.store.resourceServers.findByIdentifier(used.audience) : undefined;
    if (!user || (used.audience && !api)) throw invalidRefreshToken();
    // The management API without RBAC no longer accepts user logins, refreshes included.
    if (api?.is_system && !api.enforce_policies) throw invalidRefreshToken();
    // RBAC: the scopes of the login, less those the user no longer holds; elsewhere the login's scopes as they were.
    const { scopes, permissions } = api?.enforce_policies ? await userGrant(deps.store, user.user_id, splitScope(used.scope), api) : { scopes: splitScope(used.scope), permissions: undefined };
    const tokens = await issueUserTokens(deps, {
      client,
      user,
      scopes,
      api,
      permissions,
      // The claims parameter of the login still names what the tokens release.
      claims: deserialiseRequestedClaims(used.claims),
      // Non-rotating: the presented token stays the client's refresh token; none is added.
      refresh: rotating ? { device: used.device, familyId: used.family_id, familyExpiresAt: used.family_expires_at, sessionId: used.session_id } : undefined,
    });
    return { ...tokens, token_type: 'Bearer' };
  };
}
