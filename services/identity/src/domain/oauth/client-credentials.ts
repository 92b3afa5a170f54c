import { ClientCredentialsRequestSchema, ErrorCodes } from '@smsauth/contracts';
import { HttpError, type Clock } from '@smsauth/service-kit';
import type { IdentityStore } from '../../store';
import { logRecord, recordEvents, type LogContext } from '../logs/tenant-log';
import type { TokenSigner } from '../tokens/signer';
import { presentedCredentials, type ClientAuthenticator } from './client-auth';
import type { TokenGrantHandler } from './token-grants';

/**
 * `grant_type=client_credentials`: an M2M token for an API the client holds a grant for.
 * Each exchange of a well-formed request is recorded: `seccft`, or `feccft` with the error
 * of a refusal (a malformed request is a 400 that records nothing, as other bad input).
 */
export function clientCredentialsGrant(deps: {
  store: IdentityStore;
  signer: TokenSigner;
  clientAuthenticator: ClientAuthenticator;
  clock: Clock;
}): TokenGrantHandler {
  return async (call) => {
    const request = parseClientCredentialsRequest(call);
    const log: LogContext = { clientId: request.client_id, ip: call.ip, userAgent: call.headers['user-agent'] };
    try {
      const { response, clientName, audience } = await exchangeClientCredentials(deps, call, request);
      await recordEvents(deps.store, logRecord('seccft', { ...log, clientName }, deps.clock.now(), { audience, scope: response.scope }));
      return response;
    } catch (err) {
      if (err instanceof HttpError) await recordEvents(deps.store, logRecord('feccft', log, deps.clock.now(), { error: err.error, status: err.status }));
      throw err;
    }
  };
}

type TokenCall = Parameters<TokenGrantHandler>[0];

function parseClientCredentialsRequest(call: TokenCall) {
  const presented = presentedCredentials(call);
  const parsed = ClientCredentialsRequestSchema.safeParse({ ...call.body, client_id: presented.clientId });
  const issues = parsed.error?.issues.map((i) => String(i.path[0] ?? 'body')) ?? [];
  // This grant has no public clients: no credential at all is a missing parameter.
  if (presented.secret === undefined && presented.assertion === undefined) issues.push('client_secret');
  if (!parsed.success || issues.length > 0) {
    throw new HttpError(400, ErrorCodes.INVALID_REQUEST, `Missing or invalid parameter: ${[...new Set(issues)].join(', ')}`);
  }
  return parsed.data;
}

async function exchangeClientCredentials(
  deps: { store: IdentityStore; signer: TokenSigner; clientAuthenticator: ClientAuthenticator },
  call: TokenCall,
  request: ReturnType<typeof parseClientCredentialsRequest>,
) {
  const context = await deps.store.clientGrants.findClientCredentialsContext(request.client_id, request.audience);
  const client = await deps.clientAuthenticator.authenticate(context.client, call);
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
  return {
    response: { access_token: accessToken, token_type: 'Bearer', expires_in: api.token_lifetime, scope: scopeText },
    clientName: client.name,
    audience: api.identifier,
  };
}
