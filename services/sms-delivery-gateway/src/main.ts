import { runService } from '@smsauth/service-kit';
import { SERVICE_NAME, buildApp } from './app';
import { configSchema } from './config';
import { PROVIDER_SECRETS } from './providers/registry';

void runService({
  name: SERVICE_NAME,
  configSchema,
  // Defence in depth: these never go into log calls, but a field of that name is censored if one does.
  redact: ['body', 'token', 'GATEWAY_AUTH_SECRET', 'OUTBOX_TOKEN', 'SMS_PROVIDER_INSTANCES', 'REDIS_URL', ...PROVIDER_SECRETS],
  build: async (config, logger) => buildApp({ config, logger }),
});
