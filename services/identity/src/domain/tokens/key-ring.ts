import type { Clock } from '@smsauth/service-kit';
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import type { IdentityStore, PublicJwk, StoredSigningKey } from '../../store';
import { generateSigningKey } from './key-material';

export interface Jwk extends PublicJwk {
  kid: string;
  use: 'sig';
  alg: 'RS256';
}

interface LoadedKeys {
  current: { kid: string; privateKey: KeyObject };
  /** Current and previous keys: what JWKS publishes and the verifier accepts. */
  published: Map<string, { jwk: Jwk; publicKey: KeyObject }>;
  loadedAt: number;
}

/** How long another instance's rotation or revocation may take to reach this one. */
const REFRESH_AFTER_MS = 30_000;
/** After a failed periodic reload, the next attempt waits this long. */
const RETRY_FAILED_RELOAD_MS = 5_000;
/** Unknown kids trigger at most one reload per this interval. */
const UNKNOWN_KID_RELOAD_MS = 5_000;

/**
 * The signing keys as parsed KeyObjects (PEM is parsed once per key, not per token), loaded
 * from the store and refreshed periodically so rotations on other instances show up here.
 */
export class KeyRing {
  private keys!: LoadedKeys;
  private lastUnknownKidReload = 0;
  /** The periodic reload under way: requests arriving meanwhile share it instead of each querying. */
  private staleReload: Promise<void> | undefined;

  private constructor(
    private readonly store: IdentityStore,
    private readonly clock: Clock,
  ) {}

  /** Loads the keys, generating and storing the first one on a fresh database. */
  static async open(store: IdentityStore, clock: Clock): Promise<KeyRing> {
    const ring = new KeyRing(store, clock);
    const existing = await store.signingKeys.list();
    if (!existing.some((k) => k.state === 'current')) {
      const key = await generateSigningKey();
      await store.transaction((tx) => tx.signingKeys.insertCurrentIfNone(key, clock.now()));
    }
    await ring.reload();
    return ring;
  }

  async reload(): Promise<void> {
    const rows = await this.store.signingKeys.list();
    const current = rows.find((k) => k.state === 'current');
    if (!current) throw new Error('no current signing key in the store');
    const published = new Map<string, { jwk: Jwk; publicKey: KeyObject }>();
    for (const row of rows.filter(isPublished)) {
      const jwk: Jwk = { kty: 'RSA', n: row.public_jwk.n, e: row.public_jwk.e, kid: row.kid, use: 'sig', alg: 'RS256' };
      published.set(row.kid, { jwk, publicKey: createPublicKey({ key: { ...row.public_jwk }, format: 'jwk' }) });
    }
    this.keys = {
      current: { kid: current.kid, privateKey: createPrivateKey(current.private_key) },
      published,
      loadedAt: Date.now(),
    };
  }

  /** Reloads when the cached keys are older than REFRESH_AFTER_MS. */
  async refreshIfStale(): Promise<void> {
    if (Date.now() - this.keys.loadedAt <= REFRESH_AFTER_MS) return;
    // The keys held stay right through a database outage (only a rotation elsewhere would
    // change them), so a failed periodic reload keeps them, JWKS keeps answering and tokens
    // keep being signed; the next request after RETRY_FAILED_RELOAD_MS tries again.
    this.staleReload ??= this.reload()
      .catch(() => {
        this.keys.loadedAt = Date.now() - REFRESH_AFTER_MS + RETRY_FAILED_RELOAD_MS;
      })
      .finally(() => {
        this.staleReload = undefined;
      });
    await this.staleReload;
  }

  currentKey(): { kid: string; privateKey: KeyObject } {
    return this.keys.current;
  }

  /** Public key for a kid; an unknown kid may mean another instance rotated: reload, rate-limited. */
  async publicKey(kid: string): Promise<KeyObject | undefined> {
    await this.refreshIfStale();
    let entry = this.keys.published.get(kid);
    if (!entry && Date.now() - this.lastUnknownKidReload > UNKNOWN_KID_RELOAD_MS) {
      this.lastUnknownKidReload = Date.now();
      await this.reload();
      entry = this.keys.published.get(kid);
    }
    return entry?.publicKey;
  }

  async jwks(): Promise<{ keys: Jwk[] }> {
    await this.refreshIfStale();
    return { keys: [...this.keys.published.values()].map((k) => k.jwk) };
  }

  /** New key becomes current; the old current stays published as previous. */
  async rotate(): Promise<string> {
    const key = await generateSigningKey();
    await this.store.transaction((tx) => tx.signingKeys.rotate(key, this.clock.now()));
    await this.reload();
    return key.kid;
  }

  /** Removes a non-current key from JWKS for good. Returns its state before, undefined if unknown. */
  async revoke(kid: string): Promise<StoredSigningKey['state'] | undefined> {
    const before = await this.store.transaction((tx) => tx.signingKeys.revoke(kid, this.clock.now()));
    await this.reload();
    return before;
  }
}

function isPublished(key: StoredSigningKey): boolean {
  return key.state === 'current' || key.state === 'previous';
}
