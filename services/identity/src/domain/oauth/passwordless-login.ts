import { ErrorCodes } from '@smsauth/contracts';
import { HttpError } from '@smsauth/service-kit';
import type { z } from 'zod';
import type { IdentityStore, StoredClient, StoredConnection, StoredResourceServer, StoredUser } from '../../store';
import type { BruteForceState } from '../passwordless/brute-force';
import type { CodeExchangeDependencies } from '../passwordless/code-exchange';
import type { UserTokenDependencies } from './user-tokens';

/** What /oauth/ro and the passwordless OTP grant need. */
export interface PasswordlessLoginDependencies extends CodeExchangeDependencies, UserTokenDependencies {}

/** 400 invalid_request naming every missing or malformed parameter. */
export function invalidRequest(issues: readonly z.core.$ZodIssue[]): HttpError {
  const fields = [...new Set(issues.map((i) => String(i.path[0] ?? 'body')))];
  return new HttpError(400, ErrorCodes.INVALID_REQUEST, `Missing or invalid parameter: ${fields.join(', ')}`);
}

export function requireObjectBody(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new HttpError(400, ErrorCodes.INVALID_REQUEST, 'The request body must be a JSON object or a form');
  }
  return body as Record<string, unknown>;
}

export function unauthorizedClient(description: string): HttpError {
  return new HttpError(403, ErrorCodes.UNAUTHORIZED_CLIENT, description);
}

export function grantNotAllowed(grantType: string): HttpError {
  return unauthorizedClient(`Grant type '${grantType}' not allowed for the client.`);
}

export function requireGrantType(client: StoredClient, grantType: string): void {
  if (!client.grant_types.includes(grantType)) throw grantNotAllowed(grantType);
}

/**
 * The client, the connection and what the code exchange needs to know about the number,
 * in one round trip. `clientFrom` checks the client (it exists, authenticates if it must,
 * may use the grant) before the connection is looked at; the connection must exist and
 * have the client enabled.
 */
export async function passwordlessExchangeContext(
  store: IdentityStore,
  names: { clientId: string; connection: string; phoneNumber: string; ip: string },
  clientFrom: (client: StoredClient | undefined) => StoredClient,
): Promise<{ client: StoredClient; connection: StoredConnection; user: StoredUser | undefined; failures: BruteForceState }> {
  const context = await store.passwordlessLogins.exchangeContext(names.clientId, names.connection, names.phoneNumber, names.ip);
  const client = clientFrom(context.client);
  const { connection } = context;
  if (!connection || !connection.enabled_clients.includes(client.client_id)) {
    // One answer for both, so a client cannot probe for connections it is not enabled on.
    throw unauthorizedClient(`The client is not enabled for the connection ${names.connection}`);
  }
  return { client, connection, user: context.user, failures: context.bruteForce };
}

/**
 * The API a user access token is for. The management API is refused: its tokens carry
 * management scopes, which a user login must never obtain.
 */
export async function userAudience(store: IdentityStore, client: StoredClient, audience: string): Promise<StoredResourceServer> {
  const api = await store.resourceServers.findByIdentifier(audience);
  if (!api) throw new HttpError(403, ErrorCodes.ACCESS_DENIED, `Service not found: ${audience}`);
  if (api.is_system) {
    throw new HttpError(403, ErrorCodes.ACCESS_DENIED, `Client ${client.client_id} is not authorized to access resource server ${api.identifier}`);
  }
  return api;
}
