import type { SigningKeyRecord } from '@smsauth/contracts';
import type { IdentityStore, StoredSigningKey } from '../../store';
import type { KeyRing } from '../tokens/key-ring';
import { conflict, notFound } from './validation';

/** Never includes private material. */
export function toSigningKeyRecord(key: StoredSigningKey): SigningKeyRecord {
  return {
    kid: key.kid,
    alg: key.alg,
    created_at: key.created_at.toISOString(),
    current_since: key.current_since?.toISOString() ?? null,
    current_until: key.current_until?.toISOString() ?? null,
    current: key.state === 'current',
    previous: key.state === 'previous',
    revoked: key.state === 'revoked',
    revoked_at: key.revoked_at?.toISOString() ?? null,
  };
}

export async function listSigningKeys(store: IdentityStore): Promise<SigningKeyRecord[]> {
  return (await store.signingKeys.list()).map(toSigningKeyRecord);
}

export async function getSigningKey(store: IdentityStore, kid: string): Promise<SigningKeyRecord> {
  const key = await store.signingKeys.findByKid(kid);
  if (!key) throw notFound('Signing key');
  return toSigningKeyRecord(key);
}

export async function rotateSigningKey(store: IdentityStore, keyRing: KeyRing): Promise<SigningKeyRecord> {
  const kid = await keyRing.rotate();
  return getSigningKey(store, kid);
}

/** The current key cannot be revoked (nothing would sign): rotate first. */
export async function revokeSigningKey(store: IdentityStore, keyRing: KeyRing, kid: string): Promise<SigningKeyRecord> {
  const before = await keyRing.revoke(kid);
  if (!before) throw notFound('Signing key');
  if (before === 'current') throw conflict('The current signing key cannot be revoked; rotate first');
  return getSigningKey(store, kid);
}
