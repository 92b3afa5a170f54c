import { epochSeconds, type Clock } from '@smsauth/service-kit';
import jwt from 'jsonwebtoken';
import type { KeyRing } from './key-ring';

export interface SignOptions {
  /** Lifetime in seconds; `exp` = `iat` + this. */
  expiresInSeconds: number;
  /** JOSE `typ` header, e.g. `at+jwt` for access tokens (RFC 9068); default `JWT`. */
  typ?: string;
}

/**
 * Signs the tokens this service issues (access, ID and management tokens): RS256 with the
 * current key's kid, `iss` = `{AUTH_URL}/`, `iat`/`exp` from the injected clock. The HS256
 * token sent to a connection's SMS gateway is signed apart, with the connection's own
 * secret (passwordless/gateway-token.ts).
 */
export class TokenSigner {
  constructor(
    private readonly keyRing: KeyRing,
    private readonly clock: Clock,
    readonly issuer: string,
  ) {}

  async sign(claims: Record<string, unknown>, options: SignOptions): Promise<string> {
    await this.keyRing.refreshIfStale();
    const { kid, privateKey } = this.keyRing.currentKey();
    const iat = epochSeconds(this.clock);
    return jwt.sign({ ...claims, iss: this.issuer, iat, exp: iat + options.expiresInSeconds }, privateKey, {
      algorithm: 'RS256',
      keyid: kid,
      header: { alg: 'RS256', typ: options.typ ?? 'JWT', kid },
    });
  }
}
