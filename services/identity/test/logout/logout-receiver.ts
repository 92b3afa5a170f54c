import { createPublicKey, type KeyObject } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import jwt from 'jsonwebtoken';

const EVENT = 'http://schemas.openid.net/event/backchannel-logout';

/** What a receiver got: the token's header and claims when it verified, why not otherwise. */
export interface ReceivedLogout {
  contentType: string | undefined;
  /** The logout_token as received. */
  token?: string;
  header?: jwt.JwtHeader;
  claims?: jwt.JwtPayload;
  problem?: string;
}

/**
 * A relying party's back-channel logout endpoint, over real HTTP, doing what OpenID Connect
 * Back-Channel Logout 1.0 §2.6 asks of one: the form's `logout_token` verified with the keys the
 * issuer publishes (RS256), `iss`, `aud` (its client_id), `iat`/`exp`, the logout event, a
 * `sid` or `sub`, no `nonce`, typ `logout+jwt`. 200 when it holds, 400 otherwise; `failNext`
 * makes it answer 500 first (a receiver briefly down).
 */
export class LogoutReceiver {
  readonly received: ReceivedLogout[] = [];
  private failures = 0;
  private status = 200;
  private keys = new Map<string, KeyObject>();
  private waiters: Array<{ count: number; resolve: () => void }> = [];
  private readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received = this.check(req.headers['content-type'], Buffer.concat(chunks).toString('utf8'));
      this.received.push(received);
      this.waiters = this.waiters.filter((w) => (this.received.length >= w.count ? (w.resolve(), false) : true));
      if (this.failures > 0) {
        this.failures -= 1;
        res.writeHead(500).end();
        return;
      }
      res.writeHead(received.problem ? 400 : this.status, { 'Cache-Control': 'no-store' }).end();
    });
  });

  private constructor(
    readonly clientId: string | undefined,
    private readonly issuer: string,
    private readonly now: () => Date,
  ) {}

  static async start(issuer: string, now: () => Date): Promise<LogoutReceiver> {
    const receiver = new LogoutReceiver(undefined, issuer, now);
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  /** The client whose endpoint this is (its `aud`), and the issuer's published keys. */
  configure(clientId: string, jwks: { keys: Array<{ kid: string }> }): void {
    (this as { clientId: string | undefined }).clientId = clientId;
    this.keys = new Map(jwks.keys.map((jwk) => [jwk.kid, createPublicKey({ key: jwk as never, format: 'jwk' })]));
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/backchannel-logout`;
  }

  failNext(times: number): void {
    this.failures = times;
  }

  answer(status: number): void {
    this.status = status;
  }

  waitFor(count: number): Promise<void> {
    if (this.received.length >= count) return Promise.resolve();
    return new Promise<void>((resolve) => this.waiters.push({ count, resolve }));
  }

  reset(): void {
    this.received.length = 0;
    this.failures = 0;
    this.status = 200;
  }

  private check(contentType: string | undefined, body: string): ReceivedLogout {
    const token = new URLSearchParams(body).get('logout_token');
    if (!token) return { contentType, problem: 'no logout_token' };
    const got = this.verify(contentType, token);
    return { ...got, token };
  }

  private verify(contentType: string | undefined, token: string): ReceivedLogout {
    const decoded = jwt.decode(token, { complete: true });
    if (!decoded || typeof decoded.payload === 'string') return { contentType, problem: 'not a JWT' };
    const key = this.keys.get(decoded.header.kid ?? '');
    if (!key) return { contentType, header: decoded.header, problem: `unknown kid ${decoded.header.kid}` };
    try {
      const claims = jwt.verify(token, key, {
        algorithms: ['RS256'],
        issuer: this.issuer,
        audience: this.clientId,
        clockTimestamp: Math.floor(this.now().getTime() / 1000),
      }) as jwt.JwtPayload;
      const problem =
        decoded.header.typ !== 'logout+jwt'
          ? `typ ${decoded.header.typ}`
          : typeof claims.iat !== 'number'
            ? 'no iat'
            : typeof claims.jti !== 'string'
              ? 'no jti'
              : !claims.events || typeof claims.events !== 'object' || !(EVENT in claims.events)
                ? 'no back-channel logout event'
                : claims.sid === undefined && claims.sub === undefined
                  ? 'neither sid nor sub'
                  : 'nonce' in claims
                    ? 'a nonce'
                    : undefined;
      return { contentType, header: decoded.header, claims, ...(problem ? { problem } : {}) };
    } catch (err) {
      return { contentType, header: decoded.header, problem: (err as Error).message };
    }
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
