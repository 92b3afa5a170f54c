import type { KeyObject } from 'node:crypto';
import type { Algorithm } from 'jsonwebtoken';

/** Every algorithm the gateway can ever accept: asymmetric only (RFC 8725 §3.1, §3.2). */
export const ASYMMETRIC_ALGORITHMS: readonly Algorithm[] = [
  'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512',
];

const EC_ALGORITHM_BY_CURVE: Readonly<Record<string, Algorithm>> = {
  prime256v1: 'ES256',
  secp384r1: 'ES384',
  secp521r1: 'ES512',
};

/**
 * Algorithms a public key may verify, derived from the key itself (not the token header):
 * RSA -> RS*, PS*; RSA-PSS -> the PS* its parameters allow; EC -> the one ES* matching its
 * curve (jsonwebtoken's asymmetric key checks). A JWK `alg` narrows this to that one.
 */
export function algorithmsForKey(key: KeyObject, jwkAlg?: string): Algorithm[] {
  let allowed: Algorithm[];
  switch (key.asymmetricKeyType) {
    case 'rsa':
      allowed = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'];
      break;
    case 'rsa-pss': {
      // An RSA-PSS key verifies only the PS* whose hash (and MGF1 hash) its parameters name,
      // with a salt no longer than that hash; one without parameters none (jsonwebtoken's key check).
      const { hashAlgorithm, mgf1HashAlgorithm, saltLength } = key.asymmetricKeyDetails ?? {};
      allowed = (['PS256', 'PS384', 'PS512'] as const).filter((algorithm) => {
        const bits = Number(algorithm.slice(-3));
        return hashAlgorithm === `sha${bits}` && mgf1HashAlgorithm === hashAlgorithm && (saltLength === undefined || saltLength <= bits >> 3);
      });
      break;
    }
    case 'ec': {
      const algorithm = EC_ALGORITHM_BY_CURVE[key.asymmetricKeyDetails?.namedCurve ?? ''];
      allowed = algorithm ? [algorithm] : [];
      break;
    }
    default:
      allowed = [];
  }
  return jwkAlg === undefined ? allowed : allowed.filter((algorithm) => algorithm === jwkAlg);
}

export function isAcceptableAlgorithm(alg: unknown): alg is Algorithm {
  return typeof alg === 'string' && (ASYMMETRIC_ALGORITHMS as readonly string[]).includes(alg);
}
