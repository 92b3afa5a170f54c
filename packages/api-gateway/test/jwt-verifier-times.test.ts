import jwt from 'jsonwebtoken';
import { Registry } from 'prom-client';
import { algorithmsForKey } from '../src/algorithms';
import { createGatewayMetrics } from '../src/gateway-metrics';
import type { JwksKeyStore } from '../src/jwks-key-store';
import { JwtVerifier } from '../src/jwt-verifier';
import { VerifiedTokenCache } from '../src/token-cache';
import { TestClock } from './support/clock';
import { rsaKey } from './support/keys';
import { signToken } from './support/tokens';

// exp and nbf used to be judged by jsonwebtoken's verify; the verifier now judges them itself
// after its own signature check. Around every boundary (the leeway, whole seconds, a clock
// part-way through a second) it must answer as jsonwebtoken does with the same leeway.

const ISSUER = 'https://id.example.com/';
const AUDIENCE = 'https://api.example.com';
const LEEWAY = 60;
const key = rsaKey('k1');
const keys = [{ kid: 'k1', key: key.publicKey, algorithms: algorithmsForKey(key.publicKey) }];
const keyStore = { cachedKeys: () => keys, lookup: async () => ({ found: true, keys }) } as unknown as JwksKeyStore;
const scheme = { name: 'auth0', issuer: ISSUER, audiences: [AUDIENCE], jwksUri: 'jwks', jwtLocations: [] } as never;

function verifierAt(clock: TestClock): JwtVerifier {
  return new JwtVerifier({
    keyStores: new Map([['jwks', keyStore]]),
    cache: new VerifiedTokenCache(clock, 100),
    clock,
    metrics: createGatewayMetrics(new Registry()),
    clockToleranceSec: LEEWAY,
  });
}

function jsonwebtokenAccepts(token: string, clock: TestClock): boolean {
  try {
    jwt.verify(token, key.publicKey, { algorithms: ['RS256'], clockTimestamp: Math.floor(clock.now().getTime() / 1000), clockTolerance: LEEWAY });
    return true;
  } catch {
    return false;
  }
}

describe('the verifier judges exp and nbf as jsonwebtoken does', () => {
  const offsets = [-LEEWAY - 2, -LEEWAY - 1, -LEEWAY, -LEEWAY + 1, -1, 0, 1, LEEWAY - 1, LEEWAY, LEEWAY + 1, LEEWAY + 2];

  it.each([0, 1, 500, 999])('around every boundary, with the clock %i ms into a second', async (millis) => {
    const clock = new TestClock(Date.UTC(2031, 0, 15, 12, 0, 0) + millis);
    const now = clock.seconds;
    let refused = 0;
    for (const offset of offsets) {
      for (const claims of [{ exp: now + offset }, { exp: now + 3600, nbf: now + offset }, { exp: now + offset, nbf: now + offset }]) {
        const token = signToken(key, { iss: ISSUER, aud: AUDIENCE, sub: 'x', ...claims });
        const result = await verifierAt(clock).verify(token, scheme);
        expect({ claims, accepted: result.ok }).toEqual({ claims, accepted: jsonwebtokenAccepts(token, clock) });
        if (!result.ok) {
          expect(result.outcome).toBe('time_constraint_failure');
          refused += 1;
        }
      }
    }
    // Both sides of the boundaries were crossed.
    expect(refused).toBeGreaterThan(0);
    expect(refused).toBeLessThan(offsets.length * 3);
  });

  it('still checks the signature before the times: an expired token with a bad signature is a signature failure', async () => {
    const clock = new TestClock();
    const token = signToken(rsaKey('k1'), { iss: ISSUER, aud: AUDIENCE, sub: 'x', exp: clock.seconds - 3600 });
    const result = await verifierAt(clock).verify(token, scheme);
    expect(result).toMatchObject({ ok: false, outcome: 'signature_failed' });
  });
});
