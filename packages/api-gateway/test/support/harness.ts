import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMemoryLogger, createMetricsRegistry, createServiceApp, Lifecycle } from '@smsauth/service-kit';
import type { RequestHandler } from 'express';
import type { Registry } from 'prom-client';
import { createApiGateway, type ApiGatewayOptions } from '../../src';
import { TestClock } from './clock';

export const ISSUER = 'https://id.example.com/';
export const AUDIENCE = 'https://api.example.com';

/** A document with a templated path, an open operation, a scoped one and a document-level default. */
export function testDocument(jwksUri: string, scheme: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    swagger: '2.0',
    info: { title: 'Gateway test API', version: '1.0.0' },
    host: 'test-api.example.com',
    security: [{ identity: [] }],
    paths: {
      '/things/{thingId}': { get: { operationId: 'getThing', security: [{ identity: [] }] } },
      '/things': { post: { operationId: 'createThing' } },
      '/open': { get: { operationId: 'open', security: [] } },
      '/scoped': { get: { operationId: 'scoped', security: [{ identity: ['read:things', 'write:things'] }] } },
    },
    securityDefinitions: {
      identity: {
        type: 'oauth2',
        flow: 'implicit',
        authorizationUrl: 'https://id.example.com/authorize',
        'x-google-issuer': ISSUER,
        'x-google-jwks_uri': jwksUri,
        'x-google-audiences': `https://other.example.com, ${AUDIENCE}`,
        ...scheme,
      },
    },
  };
}

/** Echoes what the handler received, so tests can see claims, params and forwarded headers. */
export const echoHandler: RequestHandler = (req, res) => {
  const rawUserInfo = req.rawHeaders.filter((_, index) => index % 2 === 0 && req.rawHeaders[index]?.toLowerCase() === 'x-endpoint-api-userinfo');
  res.json({
    params: req.params,
    auth: req.auth ?? null,
    userInfo: req.get('x-endpoint-api-userinfo') ?? null,
    rawUserInfoCount: rawUserInfo.length,
  });
};

export const ECHO_HANDLERS: Record<string, RequestHandler> = {
  getThing: echoHandler,
  createThing: echoHandler,
  open: echoHandler,
  scoped: echoHandler,
};

export interface RunningGateway {
  url: string;
  clock: TestClock;
  metrics: Registry;
  lifecycle: Lifecycle;
  logLines: string[];
  metricValue(name: string, labels?: Record<string, string>): Promise<number>;
  close(): Promise<void>;
}

/** The gateway inside a real service app, on a real server (64 KB header limit, so 20 KB tokens reach it). */
export async function startGateway(
  options: { jwksUri: string; clock?: TestClock } & Partial<Omit<ApiGatewayOptions, 'clock'>>,
): Promise<RunningGateway> {
  const clock = options.clock ?? new TestClock();
  const memory = createMemoryLogger({ name: 'gateway-test' });
  const logger = memory.logger;
  const metrics = createMetricsRegistry('gateway-test');
  const lifecycle = new Lifecycle();
  const { app } = createServiceApp({
    name: 'gateway-test',
    logger,
    metrics,
    lifecycle,
    routes: (routes) => {
      routes.use(
        createApiGateway({
          handlers: ECHO_HANDLERS,
          logger,
          metrics,
          lifecycle,
          ...options,
          document: options.document ?? testDocument(options.jwksUri),
          clock,
        }),
      );
    },
  });
  const server: Server = createServer({ maxHeaderSize: 64 * 1024 }, app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    clock,
    metrics,
    lifecycle,
    get logLines() {
      return memory.lines();
    },
    async metricValue(name, labels = {}) {
      const metric = metrics.getSingleMetric(name);
      if (!metric) return 0;
      const { values } = await metric.get();
      return values
        .filter((value) => Object.entries(labels).every(([label, expected]) => String(value.labels[label]) === expected))
        .reduce((sum, value) => sum + value.value, 0);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
