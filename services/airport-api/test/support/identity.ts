import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import jwt from 'jsonwebtoken';

/**
 * Stand-in for the identity service's key endpoint: a real HTTP server on port 0 serving
 * `/.well-known/jwks.json`, and tokens signed with its RSA key.
 */
export class FakeIdentity {
  readonly kid = 'identity-key-1';
  readonly privateKey: KeyObject;
  private readonly server: Server;
  fetches = 0;

  private constructor() {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    this.privateKey = privateKey;
    const jwks = { keys: [{ ...publicKey.export({ format: 'jwk' }), kid: this.kid, use: 'sig', alg: 'RS256' }] };
    this.server = createServer((req, res) => {
      if (req.url !== '/.well-known/jwks.json') {
        res.writeHead(404).end();
        return;
      }
      this.fetches += 1;
      res.writeHead(200, { 'content-type': 'application/json', connection: 'close' }).end(JSON.stringify(jwks));
    });
  }

  static async start(): Promise<FakeIdentity> {
    const identity = new FakeIdentity();
    await new Promise<void>((resolve) => identity.server.listen(0, '127.0.0.1', resolve));
    return identity;
  }

  get authUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
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
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
