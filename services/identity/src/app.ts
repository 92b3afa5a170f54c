import { dirname, join } from 'node:path';
import {
  apiDocsEnabled,
  apiDocsRouter,
  createMetricsRegistry,
  createServiceApp,
  Lifecycle,
  type Logger,
  servedRoutesOf,
  type ServiceApp,
  systemClock,
  type Clock,
} from '@smsauth/service-kit';
import { issuerOf, managementAudienceOf, testNumbersAllowed, type Config } from './config';
import { PASSWORDLESS_OTP_GRANT } from '@smsauth/contracts';
import { createSmsGatewayClient, type SmsGatewayClient } from './delivery/gateway-client';
import { gatewayUrlCheck } from './delivery/gateway-url-check';
import { logStreamMetrics } from './delivery/log-stream-metrics';
import { createLogStreamSinkClient } from './delivery/log-stream-sink';
import { createBackchannelLogoutClient } from './delivery/backchannel-logout-client';
import { backchannelLogoutMetrics } from './delivery/backchannel-logout-metrics';
import { BackchannelLogoutDeliverer, BackchannelLogoutWorker, type BackchannelLogoutSender } from './domain/logout/backchannel';
import type { ResolveHost } from './delivery/gateway-url-policy';
import { LogStreamDeliverer, logStreamLagSeconds, type LogStreamSink } from './domain/log-streams/delivery';
import { LogStreamWorker, type Timers } from './domain/log-streams/worker';
import { UserJobRunner } from './domain/jobs/runner';
import { UserJobWorker } from './domain/jobs/worker';
import { ClientAuthenticator } from './domain/oauth/client-auth';
import { authorizationCodeGrant } from './domain/oauth/authorization-code-grant';
import { clientCredentialsGrant } from './domain/oauth/client-credentials';
import type { PasswordlessExchangeDependencies } from './domain/oauth/passwordless-exchange';
import { passwordlessOtpGrant } from './domain/oauth/passwordless-otp-grant';
import { refreshTokenGrant } from './domain/oauth/refresh-token-grant';
import { TokenGrantRegistry } from './domain/oauth/token-grants';
import { createSmsMetrics } from './domain/passwordless/sms-metrics';
import { createWebLoginMetrics } from './domain/authorize/web-login-metrics';
import { createPasskeyMetrics } from './domain/passkeys/metrics';
import { relyingPartyOf } from './domain/passkeys/settings';
import type { ConnectionRules } from './domain/management/connections';
import type { StartDependencies } from './domain/passwordless/start';
import type { SmsPolicyDependencies } from './domain/sms-policy/guard';
import { createSmsPolicyMetrics } from './domain/sms-policy/metrics';
import type { KeyRing } from './domain/tokens/key-ring';
import { TokenSigner } from './domain/tokens/signer';
import { TokenVerifier } from './domain/tokens/verifier';
import { consoleRouter } from './routes/console';
import { CORS_CREDENTIALED_PATHS, CORS_PATHS, corsForWebOrigins, MANAGEMENT_CORS_METHODS } from './routes/cors';
import { managementOperations, managementRouter, managementRoutesOf } from './routes/management';
import { openApiRouter } from './routes/openapi';
import { identityOperations, identityRouter } from './routes/operations';
import type { IdentityStore } from './store';
import { StoreLoginAppearance } from './domain/branding/store-appearance';

/** The API version the OpenAPI document states (the package version). */
const IDENTITY_VERSION = '0.1.0';

/** How long a replica holds a user job without committing a batch before another may take it over. */
const USER_JOB_LEASE_SECONDS = 60;
/** How long a replica shows the brand, languages and texts it read before reading them again (another replica's write shows within this). */
const LOGIN_APPEARANCE_TTL_MS = 5_000;

export interface AppDependencies {
  config: Config;
  logger: Logger;
  store: IdentityStore;
  keyRing: KeyRing;
  /** Time for token iat/exp and expiry checks; tests inject a fixed one. */
  clock?: Clock;
  /** DNS for the gateway URL policy; tests inject one. */
  resolveHost?: ResolveHost;
  /** Delivers codes to connection gateways; built from resolveHost when absent. */
  smsGateway?: SmsGatewayClient;
  lifecycle?: Lifecycle;
  /** POSTs log stream batches; built from the URL policy and resolveHost when absent. */
  logStreamSink?: LogStreamSink;
  /** The log stream worker's timers; tests inject ones that never fire and call runOnce(). */
  logStreamTimers?: Timers;
  /** The user job worker's timers and batch size; tests inject timers that never fire and call runOnce(). */
  userJobs?: { timers?: Timers; batchSize?: number };
  /** The back-channel logout worker's timers and sender; tests inject timers that never fire and call runOnce(). */
  backchannelLogout?: { timers?: Timers; sender?: BackchannelLogoutSender };
}

export interface IdentityApp extends ServiceApp {
  /** Delivers tenant logs to log streams; not started here (startIdentity starts it). */
  logStreamWorker: LogStreamWorker;
  /** Runs bulk user imports and exports; not started here (startIdentity starts it). */
  userJobWorker: UserJobWorker;
  /** Delivers back-channel logout tokens; not started here (startIdentity starts it). */
  backchannelLogoutWorker: BackchannelLogoutWorker;
  /** Signs and POSTs logout tokens (tests sign one to compare). */
  backchannelLogoutDeliverer: BackchannelLogoutDeliverer;
}

/** packages/console's build output, wherever the workspace installed the package. */
function consoleDistDir(): string {
  return join(dirname(require.resolve('@smsauth/console/package.json')), 'dist');
}

/** The rules connection writes obey (GATEWAY_URL_POLICY, test numbers): the management API's, a tenant file's. */
export function connectionRulesOf(config: Config, resolveHost?: ResolveHost): ConnectionRules {
  return { checkGatewayUrl: gatewayUrlCheck(config.GATEWAY_URL_POLICY, resolveHost), testNumbersAllowed: testNumbersAllowed(config) };
}

/** Builds the identity app from its dependencies; never listens. */
export function buildApp(deps: AppDependencies): IdentityApp {
  const { config, store, keyRing } = deps;
  const clock = deps.clock ?? systemClock;
  const issuer = issuerOf(config);
  const signer = new TokenSigner(keyRing, clock, issuer);
  const verifier = new TokenVerifier(keyRing, clock, issuer);
  const logger = deps.logger;
  // private_key_jwt assertions may name our issuer, AUTH_URL or the token endpoint as `aud`.
  const clientAuthenticator = new ClientAuthenticator({
    store,
    clock,
    audiences: [...new Set([issuer, config.AUTH_URL, `${config.AUTH_URL}/oauth/token`])],
  });
  const metrics = createMetricsRegistry('identity');
  const smsMetrics = createSmsMetrics(metrics);
  const smsPolicy: SmsPolicyDependencies = {
    store,
    clock,
    logger,
    metrics: createSmsPolicyMetrics(metrics),
    testNumbersAllowed: testNumbersAllowed(config),
  };
  const codeExchange: PasswordlessExchangeDependencies = {
    store,
    smsMetrics,
    clock,
    smsPolicy,
    signer,
    logger,
    clientAuthenticator,
    bruteForce: { threshold: config.BRUTE_FORCE_THRESHOLD, blockSeconds: config.BRUTE_FORCE_BLOCK_SECONDS },
  };
  const webLoginMetrics = createWebLoginMetrics(metrics);
  const grants = new TokenGrantRegistry()
    .register('client_credentials', clientCredentialsGrant({ store, signer, clientAuthenticator, clock }))
    .register(PASSWORDLESS_OTP_GRANT, passwordlessOtpGrant(codeExchange))
    .register('refresh_token', refreshTokenGrant({ store, signer, clock, logger, clientAuthenticator }))
    .register('authorization_code', authorizationCodeGrant({ store, signer, clock, logger, clientAuthenticator, metrics: webLoginMetrics }));
  const secureCookies = config.AUTH_URL.startsWith('https:');

  const lifecycle = deps.lifecycle ?? new Lifecycle();
  lifecycle.addReadinessCheck('database', () => store.ping());
  const smsGateway =
    deps.smsGateway ??
    createSmsGatewayClient({
      policy: config.GATEWAY_URL_POLICY,
      timeoutMs: config.GATEWAY_TIMEOUT_MS,
      resolveHost: deps.resolveHost,
      logger,
    });
  if (!deps.smsGateway) lifecycle.addCloser('sms-gateway-client', () => smsGateway.close());
  const start: StartDependencies = {
    store,
    clock,
    rateLimits: {
      perIpPerHour: config.PASSWORDLESS_START_LIMIT_PER_IP_PER_HOUR,
      perPhonePerHour: config.PASSWORDLESS_START_LIMIT_PER_PHONE_PER_HOUR,
    },
    smsGateway,
    logger,
    clientAuthenticator,
    smsMetrics,
    smsPolicy,
  };

  // Sink URLs obey GATEWAY_URL_POLICY, as gateway URLs do, at write time and at connect time.
  const ownSink = deps.logStreamSink
    ? undefined
    : createLogStreamSinkClient({ policy: config.GATEWAY_URL_POLICY, timeoutMs: config.LOG_STREAM_TIMEOUT_MS, resolveHost: deps.resolveHost });
  if (ownSink) lifecycle.addCloser('log-stream-sink', () => ownSink.close());
  const logStreamSink = deps.logStreamSink ?? ownSink!;
  const logStreamDeliverer = new LogStreamDeliverer({
    store,
    clock,
    sink: logStreamSink,
    metrics: logStreamMetrics(metrics, () => logStreamLagSeconds(store, clock)),
    logger,
    ...(deps.logStreamTimers ? { timers: deps.logStreamTimers } : {}),
    policy: {
      batchSize: config.LOG_STREAM_BATCH_SIZE,
      timeoutMs: config.LOG_STREAM_TIMEOUT_MS,
      maxFailures: config.LOG_STREAM_MAX_FAILURES,
      backoffMs: config.LOG_STREAM_BACKOFF_MS,
      maxBackoffMs: config.LOG_STREAM_MAX_BACKOFF_MS,
    },
  });
  const logStreamWorker = new LogStreamWorker(logStreamDeliverer, { pollMs: config.LOG_STREAM_POLL_MS, timers: deps.logStreamTimers, logger });

  const userJobRunner = new UserJobRunner(store, clock, logger, {
    batchSize: deps.userJobs?.batchSize ?? config.USER_IMPORT_BATCH_SIZE,
    leaseSeconds: USER_JOB_LEASE_SECONDS,
  });
  const userJobWorker = new UserJobWorker(userJobRunner, { pollMs: config.USER_JOB_POLL_MS, timers: deps.userJobs?.timers, logger });

  // Back-channel logout URLs obey GATEWAY_URL_POLICY at connect time, as sink URLs do.
  const ownBackchannelSender = deps.backchannelLogout?.sender
    ? undefined
    : createBackchannelLogoutClient({ policy: config.GATEWAY_URL_POLICY, timeoutMs: config.BACKCHANNEL_LOGOUT_TIMEOUT_MS, resolveHost: deps.resolveHost });
  if (ownBackchannelSender) lifecycle.addCloser('backchannel-logout-client', () => ownBackchannelSender.close());
  const backchannelLogoutDeliverer = new BackchannelLogoutDeliverer({
    store,
    clock,
    signer,
    sender: deps.backchannelLogout?.sender ?? ownBackchannelSender!,
    metrics: backchannelLogoutMetrics(metrics),
    logger,
    policy: {
      batchSize: 20,
      timeoutMs: config.BACKCHANNEL_LOGOUT_TIMEOUT_MS,
      backoffMs: 5_000,
      maxBackoffMs: 300_000,
      retryForMs: config.BACKCHANNEL_LOGOUT_RETRY_SECONDS * 1000,
    },
  });
  const backchannelLogoutWorker = new BackchannelLogoutWorker(backchannelLogoutDeliverer, {
    pollMs: config.BACKCHANNEL_LOGOUT_POLL_MS,
    timers: deps.backchannelLogout?.timers,
    logger,
  });

  const serviceApp = createServiceApp({
    name: 'identity',
    logger: deps.logger,
    lifecycle,
    metrics,
    urlencoded: true,
    trustProxy: config.TRUST_PROXY,
    // The hosted pages' stylesheet: fetched with every page, it is not an event of its own.
    debugPaths: ['/authorize/login.css'],
    // Embedded login: a login ticket in /authorize's query, a verifier in /co/verify's.
    redactQueryParams: ['login_ticket', 'co_verifier'],
    routes: (app, kitOperations) => {
      // The document at /openapi.json is the identity service's own (routes/openapi).
      if (apiDocsEnabled(config)) app.use(apiDocsRouter({ title: 'identity reference', documentUrl: '/openapi.json' }));
      // Before the routes, so preflights of allowed web origins are answered and their answers carry the headers.
      app.use(CORS_PATHS, corsForWebOrigins(store));
      app.use(CORS_CREDENTIALED_PATHS, corsForWebOrigins(store, ['POST'], { credentials: true }));
      app.use('/api/v2', corsForWebOrigins(store, MANAGEMENT_CORS_METHODS));
      const sessions = { idleSeconds: config.SESSION_IDLE_LIFETIME_SECONDS, absoluteSeconds: config.SESSION_ABSOLUTE_LIFETIME_SECONDS };
      // Read on every page render: kept briefly per replica, forgotten on this replica's writes.
      const appearance = new StoreLoginAppearance(store, clock, LOGIN_APPEARANCE_TTL_MS);
      const operations = identityOperations({
        wellKnown: { keyRing, grants, authUrl: config.AUTH_URL, issuer },
        start,
        authorize: {
          store,
          clock,
          start,
          codeExchange,
          secureCookies,
          sessions,
          codeLifetimeSeconds: config.AUTHORIZATION_CODE_LIFETIME_SECONDS,
          metrics: webLoginMetrics,
          relyingParty: relyingPartyOf(config.AUTH_URL),
          passkeyMetrics: createPasskeyMetrics(metrics),
          issuer,
          appearance,
        },
        codeExchange,
        token: { grants, managementAudience: managementAudienceOf(config) },
        revoke: { store, clock, clientAuthenticator },
        logout: { store, clock, verifier, secureCookies, issuer, appearance },
        userinfo: { store, verifier, clock },
        userExports: { store, clock },
        crossOrigin: { codeExchange, issuer, secureCookies },
      });
      const router = identityRouter(operations);
      app.use(router);
      const managementDependencies = {
        store,
        keyRing,
        verifier,
        clock,
        audience: managementAudienceOf(config),
        authUrl: config.AUTH_URL,
        connectionRules: connectionRulesOf(config, deps.resolveHost),
        logStreamRules: { checkSinkUrl: gatewayUrlCheck(config.GATEWAY_URL_POLICY, deps.resolveHost, 'sink.httpEndpoint') },
        sessions,
        appearanceChanged: () => appearance.invalidate(),
      };
      const declaredManagement = managementOperations(managementDependencies);
      const management = managementRouter(managementDependencies, declaredManagement);
      app.use('/api/v2', management);
      if (config.CONSOLE) {
        app.use(consoleRouter({ store, authUrl: config.AUTH_URL, managementAudience: managementAudienceOf(config), distDir: consoleDistDir() }));
      }
      app.use(
        openApiRouter({
          version: IDENTITY_VERSION,
          managementRoutes: managementRoutesOf(management),
          managementOperations: declaredManagement,
          managementAudience: managementAudienceOf(config),
          operations,
          kitOperations,
          routes: servedRoutesOf(router),
        }),
      );
    },
  });
  return { ...serviceApp, logStreamWorker, userJobWorker, backchannelLogoutWorker, backchannelLogoutDeliverer };
}
