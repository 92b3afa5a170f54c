import { constants, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { ASYMMETRIC_ALGORITHMS, algorithmsForKey } from '../src/algorithms';
import { verifyJwsSignature } from '../src/jws-signature';

// The gateway verifies signatures itself (on the thread pool) instead of through jsonwebtoken's
// synchronous verify. These tests hold it to jsonwebtoken's answer, token by token: for every
// asymmetric algorithm and every kind of key, the gateway accepts exactly what jsonwebtoken
// (given the algorithms the key allows) accepts.

interface KeyPair {
  name: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

const pair = (name: string, made: { privateKey: KeyObject; publicKey: KeyObject }): KeyPair => ({ name, ...made });

/** RSA-PSS key parameters (typed loosely: @types/node's names for them differ between versions). */
const pssParameters = (hash: string, saltLength: number) => ({ modulusLength: 2048, hashAlgorithm: hash, mgf1HashAlgorithm: hash, saltLength }) as { modulusLength: number };

const KEYS: KeyPair[] = [
  pair('RSA 2048', generateKeyPairSync('rsa', { modulusLength: 2048 })),
  pair('RSA-PSS, no parameters', generateKeyPairSync('rsa-pss', { modulusLength: 2048 })),
  pair('RSA-PSS, SHA-256', generateKeyPairSync('rsa-pss', pssParameters('sha256', 32))),
  pair('RSA-PSS, SHA-384 with a long salt', generateKeyPairSync('rsa-pss', pssParameters('sha384', 64))),
  pair('EC P-256', generateKeyPairSync('ec', { namedCurve: 'P-256' })),
  pair('EC P-384', generateKeyPairSync('ec', { namedCurve: 'P-384' })),
  pair('EC P-521', generateKeyPairSync('ec', { namedCurve: 'P-521' })),
  pair('Ed25519', generateKeyPairSync('ed25519')),
];

const DIGEST: Record<string, string> = { '256': 'sha256', '384': 'sha384', '512': 'sha512' };

/** A compact JWS whose signature is `alg` computed with `privateKey` however the key allows (even when jsonwebtoken would refuse to sign). */
function signedWith(alg: string, privateKey: KeyObject): string | undefined {
  const header = Buffer.from(JSON.stringify({ alg, typ: 'JWT' })).toString('base64url');
  const payload = Buffer.from(JSON.stringify({ sub: 'x', iat: 1 })).toString('base64url');
  const input = Buffer.from(`${header}.${payload}`);
  const digest = DIGEST[alg.slice(2)]!;
  try {
    const signature = alg.startsWith('PS')
      ? sign(digest, input, { key: privateKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST })
      : alg.startsWith('ES')
        ? sign(digest, input, { key: privateKey, dsaEncoding: 'ieee-p1363' })
        : sign(digest, input, privateKey);
    return `${header}.${payload}.${signature.toString('base64url')}`;
  } catch {
    return undefined; // this key cannot make this signature at all
  }
}

function jsonwebtokenAccepts(token: string, key: KeyObject, algorithms: jwt.Algorithm[]): boolean {
  if (algorithms.length === 0) return false;
  try {
    jwt.verify(token, key, { algorithms });
    return true;
  } catch {
    return false;
  }
}

async function gatewayAccepts(token: string, key: KeyObject, algorithms: jwt.Algorithm[]): Promise<boolean> {
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const { alg } = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { alg: jwt.Algorithm };
  if (!algorithms.includes(alg)) return false;
  return verifyJwsSignature(alg, key, `${header}.${payload}`, Buffer.from(signature, 'base64url'));
}

/** Variants of a signed token: as signed, one bit flipped, the signature cut short or padded, another payload. */
function variants(token: string): Record<string, string> {
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const bytes = Buffer.from(signature, 'base64url');
  const flipped = Buffer.from(bytes);
  flipped[flipped.length >> 1]! ^= 0x01;
  const otherPayload = Buffer.from(JSON.stringify({ sub: 'y', iat: 1 })).toString('base64url');
  return {
    'as signed': token,
    'one signature bit flipped': `${header}.${payload}.${flipped.toString('base64url')}`,
    'signature one byte short': `${header}.${payload}.${bytes.subarray(1).toString('base64url')}`,
    'signature one byte longer': `${header}.${payload}.${Buffer.concat([bytes, Buffer.from([0])]).toString('base64url')}`,
    'empty signature': `${header}.${payload}.`,
    'another payload under the signature': `${header}.${otherPayload}.${signature}`,
  };
}

describe('the gateway signature check against jsonwebtoken', () => {

  it.each(KEYS.map((key) => [key.name, key] as const))('allows exactly the algorithms jsonwebtoken allows for a %s key', (_name, key) => {
    const allowed = algorithmsForKey(key.publicKey);
    for (const alg of ASYMMETRIC_ALGORITHMS) {
      const token = signedWith(alg, key.privateKey);
      if (!token) continue;
      let jsonwebtokenAllows = true;
      try {
        jwt.verify(token, key.publicKey, { algorithms: [alg] });
      } catch (err) {
        // Only a key/algorithm refusal counts here; the signature itself is judged below.
        jsonwebtokenAllows = !/"alg" parameter|Invalid key for this operation|Unknown key type/.test((err as Error).message);
      }
      expect({ alg, allowed: allowed.includes(alg) }).toEqual({ alg, allowed: jsonwebtokenAllows });
    }
  });

  it.each(KEYS.map((key) => [key.name, key] as const))('accepts and refuses the same tokens as jsonwebtoken with a %s key', async (_name, verifierKey) => {
    const algorithms = algorithmsForKey(verifierKey.publicKey);
    let accepted = 0;
    for (const signer of KEYS) {
      for (const alg of ASYMMETRIC_ALGORITHMS) {
        const token = signedWith(alg, signer.privateKey);
        if (!token) continue;
        for (const [variant, candidate] of Object.entries(variants(token))) {
          const expected = jsonwebtokenAccepts(candidate, verifierKey.publicKey, algorithms);
          const actual = await gatewayAccepts(candidate, verifierKey.publicKey, algorithms);
          expect({ signer: signer.name, alg, variant, accepted: actual }).toEqual({ signer: signer.name, alg, variant, accepted: expected });
          if (actual) accepted += 1;
        }
      }
    }
    // Every key that verifies anything accepts its own signatures (the comparison is not vacuous).
    if (algorithms.length > 0) expect(accepted).toBeGreaterThan(0);
  });

  it('answers false for an algorithm it does not implement instead of throwing', async () => {
    const [rsa] = KEYS;
    await expect(verifyJwsSignature('HS256' as jwt.Algorithm, rsa!.publicKey, 'a.b', Buffer.alloc(32))).resolves.toBe(false);
    await expect(verifyJwsSignature('none' as jwt.Algorithm, rsa!.publicKey, 'a.b', Buffer.alloc(0))).resolves.toBe(false);
  });
});
