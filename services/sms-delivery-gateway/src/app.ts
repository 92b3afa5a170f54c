import { createSecretKey } from 'node:crypto';
import {
  apiDocsEnabled,
  apiDocsRouter,
  createMetricsRegistry,
  createServiceApp,
  epochMillis,
  Lifecycle,
  probeOperations,
  systemClock,
  type Clock,
  type Logger,
  type ServiceApp,
} from '@smsauth/service-kit';
import axios, { type AxiosInstance } from 'axios';
import type { RequestHandler } from 'express';
import type { Registry } from 'prom-client';
import { Redis } from 'ioredis';
import { isProduction, type Config } from './config';
import { CircuitBreakers } from './domain/circuit-breaker';
import { DeliveryService, type DeliveryOutcome } from './domain/deliver';
import { createDeliveryMetrics, type DeliveryMetrics } from './domain/delivery-metrics';
import type { DeliveryTokenPolicy } from './domain/delivery-token';
import { decodeGatewaySecret } from './domain/gateway-secret';
import { DegradableIdempotency, DegradableMessageStatusStore } from './domain/degraded-stores';
import { IdempotencyStore, SharedIdempotencyStore, type Idempotency } from './domain/idempotency';
import { createIpAllowList } from './domain/ip-allow-list';
import { MessageStatusService } from './domain/message-statuses';
import { RECEIPT_TOKEN_PARAMETER } from './domain/receipt-url-token';
import { ChannelRoutes } from './domain/routing';
import { createSharedStoreMetrics, SharedStoreState } from './domain/shared-store-state';
import type { SmsProvider } from './domain/sms-provider';
import { createProviderInstance } from './providers/registry';
import { requireAllowedIp, requireDeliveryToken, requireOutboxToken } from './routes/guards';
import { gatewayOperations, mountGatewayOperations, withOpenApiDocument } from './routes';
import { MemoryMessageStatusStore, type MessageStatusStore } from './store/message-status-store';
import { OutboxStore } from './store/outbox-store';
import { RedisIdempotencyRecords, RedisMessageStatusStore } from './store/redis-store';

export const SERVICE_NAME = 'sms-delivery-gateway';
const VERSION = '0.1.0';

export interface AppDependencies {
  config: Config;
  logger: Logger;
  /** Where the time comes from (default: the system clock); tests inject one for token age and idempotency expiry. */
  clock?: Clock;
  /** HTTP client for the twilio and webhook providers. */
  http?: AxiosInstance;
}

/**
 * How long an Idempotency-Key's in-flight marker lives unless its replica renews it (every
 * third of it, while the send runs): a replica that died mid-send blocks its key this long.
 */
const IN_FLIGHT_TTL_MS = 6_000;

/** How long one Redis command may take before Redis counts as away (degraded mode). */
const REDIS_COMMAND_TIMEOUT_MS = 1_000;

/** Builds the sms-delivery-gateway app from its dependencies; never listens. With REDIS_URL, closing the lifecycle closes the Redis client. */
export function buildApp({ config, logger, clock = systemClock, http = axios.create() }: AppDependencies): ServiceApp {
  const lifecycle = new Lifecycle();
  const outbox = new OutboxStore(config.OUTBOX_CAPACITY);
  const publicUrl = config.GATEWAY_PUBLIC_URL;
  // Each instance gets its own settings only (registry.ts); routes name them.
  const providers = new Map<string, SmsProvider>(
    config.providerInstances.map((instance) => [
      instance.name,
      createProviderInstance(instance, {
        logger,
        http,
        outbox,
        clock,
        ...(publicUrl !== undefined
          ? { statusCallbackUrl: (id: string) => `${publicUrl}/receipts/${encodeURIComponent(instance.name)}/${encodeURIComponent(id)}` }
          : {}),
      }),
    ]),
  );
  const routes = ChannelRoutes.fromInput(config.SMS_ROUTES, [config.SMS_PROVIDER]);
  const usesOutbox = config.providerInstances.some((instance) => instance.kind === 'outbox');
  const outboxRoutes = usesOutbox && (!isProduction(config) || config.OUTBOX_TOKEN !== undefined);
  logStartupWarnings(config, logger, outboxRoutes);

  const metrics = createMetricsRegistry(SERVICE_NAME);
  const breakers = new CircuitBreakers({ failureThreshold: config.SMS_BREAKER_FAILURES, cooldownMs: config.SMS_BREAKER_COOLDOWN_MS }, clock);
  const deliveryMetrics = createDeliveryMetrics(metrics, [...providers.keys()], (name) => breakers.of(name).state);
  const { idempotency, statuses } = createStores(config, clock, logger, lifecycle, metrics);
  const delivery = new DeliveryService({ providers, routes, breakers, idempotency, statuses, metrics: deliveryMetrics, logger, clock });
  const messageStatuses = new MessageStatusService({ providers, statuses, metrics: deliveryMetrics, logger, clock });

  const deliveryGuards = createDeliveryGuards(config, clock, deliveryMetrics);
  const outboxGuards = config.OUTBOX_TOKEN !== undefined ? [requireOutboxToken(config.OUTBOX_TOKEN, logger)] : [];
  const operations = gatewayOperations(
    { delivery, messageStatuses, outbox },
    {
      authEnabled: config.GATEWAY_AUTH_SECRET !== undefined,
      outboxRoutes,
      ...(config.OUTBOX_TOKEN !== undefined ? { outboxToken: config.OUTBOX_TOKEN } : {}),
      ...(publicUrl !== undefined ? { publicUrl } : {}),
    },
  );
  const { served } = withOpenApiDocument(VERSION, operations, probeOperations(lifecycle, metrics));

  return createServiceApp({
    name: SERVICE_NAME,
    logger,
    metrics,
    lifecycle,
    keepRawBody: true,
    trustProxy: config.TRUST_PROXY,
    redactQueryParams: ['recipient', RECEIPT_TOKEN_PARAMETER],
    // The development outbox page reloads its list every few seconds: a reader, not an event.
    debugPaths: ['/outbox'],
    routes: (app) => {
      mountGatewayOperations(app, served, { delivery: deliveryGuards, outbox: outboxGuards });
      if (apiDocsEnabled(config)) app.use(apiDocsRouter({ title: `${SERVICE_NAME} reference`, documentUrl: '/openapi.json' }));
    },
  });
}

/**
 * Idempotency keys and message statuses: in Redis when REDIS_URL is set (shared by replicas),
 * else in memory. With Redis, a command fails within REDIS_COMMAND_TIMEOUT_MS when Redis is away,
 * and the gateway carries on in degraded mode (shared-store-state.ts) instead of failing
 * deliveries: readiness stays up with the detail.
 */
function createStores(
  config: Config,
  clock: Clock,
  logger: Logger,
  lifecycle: Lifecycle,
  metrics: Registry,
): { idempotency: Idempotency<DeliveryOutcome>; statuses: MessageStatusStore } {
  const now = () => epochMillis(clock);
  if (config.REDIS_URL === undefined) {
    return { idempotency: new IdempotencyStore<DeliveryOutcome>({ clock }), statuses: new MemoryMessageStatusStore({ now }) };
  }
  const redis = new Redis(config.REDIS_URL, {
    // A command waits at most this long, then fails (degraded mode takes over); a reconnect is
    // tried again quickly and forever: Redis coming back is noticed by the probe.
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
  });
  let lastError: string | undefined;
  redis.on('error', (err: Error) => {
    // Reconnects repeat the same error; say it once until it changes.
    if (err.message !== lastError) logger.warn({ err: { message: err.message } }, 'redis connection error');
    lastError = err.message;
  });
  redis.on('ready', () => (lastError = undefined));
  const state = new SharedStoreState({ probe: () => redis.ping(), logger, metrics: createSharedStoreMetrics(metrics) });
  lifecycle.addReadinessCheck('redis', () => state.readiness());
  lifecycle.addCloser('redis', async () => {
    state.close();
    await redis.quit().catch(() => redis.disconnect());
  });
  const records = new RedisIdempotencyRecords<DeliveryOutcome>(redis, config.REDIS_KEY_PREFIX);
  const shared = new SharedIdempotencyStore<DeliveryOutcome>(records, { inFlightTtlMs: IN_FLIGHT_TTL_MS, logger });
  return {
    idempotency: new DegradableIdempotency(shared, records, state, clock),
    statuses: new DegradableMessageStatusStore(new RedisMessageStatusStore(redis, config.REDIS_KEY_PREFIX), new MemoryMessageStatusStore({ now }), state),
  };
}

/** ALLOWED_IPS first (403), then the bearer token (401); empty when neither is configured. */
function createDeliveryGuards(config: Config, clock: Clock, metrics: DeliveryMetrics): RequestHandler[] {
  const guards: RequestHandler[] = [];
  if (config.ALLOWED_IPS.length > 0) guards.push(requireAllowedIp(createIpAllowList(config.ALLOWED_IPS), metrics));
  if (config.GATEWAY_AUTH_SECRET !== undefined) {
    const decoded = decodeGatewaySecret(config.GATEWAY_AUTH_SECRET, config.GATEWAY_AUTH_SECRET_BASE64);
    // configSchema already refuses a bad secret; this guards callers that build a Config by hand.
    if (!decoded.ok) throw new Error(`GATEWAY_AUTH_SECRET ${decoded.problem}`);
    const policy: DeliveryTokenPolicy = {
      key: createSecretKey(decoded.key),
      clock,
      ...(config.GATEWAY_AUTH_AUDIENCE !== undefined ? { audience: config.GATEWAY_AUTH_AUDIENCE } : {}),
      ...(config.GATEWAY_AUTH_SUBJECT !== undefined ? { subject: config.GATEWAY_AUTH_SUBJECT } : {}),
    };
    guards.push(requireDeliveryToken(policy, metrics));
  }
  return guards;
}

/** Said once at start, so an operator sees a risky setup in the first lines of the log. */
function logStartupWarnings(config: Config, logger: Logger, outboxRoutes: boolean): void {
  if (config.GATEWAY_AUTH_SECRET === undefined) {
    logger.warn(
      { allowedIps: config.ALLOWED_IPS.length > 0 ? config.ALLOWED_IPS : undefined },
      config.ALLOWED_IPS.length > 0
        ? 'GATEWAY_AUTH_SECRET is not set: delivery requests are not authenticated; only ALLOWED_IPS limits who can send SMS through this gateway'
        : 'GATEWAY_AUTH_SECRET is not set: delivery requests are not authenticated and anyone who can reach this gateway can send SMS through it',
    );
  }
  if (config.providerInstances.some((instance) => instance.kind === 'outbox') && isProduction(config)) {
    logger.warn(
      outboxRoutes
        ? 'SMS_PROVIDER=outbox in production: messages are kept in memory and never reach a phone; the outbox read API is on (OUTBOX_TOKEN set)'
        : 'SMS_PROVIDER=outbox in production: messages are kept in memory and never reach a phone; the outbox read API is off (set OUTBOX_TOKEN to enable it)',
    );
  }
  logger.info(
    {
      provider: config.SMS_PROVIDER,
      providers: config.providerInstances.map((instance) => `${instance.name} (${instance.kind})`),
      routes: config.SMS_ROUTES !== undefined ? Object.keys(config.SMS_ROUTES) : undefined,
      idempotencyStore: config.REDIS_URL !== undefined ? 'redis' : 'memory',
      authentication: config.GATEWAY_AUTH_SECRET !== undefined,
    },
    'sms delivery gateway configured',
  );
}
