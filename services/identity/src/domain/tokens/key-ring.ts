import type { Clock } from '@smsauth/service-kit';
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import type { IdentityStore, PublicJwk, StoredSigningKey } from '../../store';
import { certificateFacts, selfSignedCertificate } from './key-certificate';
import { generateSigningKey } from './key-material';

export interface Jwk extends PublicJwk {
  kid: string;
  use: 'sig';
  alg: 'RS256';
  /** The key's self-signed certificate (DER, base64) and its SHA-1 thumbprint, as the reference product publishes. */
  x5c: string[];
  x5t: string;
}

interface LoadedKeys {
  current: { kid: string; privateKey: KeyObject };
  /** Current, next and previous keys: what JWKS publishes and the verifier accepts. */
  published: Map<string, { jwk: Jwk; publicKey: KeyObject }>;
  loadedAt: number;
}

export interface KeyRingOptions {
  /** `CN` of the keys' self-signed certificates: the service's host name, as the reference product uses its tenant domain. */
  certificateSubject: string;
}

/** How long another instance's rotation or revocation may take to reach this one. */
const REFRESH_AFTER_MS = 30_000;
/** After a failed periodic reload, the next attempt waits this long. */
const RETRY_FAILED_RELOAD_MS = 5_000;
/** Unknown kids trigger at most one reload per this interval. */
const UNKNOWN_KID_RELOAD_MS = 5_000;

/** Published order: current first (what a `keys[0]` reader expects), then next, then previous. */
const PUBLISHED_ORDER: Partial<Record<StoredSigningKey['state'], number>> = { current: 0, next: 1, previous: 2 };

/**
 * The signing keys as parsed KeyObjects (PEM is parsed once per key, not per token), loaded
 * from the store and refreshed periodically so rotations on other instances show up here.
 *
 * The key set always holds a next key besides the current one: it is published (and accepted
 * by the verifier) before it signs anything, and rotation promotes it. So a relying party
 * that fetched the JWKS before a rotation already holds the key of every token signed after
 * it, and so does every replica, whichever of them rotated and however late the others reload.
 */
export class KeyRing {
  private keys!: LoadedKeys;
  private lastUnknownKidReload = 0;
  /** The periodic reload under way: requests arriving meanwhile share it instead of each querying. */
  private staleReload: Promise<void> | undefined;

  private constructor(
    private readonly store: IdentityStore,
    private readonly clock: Clock,
    private readonly options: KeyRingOptions,
  ) {}

  /** Loads the keys, creating the current and next key on a fresh database (and what an older database lacks). */
  static async open(store: IdentityStore, clock: Clock, options: KeyRingOptions = { certificateSubject: 'smsauth' }): Promise<KeyRing> {
    const ring = new KeyRing(store, clock, options);
    await ring.reload();
    return ring;
  }

  private now(): number {
    return this.clock.now().getTime();
  }

  async reload(): Promise<void> {
    let rows = await this.store.signingKeys.list();
    if (lacksSomething(rows)) {
      await this.complete(rows);
      rows = await this.store.signingKeys.list();
    }
    const current = rows.find((k) => k.state === 'current');
    if (!current) throw new Error('no current signing key in the store');
    const published = new Map<string, { jwk: Jwk; publicKey: KeyObject }>();
    const publishedRows = rows.filter((k) => PUBLISHED_ORDER[k.state] !== undefined);
    publishedRows.sort((a, b) => PUBLISHED_ORDER[a.state]! - PUBLISHED_ORDER[b.state]!);
    for (const row of publishedRows) published.set(row.kid, { jwk: toJwk(row), publicKey: createPublicKey({ key: { ...row.public_jwk }, format: 'jwk' }) });
    this.keys = {
      current: { kid: current.kid, privateKey: createPrivateKey(current.private_key) },
      published,
      loadedAt: this.now(),
    };
  }

  /**
   * Adds what the stored key set lacks: a current key (fresh database), a next key (fresh
   * database, or one from before next keys existed) and the certificates of keys made before
   * certificates were kept. Keys are generated outside the transaction; the inserts keep
   * whatever another instance stored first.
   */
  private async complete(rows: StoredSigningKey[]): Promise<void> {
    const now = this.clock.now();
    const subject = this.options.certificateSubject;
    const current = rows.some((k) => k.state === 'current') ? undefined : await generateSigningKey(subject, now);
    const next = rows.some((k) => k.state === 'next') ? undefined : await generateSigningKey(subject, now);
    const certs = rows.filter((k) => k.cert === null).map((k) => ({ kid: k.kid, cert: selfSignedCertificate(k.private_key, subject, k.created_at) }));
    await this.store.transaction(async (tx) => {
      if (current) await tx.signingKeys.insertIfNone(current, 'current', now);
      if (next) await tx.signingKeys.insertIfNone(next, 'next', now);
      for (const { kid, cert } of certs) await tx.signingKeys.setCertIfMissing(kid, cert);
    });
  }

  /** Reloads when the cached keys are older than REFRESH_AFTER_MS. */
  async refreshIfStale(): Promise<void> {
    if (this.now() - this.keys.loadedAt <= REFRESH_AFTER_MS) return;
    // The keys held stay right through a database outage (only a rotation elsewhere would
    // change them), so a failed periodic reload keeps them, JWKS keeps answering and tokens
    // keep being signed; the next request after RETRY_FAILED_RELOAD_MS tries again.
    this.staleReload ??= this.reload()
      .catch(() => {
        this.keys.loadedAt = this.now() - REFRESH_AFTER_MS + RETRY_FAILED_RELOAD_MS;
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
    if (!entry && this.now() - this.lastUnknownKidReload > UNKNOWN_KID_RELOAD_MS) {
      this.lastUnknownKidReload = this.now();
      await this.reload();
      entry = this.keys.published.get(kid);
    }
    return entry?.publicKey;
  }

  async jwks(): Promise<{ keys: Jwk[] }> {
    await this.refreshIfStale();
    return { keys: [...this.keys.published.values()].map((k) => k.jwk) };
  }

  /**
   * The next key becomes current, the old current stays published as previous, and a new
   * next key is made and published. Returns the new next key's kid and certificate.
   * `alsoInTransaction` runs in the rotation's transaction once it rotated (its audit record).
   */
  async rotate(alsoInTransaction?: (tx: IdentityStore, newNextKid: string) => Promise<void>): Promise<{ kid: string; cert: string }> {
    const newNext = await generateSigningKey(this.options.certificateSubject, this.clock.now());
    // A database whose next key is missing (an older instance rotated meanwhile) gets one first.
    await this.reload();
    const rotated = await this.store.transaction(async (tx) => {
      const done = await tx.signingKeys.rotate(newNext, this.clock.now());
      if (done && alsoInTransaction) await alsoInTransaction(tx, newNext.kid);
      return done;
    });
    if (!rotated) throw new Error('no next signing key to promote');
    await this.reload();
    return { kid: newNext.kid, cert: newNext.cert };
  }

  /**
   * Removes a previous or retired key from JWKS for good. Returns its state before, undefined if unknown.
   * `alsoInTransaction` runs in the revocation's transaction when the key was revoked.
   */
  async revoke(kid: string, alsoInTransaction?: (tx: IdentityStore) => Promise<void>): Promise<StoredSigningKey['state'] | undefined> {
    const before = await this.store.transaction(async (tx) => {
      const state = await tx.signingKeys.revoke(kid, this.clock.now());
      if ((state === 'previous' || state === 'retired') && alsoInTransaction) await alsoInTransaction(tx);
      return state;
    });
    await this.reload();
    return before;
  }
}

function lacksSomething(rows: StoredSigningKey[]): boolean {
  return !rows.some((k) => k.state === 'current') || !rows.some((k) => k.state === 'next') || rows.some((k) => k.cert === null);
}

function toJwk(row: StoredSigningKey): Jwk {
  const { x5c, x5t } = certificateFacts(row.cert!);
  return { kty: 'RSA', n: row.public_jwk.n, e: row.public_jwk.e, kid: row.kid, use: 'sig', alg: 'RS256', x5c, x5t };
}
