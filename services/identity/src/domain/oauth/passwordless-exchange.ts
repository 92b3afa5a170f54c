import { ErrorCodes } from '@smsauth/contracts';
import { HttpError } from '@smsauth/service-kit';
import { canonicalPhoneNumber, problemText } from '../phone/canonical-number';
import type { IdentityStore, StoredClient, StoredCode, StoredConnection, StoredUser } from '../../store';
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
 * `username` of /oauth/ro and the OTP grant in E.164, as codes and users are stored
 * (formatting such as `+1 415-555-2671` allowed). A number that is not valid is bad input:
 * 400 invalid_request saying what is wrong, before the client or any code is looked at.
 */
export function canonicalUsername(username: string): string {
  const parsed = canonicalPhoneNumber(username);
  if (!parsed.ok) throw new HttpError(400, ErrorCodes.INVALID_REQUEST, `username ${problemText(parsed)}`);
  return parsed.number.e164;
}

/**
 * The client, the connection and what the code exchange needs to know about the number
 * (its user, its brute-force counters, its code as it stands), in one round trip. `clientFrom` checks the client (it exists, authenticates as its method says,
 * may use the grant) before the connection is looked at; the connection must exist and
 * have the client enabled.
 */
export async function passwordlessExchangeContext(
  store: IdentityStore,
  names: { clientId: string; connection: string; phoneNumber: string; ip: string },
  clientFrom: (client: StoredClient | undefined) => StoredClient | Promise<StoredClient>,
): Promise<{ client: StoredClient; connection: StoredConnection; user: StoredUser | undefined; failures: BruteForceState; code: StoredCode | undefined }> {
  const context = await store.passwordlessLogins.exchangeContext(names.clientId, names.connection, names.phoneNumber, names.ip);
  const client = await clientFrom(context.client);
  const { connection } = context;
  if (!connection || !connection.enabled_clients.includes(client.client_id)) {
    // One answer for both, so a client cannot probe for connections it is not enabled on.
    throw unauthorizedClient(`The client is not enabled for the connection ${names.connection}`);
  }
  return { client, connection, user: context.user, failures: context.bruteForce, code: context.code };
}
