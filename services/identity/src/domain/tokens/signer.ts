import { epochSeconds, type Clock } from '@smsauth/service-kit';
import { sign as rsaSign, type KeyObject } from 'node:crypto';
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
 *
 * The RSA signature runs on libuv's thread pool (node:crypto's asynchronous `sign`), not on
 * the event loop: it is about 40% of the event loop's work per m2m token (BENCHMARKS.md,
 * issue 18 step 4), and a synchronous signature stalls every other request for its ~0.3 ms.
 * jsonwebtoken only signs synchronously, so the compact serialisation (RFC 7515 §7.1) is
 * done here; each header is serialised once per key and `typ`.
 */
export class TokenSigner {
  private readonly encodedHeaders = new Map<string, string>();

  constructor(
    private readonly keyRing: KeyRing,
    private readonly clock: Clock,
    readonly issuer: string,
  ) {}

  async sign(claims: Record<string, unknown>, options: SignOptions): Promise<string> {
    await this.keyRing.refreshIfStale();
    const { kid, privateKey } = this.keyRing.currentKey();
    const iat = epochSeconds(this.clock);
    const payload = base64url(JSON.stringify({ ...claims, iss: this.issuer, iat, exp: iat + options.expiresInSeconds }));
    const signingInput = `${this.encodedHeader(kid, options.typ ?? 'JWT')}.${payload}`;
    const signature = await signRs256(signingInput, privateKey);
    return `${signingInput}.${signature.toString('base64url')}`;
  }

  private encodedHeader(kid: string, typ: string): string {
    const key = `${kid}\n${typ}`;
    let header = this.encodedHeaders.get(key);
    if (header === undefined) {
      // A rotated-away kid is never asked for again; a handful of entries at most.
      if (this.encodedHeaders.size >= 16) this.encodedHeaders.clear();
      header = base64url(JSON.stringify({ alg: 'RS256', typ, kid }));
      this.encodedHeaders.set(key, header);
    }
    return header;
  }
}

function base64url(text: string): string {
  return Buffer.from(text).toString('base64url');
}

/** RSASSA-PKCS1-v1_5 with SHA-256 (RS256), computed on the thread pool. */
function signRs256(signingInput: string, privateKey: KeyObject): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    rsaSign('sha256', Buffer.from(signingInput), privateKey, (err, signature) => (err ? reject(err) : resolve(signature)));
  });
}
