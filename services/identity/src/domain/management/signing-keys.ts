import type { SigningKeyRecord, SigningKeyRotation } from '@smsauth/contracts';
import type { IdentityStore, StoredSigningKey } from '../../store';
import { certificateFacts } from '../tokens/key-certificate';
import type { KeyRing } from '../tokens/key-ring';
import { conflict, notFound } from './validation';

/** Never includes private material. `key` must have its certificate (see withCertificates). */
export function toSigningKeyRecord(key: StoredSigningKey & { cert: string }): SigningKeyRecord {
  const facts = certificateFacts(key.cert);
  return {
    kid: key.kid,
    alg: key.alg,
    cert: key.cert,
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

function hasCertificate(key: StoredSigningKey): key is StoredSigningKey & { cert: string } {
  return key.cert !== null;
}

/**
 * The key ring gives every key its certificate when it loads; a key without one was stored
 * meanwhile by an instance older than migration 6 (a rolling deploy): reloading the ring adds it.
 */
async function withCertificates(store: IdentityStore, keyRing: KeyRing, keys: StoredSigningKey[]): Promise<Array<StoredSigningKey & { cert: string }>> {
  if (keys.every(hasCertificate)) return keys;
  await keyRing.reload();
  const reloaded = await store.signingKeys.list();
  return reloaded.filter((key) => keys.some((k) => k.kid === key.kid)).filter(hasCertificate);
}

export async function listSigningKeys(store: IdentityStore, keyRing: KeyRing): Promise<SigningKeyRecord[]> {
  return (await withCertificates(store, keyRing, await store.signingKeys.list())).map(toSigningKeyRecord);
}

export async function getSigningKey(store: IdentityStore, keyRing: KeyRing, kid: string): Promise<SigningKeyRecord> {
  const key = await store.signingKeys.findByKid(kid);
  if (!key) throw notFound('Signing key');
  const [complete] = await withCertificates(store, keyRing, [key]);
  return toSigningKeyRecord(complete!);
}

/** Records a rotation or revocation in its own transaction (the audit record). */
export type KeyChangeRecorder = (tx: IdentityStore, kid: string) => Promise<void>;

/** Answers `{kid, cert}` of the new next key, as the reference product does. */
export async function rotateSigningKey(keyRing: KeyRing, record?: KeyChangeRecorder): Promise<SigningKeyRotation> {
  return keyRing.rotate(record);
}

/** Neither the current key (nothing would sign) nor the next one (rotation needs it) can be revoked. */
export async function revokeSigningKey(store: IdentityStore, keyRing: KeyRing, kid: string, record?: KeyChangeRecorder): Promise<SigningKeyRecord> {
  const before = await keyRing.revoke(kid, record && ((tx) => record(tx, kid)));
  if (!before) throw notFound('Signing key');
  if (before === 'current') throw conflict('The current signing key cannot be revoked; rotate first');
  if (before === 'next') throw conflict('The next signing key cannot be revoked; rotate first, then revoke it as the previous key');
  return getSigningKey(store, keyRing, kid);
}
