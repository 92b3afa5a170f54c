import { loadLookupKey } from './lookup-key';
import type { SecretCipher } from './secret-cipher';
import { EmbeddedSnapshots } from './embedded-snapshot';
import { migrate } from './migrate';
import type { MigrationContext } from './migrations';
import { clientGrantsRepo } from './repos/client-grants';
import { clientsRepo } from './repos/clients';
import { clientCredentialsRepo, type StoredClientCredential } from './repos/client-credentials';
import { accessTokensRepo } from './repos/access-tokens';
import { authorizeTransactionsRepo } from './repos/authorize-transactions';
import { authorizationCodesRepo } from './repos/authorization-codes';
import { loginSessionsRepo } from './repos/login-sessions';
import { backchannelLogoutsRepo } from './repos/backchannel-logouts';
import { loginTicketsRepo } from './repos/login-tickets';
import { passkeysRepo } from './repos/passkeys';
import { connectionsRepo } from './repos/connections';
import { loginFailuresRepo } from './repos/login-failures';
import { oneTimeCodesRepo } from './repos/one-time-codes';
import { passwordlessLoginsRepo } from './repos/passwordless-logins';
import { rateLimitsRepo } from './repos/rate-limits';
import { refreshTokensRepo } from './repos/refresh-tokens';
import { resourceServersRepo } from './repos/resource-servers';
import { rolesRepo } from './repos/roles';
import { loginStatsRepo } from './repos/login-stats';
import { smsEconomicsRepo } from './repos/sms-economics';
import { signingKeysRepo } from './repos/signing-keys';
import { smsFraudGuardRepo } from './repos/sms-fraud-guard';
import { lastDeliveriesRepo } from './repos/last-deliveries';
import { tenantLogsRepo } from './repos/tenant-logs';
import { logStreamsRepo } from './repos/log-streams';
import { userBlocksRepo } from './repos/user-blocks';
import { usersRepo } from './repos/users';
import { userJobsRepo } from './repos/user-jobs';
import { brandingRepo } from './repos/branding';
import { promptCustomTextsRepo } from './repos/prompt-custom-texts';
import { tenantSettingsRepo } from './repos/tenant-settings';
import { openSqlClient, type SqlClient, type SqlClientOptions, type SqlExecutor } from './sql-client';
import { invalidatingExecutor, M2mLookupCache } from './m2m-lookup-cache';

export interface IdentityStore {
  /** findById and webOrigins are served from the lookup cache when there is one (outside transactions). */
  readonly clients: ReturnType<typeof clientsRepo>;
  readonly connections: ReturnType<typeof connectionsRepo>;
  /** findByIdentifier is served from the lookup cache when there is one (outside transactions). */
  readonly resourceServers: ReturnType<typeof resourceServersRepo>;
  /** findClientCredentialsContext is served from the M2M lookup cache when there is one (outside transactions). */
  readonly clientGrants: ReturnType<typeof clientGrantsRepo>;
  readonly users: ReturnType<typeof usersRepo>;
  /** Roles, their permissions and members, and users' direct permissions (RBAC). */
  readonly roles: ReturnType<typeof rolesRepo>;
  readonly userBlocks: ReturnType<typeof userBlocksRepo>;
  readonly signingKeys: ReturnType<typeof signingKeysRepo>;
  readonly rateLimits: ReturnType<typeof rateLimitsRepo>;
  readonly codes: ReturnType<typeof oneTimeCodesRepo>;
  /** The SMS fraud guard's per-prefix counts and blocks (domain/sms-policy). */
  readonly smsFraudGuard: ReturnType<typeof smsFraudGuardRepo>;
  readonly loginFailures: ReturnType<typeof loginFailuresRepo>;
  /** The channel and gateway message of each number's last code (channel fallback after an undelivered receipt). */
  readonly lastDeliveries: ReturnType<typeof lastDeliveriesRepo>;
  /** Multi-table statements of the start and code-exchange path (one round trip each). */
  readonly passwordlessLogins: ReturnType<typeof passwordlessLoginsRepo>;
  readonly refreshTokens: ReturnType<typeof refreshTokensRepo>;
  readonly accessTokens: ReturnType<typeof accessTokensRepo>;
  readonly authorizeTransactions: ReturnType<typeof authorizeTransactionsRepo>;
  /** Codes of the authorization code flow, stored hashed. */
  readonly authorizationCodes: ReturnType<typeof authorizationCodesRepo>;
  /** The hosted login's sessions (single sign-on, silent authentication). */
  readonly loginSessions: ReturnType<typeof loginSessionsRepo>;
  /** Back-channel logout notifications waiting to be delivered (queued as sessions end). */
  readonly backchannelLogouts: ReturnType<typeof backchannelLogoutsRepo>;
  /** Login tickets of embedded login (POST /co/authenticate, consumed at /authorize). */
  readonly loginTickets: ReturnType<typeof loginTicketsRepo>;
  /** Passkeys of the hosted login, their WebAuthn challenges and the offer's state. */
  readonly passkeys: ReturnType<typeof passkeysRepo>;
  /** private_key_jwt public keys and the used assertion `jti`s. */
  readonly clientCredentials: ReturnType<typeof clientCredentialsRepo> & {
    /** A client's keys for verifying its assertion: listForClient, through the M2M lookup cache when there is one. */
    listForAuthentication(clientId: string): Promise<StoredClientCredential[]>;
  };
  /** Tenant log events (GET /api/v2/logs, log streams); append inside the transaction of the change. */
  readonly tenantLogs: ReturnType<typeof tenantLogsRepo>;
  /** The console's figures: hourly counts of tenant log records (rolled up) and user counts. */
  readonly loginStats: ReturnType<typeof loginStatsRepo>;
  readonly smsEconomics: ReturnType<typeof smsEconomicsRepo>;
  /** Log streams, their cursors and delivery leases, and the tenant log records they deliver. */
  readonly logStreams: ReturnType<typeof logStreamsRepo>;
  /** Bulk user import and export jobs, their leases, refused records and export files. */
  readonly userJobs: ReturnType<typeof userJobsRepo>;
  /** The tenant's settings: enabled languages, Auth0's tenant and prompt settings (one row). */
  readonly tenantSettings: ReturnType<typeof tenantSettingsRepo>;
  /** The tenant's brand: logo, favicon, font, colours (one row). */
  readonly branding: ReturnType<typeof brandingRepo>;
  /** The hosted pages' custom texts, by prompt and language. */
  readonly promptCustomTexts: ReturnType<typeof promptCustomTextsRepo>;
  /** Runs `fn` with a store bound to one transaction (nested calls join the outer one). */
  transaction<T>(fn: (tx: IdentityStore) => Promise<T>): Promise<T>;
  /** Serialises a critical section across instances; call inside transaction(), released at its end. */
  lockForTransaction(name: string): Promise<void>;
  /** Readiness: resolves when the database answers. */
  ping(): Promise<void>;
}

/** Store-wide choices. */
export interface StoreOptions {
  /** false: tenant log records are not written (TENANT_LOG_RECORDING, for the bench only). */
  recordTenantLogs?: boolean;
}

function bindStore(
  db: SqlExecutor,
  cipher: SecretCipher,
  transaction: IdentityStore['transaction'] | undefined,
  options: StoreOptions,
  m2mCache?: M2mLookupCache,
): IdentityStore {
  const recording = options.recordTenantLogs ?? true;
  const clientGrants = clientGrantsRepo(db);
  const clientCredentials = clientCredentialsRepo(db);
  const clients = clientsRepo(db);
  const resourceServers = resourceServersRepo(db);
  const store: IdentityStore = {
    // webOrigins (CORS) is read on every cross-origin call: through the lookup cache, which every client write empties.
    // A client and an API are read by every token, authorize and revoke request: through the
    // lookup cache too (every write to their tables empties it), kept only when they exist so
    // that requests naming random ids cannot fill it.
    clients: m2mCache
      ? {
          ...clients,
          findById: (clientId) => m2mCache.lookup(`client\0${clientId}`, () => clients.findById(clientId), (client) => client !== undefined),
          webOrigins: () => m2mCache.lookup('web-origins', () => clients.webOrigins()),
        }
      : clients,
    connections: connectionsRepo(db, cipher),
    resourceServers: m2mCache
      ? {
          ...resourceServers,
          findByIdentifier: (identifier) =>
            m2mCache.lookup(`api\0${identifier}`, () => resourceServers.findByIdentifier(identifier), (api) => api !== undefined),
        }
      : resourceServers,
    clientGrants: m2mCache
      ? {
          ...clientGrants,
          findClientCredentialsContext: (clientId, audience) =>
            m2mCache.lookup(
              `context\0${clientId}\0${audience}`,
              () => clientGrants.findClientCredentialsContext(clientId, audience),
              // Kept only for a client and an API that exist: a caller naming random ones
              // must not fill the cache (nor push real entries out) with its own strings.
              (context) => context.client !== undefined && context.api !== undefined,
            ),
        }
      : clientGrants,
    users: usersRepo(db),
    roles: rolesRepo(db),
    userBlocks: userBlocksRepo(db),
    signingKeys: signingKeysRepo(db, cipher),
    rateLimits: rateLimitsRepo(db),
    codes: oneTimeCodesRepo(db, cipher),
    smsFraudGuard: smsFraudGuardRepo(db),
    loginFailures: loginFailuresRepo(db),
    lastDeliveries: lastDeliveriesRepo(db),
    passwordlessLogins: passwordlessLoginsRepo(db, cipher, { recordTenantLogs: recording, groupCommit: transaction !== undefined }),
    refreshTokens: refreshTokensRepo(db),
    accessTokens: accessTokensRepo(db),
    authorizeTransactions: authorizeTransactionsRepo(db),
    authorizationCodes: authorizationCodesRepo(db),
    loginSessions: loginSessionsRepo(db),
    backchannelLogouts: backchannelLogoutsRepo(db),
    loginTickets: loginTicketsRepo(db),
    passkeys: passkeysRepo(db),
    clientCredentials: {
      ...clientCredentials,
      listForAuthentication: m2mCache
        ? (clientId) => m2mCache.lookup(`credentials\0${clientId}`, () => clientCredentials.listForClient(clientId))
        : clientCredentials.listForClient,
    },
    // Only the root store is given `transaction` (a store bound to one gets undefined): it alone
    // groups concurrent standalone records; inside a transaction a record commits with its change.
    tenantLogs: tenantLogsRepo(db, cipher, { recordTenantLogs: recording, groupCommit: transaction !== undefined }),
    logStreams: logStreamsRepo(db, cipher),
    userJobs: userJobsRepo(db),
    tenantSettings: tenantSettingsRepo(db),
    branding: brandingRepo(db),
    promptCustomTexts: promptCustomTextsRepo(db),
    loginStats: loginStatsRepo(db),
    smsEconomics: smsEconomicsRepo(db),
    transaction: transaction ?? ((fn) => fn(store)),
    async lockForTransaction(name) {
      await db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`smsauth-identity:${name}`]);
    },
    async ping() {
      await db.query('SELECT 1');
    },
  };
  return store;
}

/**
 * The store over `sql`. With an M2M lookup cache, the client_credentials lookups outside
 * transactions go through it, and this store's own writes to the tables it holds empty it
 * (a transaction's again once it has ended, when other connections can see them).
 */
export function createStore(sql: SqlClient, cipher: SecretCipher, options: StoreOptions = {}, m2mCache?: M2mLookupCache): IdentityStore {
  if (!m2mCache) return bindStore(sql, cipher, (fn) => sql.transaction((tx) => fn(bindStore(tx, cipher, undefined, options))), options);
  const invalidate = () => m2mCache.invalidate();
  return bindStore(
    invalidatingExecutor(sql, invalidate),
    cipher,
    async (fn) => {
      let wrote = false;
      try {
        return await sql.transaction((tx) =>
          fn(
            bindStore(
              invalidatingExecutor(tx, () => {
                wrote = true;
                invalidate();
              }),
              cipher,
              undefined,
              options,
            ),
          ),
        );
      } finally {
        if (wrote) invalidate();
      }
    },
    options,
    m2mCache,
  );
}

export interface OpenedStore {
  store: IdentityStore;
  sql: SqlClient;
  /** The client_credentials lookup cache, when M2M_CACHE_TTL_MS > 0. */
  m2mCache?: M2mLookupCache;
  close(): Promise<void>;
}

/**
 * Opens the database named by DATABASE_URL, applies migrations, and returns the store.
 * `migrationContext` is what data migrations need from the service (see MigrationContext).
 */
export async function openStore(
  databaseUrl: string,
  cipher: SecretCipher,
  options: Pick<SqlClientOptions, 'schema' | 'preparedStatements' | 'listenRetryMs' | 'maxConnections'> &
    StoreOptions & {
      migrationContext?: MigrationContext;
      /** M2M_CACHE_TTL_MS: the client_credentials lookup cache's TTL; 0 (the default here) means none. */
      m2mCacheTtlMs?: number;
      /** PGLITE_SNAPSHOT_DIR: where a new embedded database's migrated snapshot is kept and started from (EmbeddedSnapshots). */
      embeddedSnapshotDir?: string;
      /** Where a snapshot that cannot be read or written is reported. */
      warn?: (message: string) => void;
    } = {},
): Promise<OpenedStore> {
  const schema = options.schema ?? 'public';
  const snapshots = options.embeddedSnapshotDir ? new EmbeddedSnapshots(options.embeddedSnapshotDir, options.warn ?? (() => undefined)) : undefined;
  const snapshot = snapshots?.read(schema);
  const sql = await openSqlClient(databaseUrl, { ...options, startFrom: snapshot }).catch(async (err: unknown) => {
    if (!snapshot || !snapshots) throw err;
    // An archive PGlite cannot unpack (cut short, another version's) is dropped: a memory
    // database starts without it; a directory may hold part of it, so its start fails and says so.
    snapshots.discard(schema, err);
    if (!databaseUrl.startsWith('memory://')) throw new Error(`the embedded database could not start from its snapshot (now deleted): ${(err as Error).message}; delete ${databaseUrl.slice('pglite:'.length)} and start again`);
    return openSqlClient(databaseUrl, options);
  });
  try {
    const applied = await migrate(sql, options.schema, undefined, options.migrationContext);
    // Kept before anything else is written: the snapshot is of an empty, migrated database.
    if (snapshots && (!snapshot || applied.length > 0)) await snapshots.write(schema, sql);
    cipher = cipher.withLookupKey(await loadLookupKey(sql, cipher));
  } catch (err) {
    await sql.close().catch(() => undefined);
    throw err;
  }
  const storeOptions: StoreOptions = { recordTenantLogs: options.recordTenantLogs };
  const ttlMs = options.m2mCacheTtlMs ?? 0;
  if (ttlMs <= 0) return { store: createStore(sql, cipher, storeOptions), sql, close: () => sql.close() };
  const m2mCache = new M2mLookupCache({ ttlMs });
  const listener = m2mCache.listenOn(sql, options.schema ?? 'public');
  // Started serving from the cache at once, unless the LISTEN connection cannot be opened.
  await listener.ready;
  return {
    store: createStore(sql, cipher, storeOptions, m2mCache),
    sql,
    m2mCache,
    async close() {
      await listener.close();
      await sql.close();
    },
  };
}

export { M2mLookupCache, M2M_LOOKUP_CHANNEL } from './m2m-lookup-cache';
export { listenerApplicationName } from './sql-client';
export { UniqueViolationError, MissingReferenceError } from './errors';
export type { SqlClient, SqlExecutor } from './sql-client';
export type { MigrationContext } from './migrations';
export { createSecretCipher, secretKeyId, type SecretCipher } from './secret-cipher';
export { resealAll, SEALED_COLUMNS, type ResealReport } from './reseal';
export type { FailureCounters, FailureCountingLimits } from './repos/login-failures';
export type { StoredClient } from './repos/clients';
export type { StoredConnection } from './repos/connections';
export type { SmsPrefixCount, SmsSend, SmsSendCounted, SmsVerificationCount, StoredSmsFraudBlock } from './repos/sms-fraud-guard';
export type { StoredResourceServer } from './repos/resource-servers';
export type { CountryChannelCount, GroupedCount, StatsGrouping } from './repos/login-stats';
export type { StoredSmsPrice, TimeToVerifyFigures } from './repos/sms-economics';
export { COUNTED_LOG_TYPES } from './repos/login-stats';
export type { StoredRole, StoredPermission, ListedPermission, ListedUserPermission, RoleMember } from './repos/roles';
export type { StoredClientGrant } from './repos/client-grants';
export type { StoredUser, NewUser, UserChanges, UserCondition, UserListQuery, UserSearchField, UserSortColumn } from './repos/users';
export type { Checkpoint, ListSlice, ListWindow } from './list-window';
export type { ConnectionAttributes, ConnectionFilter } from './repos/connections';
export type { ClientGrantFilter } from './repos/client-grants';
export type { StoredSigningKey, NewSigningKey, PublicJwk } from './repos/signing-keys';
export type { StoredCode, NewCode, CodeKey } from './repos/one-time-codes';
export type { StoredStartKey, StartKeyClaim } from './repos/passwordless-logins';
export type { StoredRefreshToken } from './repos/refresh-tokens';
export type { StoredAccessToken } from './repos/access-tokens';
export type { StoredAuthorizeTransaction } from './repos/authorize-transactions';
export type { StoredAuthorizationCode, NewAuthorizationCode } from './repos/authorization-codes';
export type { EndedLoginSession, StoredLoginSession } from './repos/login-sessions';
export type { SessionEndReason, StoredBackchannelLogout } from './repos/backchannel-logouts';
export type { StoredLoginTicket } from './repos/login-tickets';
export type { StoredPasskey, StoredWebAuthnChallenge, StoredPendingOffer } from './repos/passkeys';
export type { StoredClientCredential } from './repos/client-credentials';
export type { TenantLogRecord, StoredTenantLog, TenantLogCondition, TenantLogField, TenantLogSearch, DateBound } from './repos/tenant-logs';
export type { LogStreamCursor, PendingLogRecord, StoredLogStream, StoredLogStreamSink } from './repos/log-streams';
export type { StoredTenantSettings, TenantSettingsChanges } from './repos/tenant-settings';
export { EMPTY_BRANDING, type StoredBranding } from './repos/branding';
export type { StoredScreenTexts } from './repos/prompt-custom-texts';
export { JobLeaseLostError, type StoredUserJob, type StoredJobError, type UserJobStatus, type UserJobType } from './repos/user-jobs';
