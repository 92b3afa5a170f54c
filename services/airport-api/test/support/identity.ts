import { type KeyObject } from 'node:crypto';
import { JwksServer, detachedKeyPair } from '@smsauth/test-support';
import jwt from 'jsonwebtoken';

/**
 * Stand-in for the identity service's key endpoint: the shared JWKS server (@smsauth/test-support)
 * serving `/.well-known/jwks.json` (404 elsewhere), and tokens signed with its RSA key.
 */
export class FakeIdentity {
  readonly kid = 'identity-key-1';

  private constructor(
    readonly privateKey: KeyObject,
    private readonly jwks: JwksServer,
  ) {}

  static async start(): Promise<FakeIdentity> {
    const { privateKey, publicKey } = detachedKeyPair('rsa', { modulusLength: 2048 });
    const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'identity-key-1', use: 'sig', alg: 'RS256' };
    return new FakeIdentity(privateKey, await JwksServer.start([jwk], { path: '/.well-known/jwks.json' }));
  }

  /** How many times the key set was fetched. */
  get fetches(): number {
    return this.jwks.fetchCount;
  }

  get authUrl(): string {
    return this.jwks.origin;
  }

  /** An access token as the identity service issues it (issuer with the trailing slash). */
  token(nowMs: number, claims: Record<string, unknown> = {}): string {
    const now = Math.floor(nowMs / 1000);
    return jwt.sign(
      { iss: `${this.authUrl}/`, aud: 'https://airport-api.example.com', sub: 'sms|abc', iat: now, exp: now + 3600, ...claims },
      this.privateKey,
      { algorithm: 'RS256', keyid: this.kid },
    );
  }

  async close(): Promise<void> {
    await this.jwks.close();
  }
}
