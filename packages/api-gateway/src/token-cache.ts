import { hash } from 'node:crypto';
import { epochMillis, type Clock } from '@smsauth/service-kit';
import { LRUCache } from 'lru-cache';
import type { JwtClaims } from './types';

export interface VerifiedToken {
  /** Stored with the entry so a hit is answered with the entry itself, no copy. */
  ok: true;
  claims: JwtClaims;
  /** The token's payload segment (base64url of the claims JSON), forwarded as X-Endpoint-API-UserInfo. */
  payloadSegment: string;
  /** Epoch ms after which the token no longer counts as valid (exp plus leeway). */
  validUntilMs: number;
}

/**
 * Verified tokens, so a repeated token costs a hash and a map lookup instead of a signature
 * check. Bounded by entry count and by total payload size; keyed by scheme and SHA-256 of
 * the token, so the cache never holds raw tokens.
 */
export class VerifiedTokenCache {
  private readonly entries: LRUCache<string, VerifiedToken>;

  constructor(
    private readonly clock: Clock,
    maxEntries: number,
    maxBytes = 32 * 1024 * 1024,
  ) {
    this.entries = new LRUCache<string, VerifiedToken>({
      max: maxEntries,
      maxSize: maxBytes,
      sizeCalculation: (entry) => Math.max(1, entry.payloadSegment.length + 128),
    });
  }

  static keyOf(schemeName: string, token: string): string {
    // One-shot hash: no Hash object per request (the token is hashed once, here).
    return `${schemeName}\u0000${hash('sha256', token, 'base64url')}`;
  }

  get(key: string): VerifiedToken | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (epochMillis(this.clock) >= entry.validUntilMs) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  set(key: string, entry: VerifiedToken): void {
    this.entries.set(key, entry);
  }

  get size(): number {
    return this.entries.size;
  }
}
