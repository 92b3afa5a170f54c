import { runService } from '@smsauth/service-kit';
import { SERVICE_NAME, buildApp } from './app';
import { configSchema } from './config';

void runService({
  name: SERVICE_NAME,
  configSchema,
  // Defence in depth: these never go into log calls, but a field of that name is censored if one does.
  redact: ['body', 'token', 'GATEWAY_AUTH_SECRET', 'TWILIO_AUTH_TOKEN', 'OUTBOX_TOKEN', 'WEBHOOK_HEADERS'],
  build: async (config, logger) => buildApp({ config, logger }),
});
