import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';

/*
 * Node 20 can deadlock when a KeyObject straight from generateKeyPair(Sync) has its
 * `asymmetricKeyDetails` read (jsonwebtoken's sign and verify do, jose too) while the garbage
 * collector destroys the generating job: both take the key's mutex on the one JS thread
 * (seen in CI: the main thread parked in ~KeyGenJob under GetRsaKeyDetail, jest idle forever).
 * Keys re-imported from their DER share nothing with the job, so tests sign with those.
 */

type GenerateArguments = Parameters<typeof generateKeyPairSync>;

/** generateKeyPairSync's key pair, re-imported so that no KeyObject shares state with the generating job. */
export function detachedKeyPair(
  type: 'rsa' | 'rsa-pss' | 'ec' | 'ed25519',
  options?: GenerateArguments[1],
): { privateKey: KeyObject; publicKey: KeyObject } {
  const generated = (generateKeyPairSync as (t: string, o?: unknown) => { privateKey: KeyObject; publicKey: KeyObject })(type, options);
  return {
    privateKey: createPrivateKey({ key: generated.privateKey.export({ format: 'der', type: 'pkcs8' }), format: 'der', type: 'pkcs8' }),
    publicKey: createPublicKey({ key: generated.publicKey.export({ format: 'der', type: 'spki' }), format: 'der', type: 'spki' }),
  };
}
