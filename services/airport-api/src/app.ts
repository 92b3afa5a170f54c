import { createServiceApp, type Logger, type ServiceApp } from '@smsauth/service-kit';
import type { Config } from './config';

export interface AppDependencies {
  config: Config;
  logger: Logger;
}

/** Builds the airport-api app from its dependencies; never listens. */
export function buildApp({ logger }: AppDependencies): ServiceApp {
  return createServiceApp({
    name: 'airport-api',
    logger,
    routes: () => {
      // Endpoints arrive with the service's own issue.
    },
  });
}
