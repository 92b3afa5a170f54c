import { createApiGateway } from '@smsauth/api-gateway';
import { apiDocsEnabled, apiDocsRouter, createMetricsRegistry, createServiceApp, Lifecycle, type Clock, type Logger, type ServiceApp } from '@smsauth/service-kit';
import type { Config } from './config';
import { loadAirportNames, type AirportNames } from './domain/airports';
import { renderOpenApiDocument } from './domain/openapi-document';
import { airportNameHandler } from './routes/airport-name';
import { openApiDocumentHandler } from './routes/openapi';

export interface AppDependencies {
  config: Config;
  logger: Logger;
  clock?: Clock;
  /** Airport names; loaded from AIRPORTS_FILE or the bundled data when not given. */
  airportNames?: AirportNames;
  /** Passed to the gateway (tests shorten it). */
  jwksFetchTimeoutMs?: number;
}

/** Builds the airport-api app from its dependencies; never listens. */
export function buildApp({ config, logger, clock, airportNames, jwksFetchTimeoutMs }: AppDependencies): ServiceApp {
  const names = airportNames ?? loadAirportNames(config.AIRPORTS_FILE);
  const openApi = renderOpenApiDocument({ file: config.OPENAPI_FILE, authUrl: config.AUTH_URL, audience: config.API_AUDIENCE });
  const metrics = createMetricsRegistry('airport-api');
  const operations = new Set(
    Object.entries((openApi.document as { paths?: Record<string, object> }).paths ?? {}).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`)),
  );
  const lifecycle = new Lifecycle();
  logger.info({ airports: names.size, openapiFile: config.OPENAPI_FILE ?? 'bundled' }, 'airport data and OpenAPI document loaded');

  return createServiceApp({
    name: 'airport-api',
    logger,
    metrics,
    lifecycle,
    // On a documented operation a refusal (the kit's input guard) is text, as the document's
    // 400 and the operation's own refusals are; the gateway layer's rejections (401, 403, 404)
    // keep their google.rpc.Status JSON, and paths the document does not know get JSON errors.
    renderClientError: (res, error) => {
      if (error.options.body === undefined && operations.has(`${res.req.method} ${res.req.path}`)) res.type('text/plain').send(error.errorDescription);
      else res.json(error.toBody());
    },
    routes: (app) => {
      app.get('/openapi.yaml', openApiDocumentHandler(openApi.yaml));
      if (apiDocsEnabled(config)) app.use(apiDocsRouter({ title: 'airport-api reference', documentUrl: '/openapi.yaml' }));
      app.use(
        createApiGateway({
          document: openApi.document as Record<string, unknown>,
          handlers: { airportName: airportNameHandler(names) },
          logger,
          metrics,
          lifecycle,
          ...(clock ? { clock } : {}),
          ...(jwksFetchTimeoutMs ? { fetchTimeoutMs: jwksFetchTimeoutMs } : {}),
        }),
      );
    },
  });
}
