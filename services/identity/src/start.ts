import { type Logger, systemClock } from '@smsauth/service-kit';
import { buildApp, connectionRulesOf, type AppDependencies, type IdentityApp } from './app';
import { managementAudienceOf, secretsAtRestOf, tenantFileVariables, type Config } from './config';
import { bootstrapManagement } from './domain/bootstrap';
import { bootstrapTenant } from './domain/bootstrap-tenant';
import { phoneNumberMigrationContext } from './domain/phone/stored-numbers';
import { LogRetention } from './domain/logs/retention';
import { LoginStatsRollup } from './domain/logs/stats-rollup';
import { KeyRing } from './domain/tokens/key-ring';
import { createSecretCipher, openStore, type IdentityStore, type SqlClient } from './store';

export interface StartOptions extends Partial<Pick<AppDependencies, 'clock' | 'resolveHost' | 'logStreamTimers' | 'userJobs' | 'backchannelLogout'>> {
  /** PostgreSQL schema to work in (tests isolate themselves); default public. */
  schema?: string;
  /** Where generated admin credentials are printed once; stdout by default. */
  print?: (text: string) => void;
  /** What a TENANT_FILE's `${NAME}`s may name; the process environment by default. */
  tenantFileVariables?: Readonly<Record<string, string | undefined>>;
}

export interface StartedIdentity extends IdentityApp {
  store: IdentityStore;
  keyRing: KeyRing;
  /** The raw database client (tests seed rows with it). */
  sql: SqlClient;
  /** Stops log stream delivery and log pruning, and closes the database (all also registered as lifecycle closers). */
  close(): Promise<void>;
}

/**
 * Opens every secret the tenant's configuration keeps sealed (connections' gateway secrets, log
 * streams' authorization and signing secrets), so a KEY_ENCRYPTION_SECRET that cannot open them
 * refuses the start with the cipher's message instead of failing each sign-in with a 500. Loading
 * the signing keys already checks theirs, but keys made before KEY_ENCRYPTION_SECRET was set are
 * stored unsealed and open with any secret (docs/backups.md). A tenant has a handful of each.
 */
async function openSealedConfiguration(store: IdentityStore): Promise<void> {
  await store.connections.list();
  await store.logStreams.list();
}

/**
 * Everything main.ts does before listening: open and migrate the database, load (or create)
 * the signing keys, bootstrap the management API and its admin client, the console's client,
 * the TENANT_FILE and the first operator, build the app.
 */
export async function startIdentity(config: Config, logger: Logger, options: StartOptions = {}): Promise<StartedIdentity> {
  const clock = options.clock ?? systemClock;
  const cipher = createSecretCipher(secretsAtRestOf(config));
  if (!cipher.encrypts) logger.warn('KEY_ENCRYPTION_SECRET is not set: signing keys and gateway secrets are stored unencrypted');
  const opened = await openStore(config.DATABASE_URL, cipher, {
    schema: options.schema,
    preparedStatements: config.DATABASE_PREPARED_STATEMENTS,
    maxConnections: config.DATABASE_POOL_SIZE,
    m2mCacheTtlMs: config.M2M_CACHE_TTL_MS,
    // Migration 7 writes stored numbers in E.164 with the same parser every incoming number goes through.
    migrationContext: phoneNumberMigrationContext(logger),
    recordTenantLogs: config.TENANT_LOG_RECORDING,
    embeddedSnapshotDir: config.PGLITE_SNAPSHOT_DIR,
    warn: (message) => logger.warn(message),
  });
  try {
    const keyRing = await KeyRing.open(opened.store, clock, { certificateSubject: new URL(config.AUTH_URL).hostname });
    await openSealedConfiguration(opened.store);
    await bootstrapManagement(opened.store, {
      managementAudience: managementAudienceOf(config),
      adminClientId: config.ADMIN_CLIENT_ID,
      adminClientSecret: config.ADMIN_CLIENT_SECRET,
      logger,
      print: options.print,
    });
    await bootstrapTenant(opened.store, {
      authUrl: config.AUTH_URL,
      console: config.CONSOLE,
      tenantFile: config.TENANT_FILE ? { path: config.TENANT_FILE, variables: options.tenantFileVariables ?? tenantFileVariables() } : undefined,
      firstOperator: config.FIRST_OPERATOR_PHONE_NUMBER
        ? { phoneNumber: config.FIRST_OPERATOR_PHONE_NUMBER, roles: config.FIRST_OPERATOR_ROLE, connection: config.FIRST_OPERATOR_CONNECTION }
        : undefined,
      connectionRules: connectionRulesOf(config, options.resolveHost),
      clock,
      logger,
    });
    const built = buildApp({ config, logger, store: opened.store, keyRing, clock, resolveHost: options.resolveHost, logStreamTimers: options.logStreamTimers, userJobs: options.userJobs, backchannelLogout: options.backchannelLogout });
    built.lifecycle.addCloser('database', () => opened.close());
    const retention = new LogRetention(opened.store, clock, { retentionDays: config.LOG_RETENTION_DAYS }, logger);
    retention.start();
    // Closers run in reverse order: delivery and pruning stop before the database closes.
    built.lifecycle.addCloser('log-retention', () => retention.stop());
    const statsRollup = new LoginStatsRollup(opened.store, logger, config.STATS_ROLLUP_INTERVAL_MS);
    statsRollup.start();
    built.lifecycle.addCloser('login-stats-rollup', () => statsRollup.stop());
    built.lifecycle.addCloser('log-stream-worker', () => built.logStreamWorker.stop());
    built.logStreamWorker.start();
    built.lifecycle.addCloser('user-job-worker', () => built.userJobWorker.stop());
    built.userJobWorker.start();
    built.lifecycle.addCloser('backchannel-logout-worker', () => built.backchannelLogoutWorker.stop());
    built.backchannelLogoutWorker.start();
    const close = async () => {
      await built.logStreamWorker.stop();
      await built.userJobWorker.stop();
      await built.backchannelLogoutWorker.stop();
      await retention.stop();
      await statsRollup.stop();
      await opened.close();
    };
    return { ...built, store: opened.store, keyRing, sql: opened.sql, close };
  } catch (err) {
    await opened.close().catch(() => undefined);
    throw err;
  }
}
