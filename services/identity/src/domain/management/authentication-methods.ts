import type { AuthenticationMethodRecord } from '@smsauth/contracts';
import type { IdentityStore, StoredPasskey } from '../../store';
import { authenticatorName } from '../passkeys/authenticators';
import { notFound } from './validation';

/** A passkey as Auth0 lists authentication methods (type `passkey`). */
export function toAuthenticationMethodRecord(passkey: StoredPasskey): AuthenticationMethodRecord {
  return {
    id: passkey.id,
    type: 'passkey',
    confirmed: true,
    name: authenticatorName(passkey.aaguid),
    created_at: passkey.created_at.toISOString(),
    ...(passkey.last_used_at ? { last_auth_at: passkey.last_used_at.toISOString() } : {}),
    key_id: passkey.id,
    aaguid: passkey.aaguid,
    credential_device_type: passkey.device_type === 'multiDevice' ? 'multi_device' : 'single_device',
    credential_backed_up: passkey.backed_up,
    relying_party_identifier: passkey.rp_id,
    ...(passkey.user_agent ? { user_agent: passkey.user_agent } : {}),
  };
}

async function existingUser(store: IdentityStore, userId: string): Promise<void> {
  if (!(await store.users.findById(userId))) throw notFound('User');
}

/** `GET /api/v2/users/{id}/authentication-methods`: the user's passkeys, oldest first. */
export async function listAuthenticationMethods(store: IdentityStore, userId: string): Promise<AuthenticationMethodRecord[]> {
  await existingUser(store, userId);
  return (await store.passkeys.listForUser(userId)).map(toAuthenticationMethodRecord);
}

export async function getAuthenticationMethod(store: IdentityStore, userId: string, id: string): Promise<AuthenticationMethodRecord> {
  await existingUser(store, userId);
  const passkey = await store.passkeys.findById(id);
  if (!passkey || passkey.user_id !== userId) throw notFound('Authentication method');
  return toAuthenticationMethodRecord(passkey);
}

/** `DELETE …/authentication-methods/{id}`: the passkey stops working at once (its next assertion finds nothing). */
export async function deleteAuthenticationMethod(store: IdentityStore, userId: string, id: string): Promise<{ userId: string }> {
  await existingUser(store, userId);
  if (!(await store.passkeys.delete(userId, id))) throw notFound('Authentication method');
  return { userId };
}
