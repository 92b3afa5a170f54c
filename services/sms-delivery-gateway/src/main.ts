import { runService } from '@smsauth/service-kit';
import { buildApp } from './app';
import { configSchema } from './config';

void runService({
  name: 'sms-delivery-gateway',
  configSchema,
  build: async (config, logger) => buildApp({ config, logger }),
});
