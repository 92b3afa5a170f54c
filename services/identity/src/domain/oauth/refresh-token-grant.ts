import { ErrorCodes, RefreshTokenRequestSchema, type OAuthTokenResponse } from '@smsauth/contracts';
import { HttpError, type Logger } from '@smsauth/service-kit';
import { changeRecorded, logRecord, recordEvents, type LogContext } from '../logs/tenant-log';
import { refuseBlockedUser } from '../passwordless/blocked-user';
import { presentedCredentials, type ClientAuthenticator } from './client-auth';
import { invalidRequest, requireGrantType } from './oauth-errors';
import type { TokenGrantHandler } from './token-grants';
import { hashToken, issueUserTokens, splitScope, type UserTokenDependencies } from './user-tokens';

function invalidRefreshToken(): HttpError {
  return new HttpError(403, ErrorCodes.INVALID_GRANT, 'Unknown or invalid refresh token.');
}

/**
 * `grant_type=refresh_token` with rotation: each use marks the token rotated (one atomic
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
    const current = await changeRecorded(
      deps.store,
      (tx) => tx.refreshTokens.rotate(tokenHash, now),
      (rotated) => (rotated ? logRecord('sertft', userLog, now) : undefined),
    );
    if (!current) {
      const latest = await deps.store.refreshTokens.findByHash(tokenHash);
      if (latest?.rotated_at && !latest.revoked_at) {
        await changeRecorded(
          deps.store,
          (tx) => tx.refreshTokens.revokeFamily(latest.family_id, now),
          () => logRecord('ferrt', userLog, now, { reason: 'reused_token', family_revoked: true }),
        );
        deps.logger.warn({ client_id: client.client_id, family: latest.family_id }, 'refresh token reused: family revoked');
      } else {
        await recordEvents(deps.store, logRecord('fertft', userLog, now, { reason: latest?.revoked_at ? 'revoked_token' : 'expired_token' }));
      }
      throw invalidRefreshToken();
    }

    const api = current.audience ? await deps.store.resourceServers.findByIdentifier(current.audience) : undefined;
    if (!user || (current.audience && !api)) throw invalidRefreshToken();
    const tokens = await issueUserTokens(deps, {
      client,
      user,
      scopes: splitScope(current.scope),
      api,
      refresh: { device: current.device, familyId: current.family_id },
    });
    return { ...tokens, token_type: 'Bearer' };
  };
}
