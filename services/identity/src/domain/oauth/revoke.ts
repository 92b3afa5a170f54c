import { RevokeRequestSchema } from '@smsauth/contracts';
import type { Clock } from '@smsauth/service-kit';
import type { IdentityStore } from '../../store';
import { hashToken } from './user-tokens';
import { presentedCredentials, type ClientAuthenticationRequest, type ClientAuthenticator } from './client-auth';
import { invalidRequest, requireObjectBody } from './oauth-errors';

export interface RevokeDependencies {
  store: IdentityStore;
  clock: Clock;
  clientAuthenticator: ClientAuthenticator;
}

/**
 * `POST /oauth/revoke` (RFC 7009, as Auth0 documents it): the client authenticates as its
 * method says; a refresh token it was issued is revoked together with the rest of its
 * rotation family (Auth0's "revocation deletes grant" default), so neither it nor a successor
 * refreshes again. An unknown, already revoked or another client's token changes nothing and
 * answers the same 200, so the endpoint tells nobody which tokens exist.
 */
export async function revokeRefreshToken(deps: RevokeDependencies, call: { body: unknown; headers: ClientAuthenticationRequest['headers'] }): Promise<void> {
  const body = requireObjectBody(call.body);
  const request = { body, headers: call.headers };
  const parsed = RevokeRequestSchema.safeParse({ ...body, client_id: presentedCredentials(request).clientId });
  const issues = parsed.error?.issues ?? [];
  if (!parsed.success || !parsed.data.client_id) {
    throw invalidRequest(parsed.success ? [{ code: 'custom', path: ['client_id'], message: 'required', input: undefined }] : issues);
  }
  const clientId = parsed.data.client_id;
  const client = await deps.clientAuthenticator.authenticate(await deps.store.clients.findById(clientId), request);
  const token = await deps.store.refreshTokens.findByHash(hashToken(parsed.data.token));
  if (!token || token.client_id !== client.client_id || token.revoked_at) return;
  await deps.store.refreshTokens.revokeFamily(token.family_id, deps.clock.now());
}
