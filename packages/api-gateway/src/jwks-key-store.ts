import { createPublicKey, type KeyObject } from 'node:crypto';
import type { Algorithm } from 'jsonwebtoken';
import { JwksClient, type SigningKey } from 'jwks-rsa';
import { epochMillis, type Clock, type Logger } from '@smsauth/service-kit';
import { algorithmsForKey } from './algorithms';
import type { GatewayMetrics } from './gateway-metrics';

export interface VerificationKey {
  kid?: string;
  key: KeyObject;
  /** Algorithms this key may verify (from its type and curve, narrowed by the JWK's `alg`). */
  algorithms: Algorithm[];
}

export type KeyLookup =
  | { found: true; keys: VerificationKey[] }
  | { found: false; cause: 'not_found' | 'unavailable' };

export interface JwksKeyStoreOptions {
  jwksUri: string;
  clock: Clock;
  logger: Logger;
  metrics: GatewayMetrics;
  /** Total time allowed for one JWKS fetch. */
  fetchTimeoutMs: number;
  /** Age after which the key set is refreshed (in the background while its keys still serve). */
  maxAgeMs: number;
  /** Debounce: no fetch starts sooner than this after the previous one. */
  minRefetchIntervalMs: number;
  /** At most this many fetches start in any 60 s, whatever triggers them (unknown kids, staleness, probes). */
  maxFetchesPerMinute: number;
}

const FETCH_WINDOW_MS = 60_000;
const NO_KEYS: VerificationKey[] = [];

const MAX_JWKS_BYTES = 1024 * 1024;

async function readCapped(response: Response, maxBytes: number): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw new Error(`JWKS response exceeds ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** jwks-rsa's fetcher hook: a bounded total timeout and body size, JSON `{keys: [...]}` required. */
function jwksFetcher(timeoutMs: number) {
  return async (uri: string): Promise<{ keys: unknown[] }> => {
    const response = await fetch(uri, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: 'application/json' } });
    if (response.status !== 200) {
      await response.body?.cancel();
      throw new Error(`JWKS answered HTTP ${response.status}`);
    }
    const document: unknown = JSON.parse(await readCapped(response, MAX_JWKS_BYTES));
    const keys = (document as { keys?: unknown } | null)?.keys;
    if (!Array.isArray(keys)) throw new Error('JWKS response has no "keys" array');
    return { keys };
  };
}

function toVerificationKey(signingKey: SigningKey): VerificationKey | undefined {
  const key = createPublicKey(signingKey.getPublicKey());
  // jwks-rsa's types claim kid and alg are always set; at runtime either may be absent.
  const algorithms = algorithmsForKey(key, signingKey.alg as string | undefined);
  if (algorithms.length === 0) return undefined; // e.g. Ed25519: nothing we verify with it
  const kid = signingKey.kid as string | undefined;
  return { ...(kid ? { kid } : {}), key, algorithms };
}

/** fetch() says only "fetch failed"; the cause's code (ECONNREFUSED, ...) is what an operator needs. */
function errorMessage(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err.cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? `${err.message}: ${code}` : err.message;
}

/**
 * The signing keys of one JWKS URI. jwks-rsa fetches the set and turns JWKs into keys; this
 * class does the caching itself because jwks-rsa's own cache and rate limit do not fit:
 * they run on Date.now (no injectable clock), a parallel unknown-kid storm either slips past
 * the limiter (one fetch per kid) or parks requests for tens of seconds, a storm leaves a
 * real rotation rate-limited for a minute, and cached keys expire during a JWKS outage.
 *
 * Here: the whole set is cached; one fetch at a time (concurrent callers share it); a fetch
 * starts only when the last one is `minRefetchIntervalMs` old and fewer than
 * `maxFetchesPerMinute` started in the last minute, so the first unknown kid after a rotation
 * is resolved at once while a storm of made-up kids costs a few fetches a minute; a failed
 * refresh keeps the previous keys.
 */
export class JwksKeyStore {
  private readonly client: JwksClient;
  private keys: VerificationKey[] | undefined;
  private keysByKid = new Map<string, VerificationKey[]>();
  private fetchedAt = Number.NEGATIVE_INFINITY;
  /** Start times of the fetches of the last minute, oldest first. */
  private recentAttempts: number[] = [];
  private lastAttemptFailed = false;
  private lastError: string | undefined;
  private inflight: Promise<void> | undefined;

  constructor(private readonly options: JwksKeyStoreOptions) {
    this.client = new JwksClient({
      jwksUri: options.jwksUri,
      cache: false,
      rateLimit: false,
      timeout: options.fetchTimeoutMs,
      fetcher: jwksFetcher(options.fetchTimeoutMs),
    });
  }

  get jwksUri(): string {
    return this.options.jwksUri;
  }

  /**
   * Candidate keys for a token's `kid` (every key when the token names none) when the cached
   * set has them, without a promise: the common case costs no await. Undefined otherwise.
   */
  cachedKeys(kid: string | undefined): VerificationKey[] | undefined {
    const cached = this.find(kid);
    if (cached.length === 0) return undefined;
    if (epochMillis(this.options.clock) - this.fetchedAt >= this.options.maxAgeMs) void this.refresh();
    return cached;
  }

  /** Candidate keys for a token's `kid` (every key when the token names none). */
  async lookup(kid: string | undefined): Promise<KeyLookup> {
    const cached = this.cachedKeys(kid);
    if (cached) return { found: true, keys: cached };
    // Unknown kid: maybe a rotation; refetch, rate-limited, then look again.
    await this.refresh();
    const keys = this.find(kid);
    if (keys.length > 0) return { found: true, keys };
    return { found: false, cause: this.keys === undefined || this.lastAttemptFailed ? 'unavailable' : 'not_found' };
  }

  /** Readiness: usable once a fetch has produced at least one key. */
  async checkReady(): Promise<void> {
    if (this.keys && this.keys.length > 0) return;
    await this.refresh();
    if (this.keys && this.keys.length > 0) return;
    throw new Error(`JWKS ${this.options.jwksUri}: ${this.lastError ?? 'not fetched yet'}`);
  }

  /** Starts a fetch unless one is running or the rate limit says no; resolves when it ends. */
  refresh(): Promise<void> {
    if (this.inflight) return this.inflight;
    const now = epochMillis(this.options.clock);
    this.recentAttempts = this.recentAttempts.filter((at) => now - at < FETCH_WINDOW_MS);
    const last = this.recentAttempts.at(-1);
    const tooSoon = last !== undefined && now - last < this.options.minRefetchIntervalMs;
    if (tooSoon || this.recentAttempts.length >= this.options.maxFetchesPerMinute) return Promise.resolve();
    this.recentAttempts.push(now);
    this.inflight = this.fetchKeys().finally(() => {
      this.inflight = undefined;
    });
    return this.inflight;
  }

  private find(kid: string | undefined): VerificationKey[] {
    const keys = this.keys ?? [];
    if (kid === undefined) return keys;
    // The usual set holds one or two keys: answer a kid from a per-set index, no array per call.
    return this.keysByKid.get(kid) ?? NO_KEYS;
  }

  private async fetchKeys(): Promise<void> {
    const { jwksUri, logger, metrics } = this.options;
    try {
      const signingKeys = await this.client.getSigningKeys();
      this.store(signingKeys.flatMap((signingKey) => toVerificationKey(signingKey) ?? []));
      if (this.keys?.length === 0) throw Object.assign(new Error('no usable signing keys'), { answered: true });
      metrics.jwksFetch.inc({ jwks_uri: jwksUri, outcome: 'success' });
      logger.info({ jwksUri, keys: this.keys?.map((key) => key.kid ?? '(no kid)') }, 'JWKS fetched');
    } catch (err) {
      const answered =
        (err as { answered?: boolean }).answered === true ||
        ((err as Error).name === 'JwksError' && (err as { isEndpointUnavailable?: boolean }).isEndpointUnavailable !== true);
      if (answered) {
        // The endpoint answered with no usable key: that is its current key set.
        this.store([]);
        this.lastError = 'the JWKS has no usable signing keys';
        metrics.jwksFetch.inc({ jwks_uri: jwksUri, outcome: 'no_keys' });
      } else {
        // Unreachable: keep serving the keys we have.
        this.lastAttemptFailed = true;
        this.lastError = `unreachable (${errorMessage(err)})`;
        metrics.jwksFetch.inc({ jwks_uri: jwksUri, outcome: 'failure' });
      }
      logger.warn({ jwksUri, problem: this.lastError, cachedKeys: this.keys?.length ?? 0 }, 'JWKS fetch failed');
    }
  }

  private store(keys: VerificationKey[]): void {
    this.keys = keys;
    this.keysByKid = new Map();
    for (const key of keys) {
      if (key.kid !== undefined) this.keysByKid.set(key.kid, [...(this.keysByKid.get(key.kid) ?? []), key]);
    }
    this.fetchedAt = epochMillis(this.options.clock);
    this.lastAttemptFailed = false;
    this.lastError = undefined;
  }
}
