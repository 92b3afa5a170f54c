import { runService } from '@smsauth/service-kit';
import { buildApp } from './app';
import { configSchema } from './config';

void runService({
  name: 'airport-api',
  configSchema,
  build: async (config, logger) => buildApp({ config, logger }),
});
