import type { SigningKeyRecord, SigningKeyRotation } from '@smsauth/contracts';
import type { IdentityStore, StoredSigningKey } from '../../store';
import { certificateFacts } from '../tokens/key-certificate';
import type { KeyRing } from '../tokens/key-ring';
import { conflict, notFound } from './validation';

/** Never includes private material. */
export function toSigningKeyRecord(key: StoredSigningKey): SigningKeyRecord {
  // The key ring adds every missing certificate when it loads, before any request is served.
  const cert = key.cert ?? '';
  const facts = key.cert ? certificateFacts(key.cert) : { fingerprint: '', thumbprint: '' };
  return {
    kid: key.kid,
    alg: key.alg,
    cert,
    fingerprint: facts.fingerprint,
    thumbprint: facts.thumbprint,
    created_at: key.created_at.toISOString(),
    current_since: key.current_since?.toISOString() ?? null,
    current_until: key.current_until?.toISOString() ?? null,
    current: key.state === 'current',
    next: key.state === 'next',
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

/** Answers `{kid, cert}` of the new next key, as the reference product does. */
export async function rotateSigningKey(keyRing: KeyRing): Promise<SigningKeyRotation> {
  return keyRing.rotate();
}

/** Neither the current key (nothing would sign) nor the next one (rotation needs it) can be revoked. */
export async function revokeSigningKey(store: IdentityStore, keyRing: KeyRing, kid: string): Promise<SigningKeyRecord> {
  const before = await keyRing.revoke(kid);
  if (!before) throw notFound('Signing key');
  if (before === 'current') throw conflict('The current signing key cannot be revoked; rotate first');
  if (before === 'next') throw conflict('The next signing key cannot be revoked; rotate first, then revoke it as the previous key');
  return getSigningKey(store, kid);
}
