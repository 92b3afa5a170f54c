import type { IdentityStore, StoredClient, StoredConnection, StoredUser } from '../../store';
import type { BruteForceState } from '../passwordless/brute-force';
import type { CodeExchangeDependencies } from '../passwordless/code-exchange';
import type { ClientAuthenticator } from './client-auth';
import { unauthorizedClient } from './oauth-errors';
import type { UserTokenDependencies } from './user-tokens';

/** What /oauth/ro, the passwordless OTP grant and the hosted login's code step need. */
export interface PasswordlessExchangeDependencies extends CodeExchangeDependencies, UserTokenDependencies {
  clientAuthenticator: ClientAuthenticator;
}

/**
 * The client, the connection and what the code exchange needs to know about the number,
 * in one round trip. `clientFrom` checks the client (it exists, authenticates as its method says,
 * may use the grant) before the connection is looked at; the connection must exist and
 * have the client enabled.
 */
export async function passwordlessExchangeContext(
  store: IdentityStore,
  names: { clientId: string; connection: string; phoneNumber: string; ip: string },
  clientFrom: (client: StoredClient | undefined) => StoredClient | Promise<StoredClient>,
): Promise<{ client: StoredClient; connection: StoredConnection; user: StoredUser | undefined; failures: BruteForceState }> {
  const context = await store.passwordlessLogins.exchangeContext(names.clientId, names.connection, names.phoneNumber, names.ip);
  const client = await clientFrom(context.client);
  const { connection } = context;
  if (!connection || !connection.enabled_clients.includes(client.client_id)) {
    // One answer for both, so a client cannot probe for connections it is not enabled on.
    throw unauthorizedClient(`The client is not enabled for the connection ${names.connection}`);
  }
  return { client, connection, user: context.user, failures: context.bruteForce };
}
