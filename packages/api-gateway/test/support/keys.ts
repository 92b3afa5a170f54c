import { type JsonWebKey, type KeyObject } from 'node:crypto';
import { detachedKeyPair } from '@smsauth/test-support';

export interface TestKey {
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** The public JWK as the JWKS publishes it. */
  jwk: JsonWebKey & { kid: string; use: string };
}

export function rsaKey(kid: string): TestKey {
  const { privateKey, publicKey } = detachedKeyPair('rsa', { modulusLength: 2048 });
  return { kid, privateKey, publicKey, jwk: { ...publicKey.export({ format: 'jwk' }), kid, use: 'sig' } };
}

export function ecKey(kid: string): TestKey {
  const { privateKey, publicKey } = detachedKeyPair('ec', { namedCurve: 'P-256' });
  return { kid, privateKey, publicKey, jwk: { ...publicKey.export({ format: 'jwk' }), kid, use: 'sig' } };
}
