import { createSecretKey } from 'node:crypto';
import { apiDocsEnabled, apiDocsRouter, createMetricsRegistry, createServiceApp, systemClock, type Clock, type Logger, type ServiceApp } from '@smsauth/service-kit';
import axios, { type AxiosInstance } from 'axios';
import type { RequestHandler } from 'express';
import { isProduction, type Config } from './config';
import { DeliveryService } from './domain/deliver';
import { createDeliveryMetrics, type DeliveryMetrics } from './domain/delivery-metrics';
import type { DeliveryTokenPolicy } from './domain/delivery-token';
import { decodeGatewaySecret } from './domain/gateway-secret';
import { createIpAllowList } from './domain/ip-allow-list';
import { buildOpenApiDocument } from './domain/openapi';
import { createProvider } from './providers/registry';
import { mountDeliveryRoute } from './routes/delivery';
import { requireAllowedIp, requireDeliveryToken, requireOutboxToken } from './routes/guards';
import { mountOpenApiRoute } from './routes/openapi';
import { mountOutboxRoutes } from './routes/outbox';
import { mountOutboxPage } from './routes/outbox-page';
import { OutboxStore } from './store/outbox-store';

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

/** Builds the sms-delivery-gateway app from its dependencies; never listens. */
export function buildApp({ config, logger, clock = systemClock, http = axios.create() }: AppDependencies): ServiceApp {
  const outbox = new OutboxStore(config.OUTBOX_CAPACITY);
  // SMS_PROVIDER picks the definition; it gets its own variables only (registry.ts).
  const provider = createProvider(config.SMS_PROVIDER, config, { logger, http, outbox, clock });
  const outboxRoutes = config.SMS_PROVIDER === 'outbox' && (!isProduction(config) || config.OUTBOX_TOKEN !== undefined);
  const authEnabled = config.GATEWAY_AUTH_SECRET !== undefined;
  logStartupWarnings(config, logger, outboxRoutes);

  const document = buildOpenApiDocument({
    version: VERSION,
    authEnabled,
    outboxRoutes,
    outboxTokenRequired: config.OUTBOX_TOKEN !== undefined,
  });

  const metrics = createMetricsRegistry(SERVICE_NAME);
  const deliveryMetrics = createDeliveryMetrics(metrics, provider.name);
  const delivery = new DeliveryService({ provider, metrics: deliveryMetrics, logger, clock });

  const deliveryGuards = createDeliveryGuards(config, clock, deliveryMetrics);
  const outboxGuards = config.OUTBOX_TOKEN !== undefined ? [requireOutboxToken(config.OUTBOX_TOKEN, logger)] : [];

  return createServiceApp({
    name: SERVICE_NAME,
    logger,
    metrics,
    trustProxy: config.TRUST_PROXY,
    redactQueryParams: ['recipient'],
    routes: (app) => {
      mountDeliveryRoute(app, { delivery, guards: deliveryGuards });
      if (outboxRoutes) mountOutboxRoutes(app, { outbox, guards: outboxGuards });
      if (outboxRoutes) mountOutboxPage(app, { outbox, token: config.OUTBOX_TOKEN });
      mountOpenApiRoute(app, document);
      if (apiDocsEnabled(config)) app.use(apiDocsRouter({ title: `${SERVICE_NAME} reference`, documentUrl: '/openapi.json' }));
    },
  });
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
  if (config.SMS_PROVIDER === 'outbox' && isProduction(config)) {
    logger.warn(
      outboxRoutes
        ? 'SMS_PROVIDER=outbox in production: messages are kept in memory and never reach a phone; the outbox read API is on (OUTBOX_TOKEN set)'
        : 'SMS_PROVIDER=outbox in production: messages are kept in memory and never reach a phone; the outbox read API is off (set OUTBOX_TOKEN to enable it)',
    );
  }
  logger.info({ provider: config.SMS_PROVIDER, authentication: config.GATEWAY_AUTH_SECRET !== undefined }, 'sms delivery gateway configured');
}
