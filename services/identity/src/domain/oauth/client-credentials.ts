import { ClientCredentialsRequestSchema, ErrorCodes } from '@smsauth/contracts';
import { HttpError } from '@smsauth/service-kit';
import type { IdentityStore } from '../../store';
import type { TokenSigner } from '../tokens/signer';
import { basicCredentials, requireClientSecret } from './client-auth';
import type { TokenGrantHandler } from './token-grants';

/** `grant_type=client_credentials`: an M2M token for an API the client holds a grant for. */
export function clientCredentialsGrant(deps: { store: IdentityStore; signer: TokenSigner }): TokenGrantHandler {
  return async ({ body, headers }) => {
    const basic = basicCredentials(headers);
    const parsed = ClientCredentialsRequestSchema.safeParse({
      ...body,
      client_id: body.client_id ?? basic?.clientId,
      client_secret: body.client_secret ?? basic?.clientSecret,
    });
    if (!parsed.success) {
      const missing = [...new Set(parsed.error.issues.map((i) => String(i.path[0] ?? 'body')))];
      throw new HttpError(400, ErrorCodes.INVALID_REQUEST, `Missing or invalid parameter: ${missing.join(', ')}`);
    }
    const request = parsed.data;
    const context = await deps.store.clientGrants.findClientCredentialsContext(request.client_id, request.audience);
    const client = requireClientSecret(context.client, request.client_secret);
    if (!client.grant_types.includes('client_credentials')) {
      throw new HttpError(403, ErrorCodes.UNAUTHORIZED_CLIENT, 'Grant type \'client_credentials\' not allowed for the client.');
    }
    const { api, grant } = context;
    if (!api) throw new HttpError(403, ErrorCodes.ACCESS_DENIED, `Service not found: ${request.audience}`);
    if (!grant) {
      throw new HttpError(
        403,
        ErrorCodes.ACCESS_DENIED,
        `Client ${client.client_id} is not authorized to access resource server ${api.identifier}`,
      );
    }
    // Granted scopes the API still defines; a requested scope narrows them (never widens).
    const defined = new Set(api.scopes.map((s) => s.value));
    const requested = request.scope?.split(' ').filter(Boolean);
    const scope = grant.scope.filter((s) => defined.has(s) && (!requested || requested.includes(s)));
    const scopeText = scope.join(' ');
    const accessToken = await deps.signer.sign(
      { sub: `${client.client_id}@clients`, aud: api.identifier, azp: client.client_id, scope: scopeText, gty: 'client-credentials' },
      { expiresInSeconds: api.token_lifetime },
    );
    return { access_token: accessToken, token_type: 'Bearer', expires_in: api.token_lifetime, scope: scopeText };
  };
}
