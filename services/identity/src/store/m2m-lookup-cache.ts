import type { SqlClient, SqlExecutor } from './sql-client';

/**
 * The channel migration 011's triggers notify on every statement that writes a table the
 * client_credentials path reads (clients, resource_servers, client_grants, client_credentials);
 * the payload is `schema.table`. PostgreSQL delivers a NOTIFY only when its transaction commits.
 */
export const M2M_LOOKUP_CHANNEL = 'smsauth_identity_m2m_lookups';

/** The tables whose rows the cache holds (what the triggers of migration 011 watch). */
const WATCHED_TABLES = ['clients', 'resource_servers', 'client_grants', 'client_credentials'] as const;
const WRITES_WATCHED_TABLE = new RegExp(`\\b(?:INSERT\\s+INTO|UPDATE|DELETE\\s+FROM|TRUNCATE(?:\\s+TABLE)?)\\s+(?:${WATCHED_TABLES.join('|')})\\b`, 'i');

export interface M2mLookupCacheOptions {
  /** How long an entry is served at most (a backstop to the notifications); 0 disables the cache. */
  ttlMs: number;
  /** Entries kept at most; the oldest goes first. */
  maxEntries?: number;
  /** Monotonic milliseconds; tests inject one. */
  now?: () => number;
}

/**
 * A per-process cache of what a client_credentials token needs (client, API, grant, a client's
 * private_key_jwt keys), so a warm token costs one signature and no database round trip; the
 * user-token endpoints read their client and API through it too (the code exchange, refresh,
 * /authorize), since they live in the same watched tables.
 *
 * Revocation is not traded for it: every write to those tables, from any replica or code path,
 * empties it (a NOTIFY from migration 011's triggers, delivered on commit, plus this process's
 * own writes as soon as they complete). It serves nothing while the LISTEN connection is down or
 * not yet confirmed, so a lost notification can never leave a deleted grant usable: the lookups
 * then go to the database. A generation counter keeps a read that started before an invalidation
 * from putting what it read back into the cache. The TTL bounds how long an entry lives anyway.
 */
export class M2mLookupCache {
  private readonly entries = new Map<string, { value: unknown; expiresAt: number }>();
  private generation = 0;
  private listening = false;
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(options: M2mLookupCacheOptions) {
    this.ttlMs = options.ttlMs;
    this.maxEntries = options.maxEntries ?? 10_000;
    this.now = options.now ?? (() => performance.now());
  }

  /** True while entries may be served: enabled, and the invalidation channel is confirmed. */
  get serving(): boolean {
    return this.ttlMs > 0 && this.listening;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Forgets everything; reads under way when it happens are not stored. */
  invalidate(): void {
    this.generation += 1;
    this.entries.clear();
  }

  /** The invalidation channel went down or came (back) up: either way, what is held may be stale. */
  setListening(listening: boolean): void {
    this.listening = listening;
    this.invalidate();
  }

  /** `load`'s value, from the cache when held; kept when `keep` accepts it (default: always). */
  async lookup<T>(key: string, load: () => Promise<T>, keep?: (value: T) => boolean): Promise<T> {
    if (!this.serving) return load();
    const startedAt = this.now();
    const held = this.entries.get(key);
    if (held) {
      if (held.expiresAt > startedAt) return held.value as T;
      this.entries.delete(key);
    }
    const generation = this.generation;
    const value = await load();
    // Stored only if nothing was invalidated (and the channel stayed up) while it was read.
    if (generation === this.generation && this.serving && (!keep || keep(value))) {
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, { value, expiresAt: startedAt + this.ttlMs });
    }
    return value;
  }

  /**
   * Subscribes to the invalidation channel of `schema`. The cache serves once LISTEN is
   * confirmed and stops serving whenever the connection is lost. `ready` settles after the
   * first attempt, confirmed or not (a database refusing LISTEN must not stop the service).
   */
  listenOn(sql: SqlClient, schema: string): { ready: Promise<void>; close(): Promise<void> } {
    const prefix = `${schema}.`;
    let firstAttempt!: () => void;
    const ready = new Promise<void>((resolve) => (firstAttempt = resolve));
    const listener = sql.listen(M2M_LOOKUP_CHANNEL, {
      onNotification: (payload) => {
        if (payload.startsWith(prefix)) this.invalidate();
      },
      onListening: (listening) => {
        this.setListening(listening);
        firstAttempt();
      },
    });
    return { ready, close: () => listener.close() };
  }
}

const writesWatchedTable = new Map<string, boolean>();

/** Whether a statement writes a table the cache holds rows of (memoised per SQL text, bounded). */
export function writesM2mLookupTable(text: string): boolean {
  let writes = writesWatchedTable.get(text);
  if (writes === undefined) {
    writes = WRITES_WATCHED_TABLE.test(text);
    if (writesWatchedTable.size < 2_000) writesWatchedTable.set(text, writes);
  }
  return writes;
}

/**
 * This process's own writes invalidate the cache as soon as they complete (a statement on its
 * own once it returns, one in a transaction when the transaction ends), so a management call
 * that returned is seen at once by the next token request here, without waiting for the NOTIFY.
 */
export function invalidatingExecutor<E extends SqlExecutor>(executor: E, onWrite: () => void): E {
  return {
    ...executor,
    async query(text, params) {
      if (!writesM2mLookupTable(text)) return executor.query(text, params);
      try {
        return await executor.query(text, params);
      } finally {
        onWrite();
      }
    },
    async exec(script) {
      try {
        await executor.exec(script);
      } finally {
        if (writesM2mLookupTable(script)) onWrite();
      }
    },
  };
}
