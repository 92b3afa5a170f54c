import { createHash, timingSafeEqual } from 'node:crypto';
import { AuthorizationCodeRequestSchema, type OAuthTokenResponse } from '@smsauth/contracts';
import type { Logger } from '@smsauth/service-kit';
import type { StoredAuthorizationCode } from '../../store';
import { hashAuthorizationCode } from '../authorize/complete';
import { deserialiseRequestedClaims } from '../authorize/requested-claims';
import type { WebLoginMetrics } from '../authorize/web-login-metrics';
import { newId } from '../ids';
import { changeRecorded, logRecord, recordEvents, type LogContext } from '../logs/tenant-log';
import { presentedCredentials, type ClientAuthenticator } from './client-auth';
import { invalidGrant, invalidRequest, requireGrantType } from './oauth-errors';
import type { TokenGrantHandler } from './token-grants';
import { hashToken, issueUserTokens, newOpaqueAccessToken, splitScope, userGrant, type UserTokenDependencies } from './user-tokens';


/** RFC 7636 §4.6: BASE64URL(SHA256(code_verifier)) equals the challenge, compared in constant time. */
export function verifiesChallenge(verifier: string, challenge: string): boolean {
  const computed = Buffer.from(createHash('sha256').update(verifier, 'ascii').digest('base64url'));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}

/**
 * `grant_type=authorization_code` (RFC 6749 §4.1.3 with PKCE, RFC 7636). The client
 * authenticates as its method says (a public one with nothing but its client_id and the
 * `code_verifier`). The code is consumed in one statement, so of two exchanges one wins; it
 * must have been issued to this client for this `redirect_uri`, and the verifier must match
 * its S256 challenge. A code presented again revokes what its first exchange issued: the
 * refresh token family and the opaque access token (a JWT access token cannot be recalled;
 * it lives out its lifetime). Answers the tokens with `id_token` (`nonce`, `auth_time`, `sid`)
 * and a refresh token when `offline_access` was asked for and the client has the
 * refresh_token grant.
 */
export function authorizationCodeGrant(
  deps: UserTokenDependencies & { logger: Pick<Logger, 'warn'>; clientAuthenticator: ClientAuthenticator; metrics: Pick<WebLoginMetrics, 'codeExchanges'> },
): TokenGrantHandler {
  return async (call): Promise<OAuthTokenResponse> => {
    const parsed = AuthorizationCodeRequestSchema.safeParse({ ...call.body, client_id: presentedCredentials(call).clientId });
    if (!parsed.success) throw invalidRequest(parsed.error.issues);
    const request = parsed.data;
    const client = await deps.clientAuthenticator.authenticate(await deps.store.clients.findById(request.client_id), call);
    requireGrantType(client, 'authorization_code');

    const now = deps.clock.now();
    const log: LogContext = { clientId: client.client_id, clientName: client.name, ip: call.ip, userAgent: call.headers['user-agent'] };
    const refuse = async (reason: string, description: string, userId?: string): Promise<never> => {
      await recordEvents(deps.store, logRecord('feacft', { ...log, userId }, now, { reason }));
      deps.metrics.codeExchanges.inc({ result: 'refused' });
      throw invalidGrant(description);
    };

    // Named before the code is consumed, so the consuming statement remembers them for a replay.
    const familyId = newId('rt');
    const opaqueAccessToken = newOpaqueAccessToken();
    const codeHash = hashAuthorizationCode(request.code);
    const code = await deps.store.authorizationCodes.consume(codeHash, now, { refreshFamilyId: familyId, accessTokenHash: hashToken(opaqueAccessToken) });
    if (!code) {
      const known = await deps.store.authorizationCodes.findByHash(codeHash);
      if (known?.used_at && known.client_id === client.client_id) {
        await revokeIssued(deps, known, log, now);
        deps.metrics.codeExchanges.inc({ result: 'replayed' });
        throw invalidGrant('Invalid authorization code');
      }
      return refuse(known ? 'expired_code' : 'unknown_code', 'Invalid authorization code', known?.user_id);
    }
    // Checked after consuming: a code tried with the wrong client, redirect_uri or verifier is spent.
    if (code.client_id !== client.client_id) return refuse('other_client', 'Invalid authorization code');
    if (request.redirect_uri !== code.redirect_uri) {
      return refuse('redirect_uri_mismatch', 'The redirect_uri does not match the one of the authorization request.', code.user_id);
    }
    if (code.code_challenge) {
      if (!request.code_verifier) return refuse('missing_code_verifier', 'Missing required parameter: code_verifier', code.user_id);
      if (!verifiesChallenge(request.code_verifier, code.code_challenge)) return refuse('wrong_code_verifier', 'Failed to verify code verifier', code.user_id);
    } else if (request.code_verifier) {
      return refuse('unexpected_code_verifier', 'A code_verifier was sent but the authorization request had no code_challenge.', code.user_id);
    }

    const user = await deps.store.users.findById(code.user_id);
    if (!user) return refuse('unknown_user', 'Invalid authorization code');
    if (user.blocked) return refuse('blocked_user', 'user is blocked', user.user_id);
    const api = code.audience ? await deps.store.resourceServers.findByIdentifier(code.audience) : undefined;
    if (code.audience && !api) return refuse('unknown_audience', 'The API of the authorization request no longer exists.', user.user_id);

    if (api?.is_system && !api.enforce_policies) return refuse('unknown_audience', 'The API of the authorization request no longer accepts user logins.', user.user_id);
    const { scopes, permissions } = await userGrant(deps.store, user.user_id, splitScope(code.scope), api);
    const wantsRefresh = scopes.includes('offline_access') && client.grant_types.includes('refresh_token');
    const tokens = await issueUserTokens(deps, {
      client,
      user,
      scopes: wantsRefresh ? scopes : scopes.filter((s) => s !== 'offline_access'),
      api,
      permissions,
      nonce: code.nonce ?? undefined,
      session: code.session_id ? { id: code.session_id, authenticatedAt: code.auth_time } : undefined,
      refresh: wantsRefresh ? { device: null, familyId, sessionId: code.session_id } : undefined,
      opaqueAccessToken,
      claims: deserialiseRequestedClaims(code.claims),
      acr: code.acr ?? undefined,
    });
    await recordEvents(deps.store, logRecord('seacft', { ...log, userId: user.user_id }, now, { session_id: code.session_id }));
    deps.metrics.codeExchanges.inc({ result: 'success' });
    return { ...tokens, token_type: 'Bearer' };
  };
}

/** A replayed code (RFC 6749 §4.1.2): what its first exchange issued is revoked. */
async function revokeIssued(
  deps: UserTokenDependencies & { logger: Pick<Logger, 'warn'> },
  code: StoredAuthorizationCode,
  log: LogContext,
  now: Date,
): Promise<void> {
  await changeRecorded(
    deps.store,
    async (tx) => {
      if (code.refresh_family_id) await tx.refreshTokens.revokeFamily(code.refresh_family_id, now);
      if (code.access_token_hash) await tx.accessTokens.delete(code.access_token_hash);
    },
    () => logRecord('feacft', { ...log, userId: code.user_id }, now, { reason: 'reused_code', issued_tokens_revoked: true }),
  );
  deps.logger.warn({ client_id: code.client_id }, 'authorization code reused: what it issued is revoked');
}
