import { epochSeconds, type Clock } from '@smsauth/service-kit';
import jwt from 'jsonwebtoken';
import type { KeyRing } from './key-ring';

export class InvalidTokenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidTokenError';
  }
}

/**
 * Verifies tokens this service issued, against its own published keys in memory (no HTTP):
 * RS256 only, exact issuer, required audience, expiry by the injected clock.
 */
export class TokenVerifier {
  constructor(
    private readonly keyRing: KeyRing,
    private readonly clock: Clock,
    private readonly issuer: string,
  ) {}

  /**
   * `audience` undefined: any (the caller reads `aud`); `ignoreExpiration`: for an
   * `id_token_hint`, which OIDC RP-initiated logout accepts after its expiry.
   */
  async verify(token: string, audience: string | undefined, options: { ignoreExpiration?: boolean } = {}): Promise<jwt.JwtPayload> {
    const decoded = jwt.decode(token, { complete: true });
    const kid = decoded?.header.kid;
    if (!decoded || typeof kid !== 'string') throw new InvalidTokenError('malformed token');
    if (decoded.header.alg !== 'RS256') throw new InvalidTokenError('unexpected algorithm');
    const publicKey = await this.keyRing.publicKey(kid);
    if (!publicKey) throw new InvalidTokenError('unknown signing key');
    try {
      const payload = jwt.verify(token, publicKey, {
        algorithms: ['RS256'],
        issuer: this.issuer,
        ...(audience !== undefined ? { audience } : {}),
        ignoreExpiration: options.ignoreExpiration ?? false,
        clockTimestamp: epochSeconds(this.clock),
        clockTolerance: 60,
      });
      if (typeof payload === 'string' || typeof payload.exp !== 'number') throw new InvalidTokenError('token without exp');
      return payload;
    } catch (err) {
      if (err instanceof InvalidTokenError) throw err;
      throw new InvalidTokenError(err instanceof Error ? err.message : 'invalid token');
    }
  }
}
